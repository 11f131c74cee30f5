"""What the AZL world measures (spec §3.1.3): test error, the F and G projections c_F, c_G, and
where the first and second blocks' weights sit (pair purity, relevant share, V's support)."""

from __future__ import annotations

import numpy as np
import torch

from ...scenarios.azl.data import G_SUPPORT
from ...snapshot import ALIGNED


def fit_numbers(out: torch.Tensor, y: torch.Tensor, f: torch.Tensor, g: torch.Tensor,
                alpha: float, beta: float) -> dict:
    """err = E‖out − y‖² (the quantity compared with kα²; no ½), c_F = mean_r E[out_r F_r]/β,
    c_G = mean_r E[out_r G_r]/α. F_r and G_r are distinct parities, orthonormal in L²(uniform),
    so c_F = 1 and c_G = 1 exactly for out = y."""
    err = float(((out - y) ** 2).sum(dim=1).mean())
    c_f = float((out * f).mean()) / beta
    c_g = float((out * g).mean()) / alpha if alpha > 0 else float("nan")
    return {"err": err, "c_F": c_f, "c_G": c_g}


def pair_purity(w: np.ndarray, k: int) -> np.ndarray:
    """Per neuron max_r (w²_{2r−1} + w²_{2r}) / ‖w‖² (1 on a pair; at random each pair's share is
    2/d on average and the largest of k = 8 about 0.18)."""
    sq = np.asarray(w, dtype=np.float64) ** 2
    pairs = sq[:, 0:2 * k:2] + sq[:, 1:2 * k:2]
    return pairs.max(axis=1) / np.maximum(sq.sum(axis=1), 1e-30)


def relevant_share(w: np.ndarray, k: int) -> np.ndarray:
    """Per neuron ‖w_{1..2k}‖² / ‖w‖² (2k/d at random; 1 when x beyond the pairs is ignored)."""
    sq = np.asarray(w, dtype=np.float64) ** 2
    return sq[:, : 2 * k].sum(axis=1) / np.maximum(sq.sum(axis=1), 1e-30)


def support_share(v: np.ndarray) -> float:
    """Share of ‖V‖²_F on the out coordinates G₁ reads, {1, 2, 3, 4} (4/k at random)."""
    sq = np.asarray(v, dtype=np.float64) ** 2
    return float(sq[:, list(G_SUPPORT)].sum() / max(sq.sum(), 1e-30))


def star_cosines(w: np.ndarray, stars: np.ndarray) -> np.ndarray:
    """Per neuron the largest cosine with any pair star (the map's colour)."""
    w = np.asarray(w, dtype=np.float64)
    unit = w / np.maximum(np.linalg.norm(w, axis=1, keepdims=True), 1e-30)
    return (unit @ stars.T).max(axis=1)


def pair_counts(w: np.ndarray, stars: np.ndarray) -> np.ndarray:
    """Per pair r, the neurons within cos ALIGNED (0.9) of one of its four stars (pair_stars'
    rows 4r..4r+3); the stars are orthogonal or opposite, so a neuron counts at most once."""
    w = np.asarray(w, dtype=np.float64)
    unit = w / np.maximum(np.linalg.norm(w, axis=1, keepdims=True), 1e-30)
    near = (unit @ stars.T) > ALIGNED  # neurons × 4k
    return near.reshape(len(w), -1, 4).any(axis=2).sum(axis=0)


def weight_numbers(w: np.ndarray, v: np.ndarray | None, k: int) -> dict:
    """The first block's pair purity and relevant share (means over neurons), V's support."""
    return {"pair_purity": float(pair_purity(w, k).mean()),
            "relevant_share": float(relevant_share(w, k).mean()),
            "v_support": float("nan") if v is None else support_share(v)}
