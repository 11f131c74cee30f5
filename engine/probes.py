"""Measurements of a network state: alignment with Σ_A M, gradient and weight decompositions.

Each probe has a tensor form (`*_t`, results stay on the run's device) used by the per-step
snapshot, which moves everything to the host in one transfer, and the plain public form that
returns Python floats.
"""

from __future__ import annotations

import numpy as np
import torch

from .network import Params


class Geometry:
    """Ground truth and patterns in the data coordinates, on the run's device."""

    def __init__(self, truth_coords: np.ndarray, patterns: np.ndarray, A: np.ndarray, device):
        self.truth = torch.as_tensor(truth_coords, dtype=torch.float32, device=device)
        self.truth_norm = float(np.linalg.norm(truth_coords))
        square = patterns.shape[0] == patterns.shape[1]
        identity = square and np.allclose(patterns, np.eye(len(patterns)))
        self.patterns = None if identity else torch.as_tensor(patterns, dtype=torch.float32,
                                                              device=device)
        self.rel = torch.zeros(patterns.shape[1], dtype=torch.bool, device=device)
        self.rel[torch.as_tensor(A, device=device)] = True
        self.rel_idx = torch.nonzero(self.rel).flatten()
        self.bg_idx = torch.nonzero(~self.rel).flatten()

    def components(self, v: torch.Tensor) -> torch.Tensor:
        """⟨M_j, v_i⟩ for every row i and pattern j."""
        return v if self.patterns is None else v @ self.patterns


def cosines(p: Params, geo: Geometry) -> torch.Tensor:
    """cos(w_i, Σ_A M) per neuron (0 for a zero weight)."""
    norms = p.sq_norms().sqrt() * geo.truth_norm
    return (p.q @ geo.truth) / norms.clamp_min(1e-30)


def _sq_split(c: torch.Tensor, geo: Geometry) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-row squared norms of the relevant and of the background pattern components.

    Each part is summed on its own rather than subtracted from a total: a difference of
    float32 squares would leave cancellation noise of ~1e-7·‖v‖² in the smaller part.
    """
    rel = c.index_select(1, geo.rel_idx)
    bg = c.index_select(1, geo.bg_idx)
    return (rel * rel).sum(1), (bg * bg).sum(1)


def _off_dict_sq(v: torch.Tensor, c: torch.Tensor, geo: Geometry) -> torch.Tensor:
    """Per-row ‖v − P Pᵀ v‖² (P: the orthonormal patterns in the data coordinates).

    The residual is formed before squaring, so its float32 error is ~1e-7·‖v‖, not the
    ~3e-4·‖v‖ of sqrt(‖v‖² − Σ_j ⟨M_j, v⟩²). In pattern coordinates it is exactly 0.
    """
    if geo.patterns is None:
        return torch.zeros(v.shape[0], dtype=v.dtype, device=v.device)
    res = torch.addmm(v, c, geo.patterns.T, alpha=-1.0)
    return (res * res).sum(1)


GRAD_KEYS = ("grad_rel", "grad_bg", "grad_ratio", "grad_ratio_median", "snr_median",
             "grad_offdict")


def grad_decomposition_t(gq: torch.Tensor, a_prev: torch.Tensor, geo: Geometry):
    """Tensor form of grad_decomposition: (6 scalars in GRAD_KEYS order, T_pattern) on device."""
    c = geo.components(gq)
    rel_sq, bg_sq = _sq_split(c, geo)
    off_sq = _off_dict_sq(gq, c, geo)
    rel_n, bg_n = rel_sq.sqrt(), (bg_sq + off_sq).sqrt()  # background counts the off-dictionary
    norms = (rel_sq + bg_sq + off_sq).sqrt()
    live = norms > 1e-3 * norms.max().clamp_min(1e-30)
    dev = gq.device
    if not bool(live.any()):
        nan = float("nan")
        return (torch.tensor([0.0, 0.0, nan, nan, nan, 0.0], device=dev),
                torch.zeros(c.shape[1], dtype=torch.float32, device=dev))
    safe_a = torch.where(a_prev.abs() > 1e-30, a_prev, torch.full_like(a_prev, 1e-30))
    T = (-c / safe_a[:, None])[live]
    if geo.bg_idx.numel():
        snr = T.index_select(1, geo.rel_idx).mean(1) / \
            T.index_select(1, geo.bg_idx).abs().mean(1).clamp_min(1e-30)
    else:
        snr = torch.full((T.shape[0],), float("inf"), device=dev)
    grad_rel = rel_sq.mean().sqrt()
    grad_bg = (bg_sq + off_sq).mean().sqrt()
    ratio = torch.where(grad_bg > 0, grad_rel / grad_bg, torch.full_like(grad_rel, float("inf")))
    scalars = torch.stack([
        grad_rel, grad_bg, ratio,
        (rel_n[live] / bg_n[live].clamp_min(1e-30)).median(),
        snr.median(),
        off_sq.mean().sqrt(),
    ])
    return scalars, T.mean(0)


def grad_decomposition(gq: torch.Tensor, a_prev: torch.Tensor, geo: Geometry) -> dict:
    """Relevant vs background parts of ∂L/∂w_i (paper-spec §4.5): T_ij = -⟨M_j, G_i⟩ / a_i."""
    scalars, t_pattern = grad_decomposition_t(gq, a_prev, geo)
    out = dict(zip(GRAD_KEYS, scalars.double().cpu().tolist(), strict=True))
    out["T_pattern"] = t_pattern.float().cpu().numpy()
    return out


def weight_decomposition_t(p: Params, geo: Geometry) -> torch.Tensor:
    """Tensor form of weight_decomposition: [weight_ratio, off_span] on device.

    off_span counts the residual outside span(M) in the coordinates and the off-basis part
    perp_scale·perp that the pattern-space path carries from the initialisation.
    """
    c = geo.components(p.q)
    rel_sq, bg_sq = _sq_split(c, geo)
    off = _off_dict_sq(p.q, c, geo)
    if p.perp is not None and p.perp_scale != 0.0:
        off = off + p.perp_scale**2 * (p.perp * p.perp).sum(1)
    ratio = rel_sq.sqrt() / bg_sq.sqrt().clamp_min(1e-30)
    return torch.stack([ratio.median(), off.mean().sqrt()])


def weight_decomposition(p: Params, geo: Geometry) -> dict:
    """‖q_A‖/‖q_-A‖ (median over neurons) and the off-span norm of the weights."""
    ratio, off = weight_decomposition_t(p, geo).double().cpu().tolist()
    return {"weight_ratio": ratio, "off_span": off}


def map_features(p: Params) -> np.ndarray:
    """Vectors with the same inner products as the d-space weights w_i (for the MDS map)."""
    q = p.q.float().cpu().numpy()
    if p.perp is None or p.perp_scale == 0.0:
        return q
    return np.hstack([q, p.perp_scale * p.perp.float().cpu().numpy()])
