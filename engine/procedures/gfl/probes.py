"""The probes every GFL step reports (spec §2.3, §4.2), from the first layer and the directions."""

from __future__ import annotations

import numpy as np

from ...data import Directions
from ...snapshot import ALIGNED


def unit(w: np.ndarray) -> np.ndarray:
    """Rows scaled to unit norm (zero rows stay zero)."""
    norms = np.linalg.norm(w, axis=1, keepdims=True)
    return w / np.where(norms == 0, 1.0, norms)


def direction_cosines(w: np.ndarray, dirs: Directions) -> np.ndarray:
    """4m×K cosines cos(w_i, D_j) (0 for a zero neuron)."""
    return unit(np.asarray(w, dtype=np.float64)) @ dirs.vectors.T


def relevant_shares(w: np.ndarray, dirs: Directions) -> np.ndarray:
    """‖P_U w_i‖/‖w_i‖ per non-zero neuron (U = the directions' relevant subspace)."""
    w = np.asarray(w, dtype=np.float64)
    norms = np.linalg.norm(w, axis=1)
    live = norms > 0
    return np.linalg.norm(w[live] @ dirs.relevant, axis=1) / norms[live]


def layer_probes(w: np.ndarray, dirs: Directions) -> dict:
    """coverage = min_j max_i |cos(w_i, D_j)| (every feature found?), frac_aligned = share of
    neurons within cos 0.9 of some direction's star (signed for centres, |cos| otherwise),
    relevant_share = median ‖P_U w‖/‖w‖, the per-direction count of such aligned ('nice')
    neurons and its minimum, the signed cosine of each neuron to its nearest direction and that
    direction's index."""
    cos = direction_cosines(w, dirs)
    best = np.abs(cos).argmax(axis=1)
    nearest = cos[np.arange(len(cos)), best]
    # a centre is one star at D_j (a neuron at −D_j is not on it: the theory's nice neurons
    # have ⟨w, D⟩ > (1 − γ)‖w‖); a feature or subspace direction is drawn at ±D_j
    close = (cos if dirs.kind == "centre" else np.abs(cos)) > ALIGNED
    nice = close.sum(axis=0)
    shares = relevant_shares(w, dirs)
    return {"coverage": float(np.abs(cos).max(axis=0).min()),
            "frac_aligned": float(close.any(axis=1).mean()),
            "relevant_share": float(np.median(shares)) if len(shares) else 0.0,
            "nice_min": int(nice.min()), "nice": nice, "nearest_cos": nearest,
            "nearest_dir": best}


def plane_basis(dirs: Directions) -> np.ndarray | None:
    """d×2: the first two directions of a subspace truth U (multi-index: u₁, u₂), the plane the
    map is drawn in; None for feature or centre directions (those keep the MDS map)."""
    basis = dirs.relevant
    return basis[:, :2] if dirs.kind == "subspace" and basis.shape[1] >= 2 else None


def plane_map(w: np.ndarray, basis: np.ndarray) -> np.ndarray:
    """N×2: each row's unit direction projected onto the plane, (⟨ŵ, u₁⟩, ⟨ŵ, u₂⟩); where U is
    that plane a neuron's distance from the centre is its relevant share ‖P_U w‖/‖w‖."""
    return unit(np.asarray(w, dtype=np.float64)) @ basis
