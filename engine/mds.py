"""2-D maps of neuron directions: fast classical MDS on cosines, aligned frame to frame."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

# scipy.linalg is imported before the thread-pool controller is made, so its own BLAS is
# among the pools that single_thread_blas() limits
from threadpoolctl import ThreadpoolController  # ships with scikit-learn


def unit_rows(x: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero)."""
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norms > 0, norms, 1.0)


def with_stars(weights: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Stack neuron weights with the two stars +Σ_A M and -Σ_A M as the last two rows."""
    return np.vstack([weights, truth[None, :], -truth[None, :]])


@lru_cache(maxsize=1)
def _blas_controller():
    """The BLAS thread pools of this process (made once, after scipy loaded its own)."""
    return ThreadpoolController()


def single_thread_blas():
    """Context in which numpy's BLAS/LAPACK run on one thread.

    The maps are small (≤ a few hundred rows), and a multi-threaded OpenBLAS next to torch's
    own thread pool makes both spin against each other: on a 2-core machine a 602-point frame
    took 50-120 ms that way and takes a few ms single-threaded.
    """
    return _blas_controller().limit(limits=1, user_api="blas")


SMALL_EIGH = 160  # up to this size numpy's full eigh is fastest; above, LAPACK's top-2 (evr)


def _top2(gram: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two largest eigenvalues (descending) and their eigenvectors of a symmetric matrix."""
    n = gram.shape[0]
    if n <= SMALL_EIGH:
        vals, vecs = np.linalg.eigh(gram)
        return vals[::-1][:2], vecs[:, ::-1][:, :2]
    from scipy.linalg import eigh  # scipy: imported where used (issue 37)

    vals, vecs = eigh(gram, subset_by_index=[max(0, n - 2), n - 1], driver="evr",
                      check_finite=False)
    return vals[::-1], vecs[:, ::-1]


def classical(points: np.ndarray) -> np.ndarray:
    """Classical MDS of the chord distances ‖u_i - u_j‖ = √(2 - 2cos): PCA of the unit vectors.

    The top two principal axes come from the smaller of the two Gram matrices (features × features
    or points × points); only two eigenpairs are computed when that matrix is large.
    """
    u = unit_rows(np.asarray(points, dtype=np.float64))
    u = u - u.mean(axis=0, keepdims=True)
    if u.shape[1] <= u.shape[0]:
        _, top = _top2(u.T @ u)
        emb = u @ top
    else:
        vals, vecs = _top2(u @ u.T)
        emb = vecs * np.sqrt(np.clip(vals, 0.0, None))
    if emb.shape[1] < 2:
        emb = np.hstack([emb, np.zeros((emb.shape[0], 2 - emb.shape[1]))])
    return emb


def align(emb: np.ndarray, prev: np.ndarray | None) -> np.ndarray:
    """Rotate/reflect emb onto the previous frame (orthogonal Procrustes) so points do not jump."""
    if prev is None or prev.shape != emb.shape:
        return _canonical(emb)
    u, _, vt = np.linalg.svd(emb.T @ prev)
    return emb @ (u @ vt)


def _canonical(emb: np.ndarray) -> np.ndarray:
    """Deterministic orientation for a first frame: the +star (second-to-last row) to the right."""
    star = emb[-2]
    angle = np.arctan2(star[1], star[0]) if np.linalg.norm(star) > 1e-12 else 0.0
    c, s = np.cos(-angle), np.sin(-angle)
    return emb @ np.array([[c, s], [-s, c]])


def embed(weights: np.ndarray, truth: np.ndarray, prev: np.ndarray | None = None) -> np.ndarray:
    """(N+2)×2 map of neuron directions and the two stars, aligned to prev when given."""
    with single_thread_blas():
        return align(classical(with_stars(weights, truth)), prev).astype(np.float32)
