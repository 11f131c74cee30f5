"""Measurements of a network state: alignment with Σ_A M, gradient and weight decompositions."""

from __future__ import annotations

import numpy as np
import torch

from .network import Params


class Geometry:
    """Ground truth and patterns in the data coordinates, on the run's device."""

    def __init__(self, truth_coords: np.ndarray, patterns: np.ndarray, A: np.ndarray, device):
        self.truth = torch.as_tensor(truth_coords, dtype=torch.float32, device=device)
        self.truth_norm = float(np.linalg.norm(truth_coords))
        identity = patterns.shape[0] == patterns.shape[1] and np.allclose(patterns, np.eye(len(patterns)))
        self.patterns = None if identity else torch.as_tensor(patterns, dtype=torch.float32,
                                                              device=device)
        self.rel = torch.zeros(patterns.shape[1], dtype=torch.bool, device=device)
        self.rel[torch.as_tensor(A, device=device)] = True

    def components(self, v: torch.Tensor) -> torch.Tensor:
        """⟨M_j, v_i⟩ for every row i and pattern j."""
        return v if self.patterns is None else v @ self.patterns


def cosines(p: Params, geo: Geometry) -> torch.Tensor:
    """cos(w_i, Σ_A M) per neuron (0 for a zero weight)."""
    norms = p.sq_norms().sqrt() * geo.truth_norm
    return (p.q @ geo.truth) / norms.clamp_min(1e-30)


def _norm_split(c: torch.Tensor, total_sq: torch.Tensor, rel: torch.Tensor):
    """Per-row norms of the relevant part and of everything else (background + off-dictionary)."""
    rel_sq = (c[:, rel] ** 2).sum(1)
    return rel_sq.sqrt(), (total_sq - rel_sq).clamp_min(0.0).sqrt()


def grad_decomposition(gq: torch.Tensor, a_prev: torch.Tensor, geo: Geometry) -> dict:
    """Relevant vs background parts of ∂L/∂w_i (paper-spec §4.5): T_ij = -⟨M_j, G_i⟩ / a_i."""
    c = geo.components(gq)
    total_sq = (gq * gq).sum(1)
    rel_n, bg_n = _norm_split(c, total_sq, geo.rel)
    live = total_sq.sqrt() > 1e-3 * float(total_sq.sqrt().max().clamp_min(1e-30))
    if not bool(live.any()):
        return {"grad_rel": 0.0, "grad_bg": 0.0, "grad_ratio": float("nan"),
                "grad_ratio_median": float("nan"), "snr_median": float("nan"),
                "grad_offdict": 0.0, "T_pattern": np.zeros(c.shape[1], np.float32)}
    T = -c / torch.where(a_prev.abs() > 1e-30, a_prev, torch.full_like(a_prev, 1e-30))[:, None]
    T = T[live]
    snr = T[:, geo.rel].mean(1) / T[:, ~geo.rel].abs().mean(1).clamp_min(1e-30) \
        if bool((~geo.rel).any()) else torch.full((T.shape[0],), float("inf"))
    grad_rel = float((rel_n**2).mean().sqrt())
    grad_bg = float((bg_n**2).mean().sqrt())
    comp_sq = (c * c).sum(1)
    return {
        "grad_rel": grad_rel,
        "grad_bg": grad_bg,
        "grad_ratio": grad_rel / grad_bg if grad_bg > 0 else float("inf"),
        "grad_ratio_median": float((rel_n[live] / bg_n[live].clamp_min(1e-30)).median()),
        "snr_median": float(snr.median()),
        "grad_offdict": float((total_sq - comp_sq).clamp_min(0).mean().sqrt()),
        "T_pattern": T.mean(0).float().cpu().numpy(),
    }


def weight_decomposition(p: Params, geo: Geometry) -> dict:
    """‖q_A‖/‖q_-A‖ (median over neurons) and the off-span norm of the weights."""
    c = geo.components(p.q)
    rel_n, rest_n = _norm_split(c, (c * c).sum(1), geo.rel)
    off = p.sq_norms() - (c * c).sum(1)
    ratio = rel_n / rest_n.clamp_min(1e-30)
    return {"weight_ratio": float(ratio.median()),
            "off_span": float(off.clamp_min(0).mean().sqrt())}


def map_features(p: Params) -> np.ndarray:
    """Vectors with the same inner products as the d-space weights w_i (for the MDS map)."""
    q = p.q.float().cpu().numpy()
    if p.perp is None or p.perp_scale == 0.0:
        return q
    return np.hstack([q, p.perp_scale * p.perp.float().cpu().numpy()])
