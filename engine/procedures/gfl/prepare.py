"""The data as the GFL procedure sees it: inputs scaled to E‖x‖² = 1 (one rule for every world),
the target (centred for Algorithm 7), the feature directions, b̃ and the probe samples."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ...data import Dataset, Directions, feature_directions
from ...errors import ConfigError
from ...scenarios.gfl.options import SIGMA_W, GFLOptions

PROBE_SAMPLES = 1024  # per split, as the engine's Evaluator (engine/evaluate.py)


@dataclass
class Prepared:
    """Scaled tensors and everything the methods of one world share."""

    x_train: torch.Tensor
    fit_train: torch.Tensor  # the target the loss fits (y, or y − ρ − ⟨β, x⟩)
    y_train: torch.Tensor
    x_test: torch.Tensor
    y_test: torch.Tensor
    offset: tuple[float, torch.Tensor] | None  # (ρ, β) added back to g for predictions
    dirs: Directions
    directions: torch.Tensor  # K×r float32
    relevant: torch.Tensor  # r×s orthonormal basis of U, float32
    b_tilde: float
    regression: bool
    probe_train: torch.Tensor  # indices into the training set
    probe_test: torch.Tensor


def b_tilde_of(opts: GFLOptions, x: torch.Tensor) -> float:
    """b̃ = σ_w (spec §2.2); for linear data B.5.1's d^τ·max‖x‖·σ_w with τ = ½, the smallest τ
    for which |⟨w⁽⁰⁾, x⟩| ≤ ‖w⁽⁰⁾‖‖x‖ ≈ √d σ_w ‖x‖ keeps each neuron always on or always off;
    0 (Algorithm 7); or half a bit for ±1 inputs (B.493)."""
    if opts.bias == "zero":
        return 0.0
    if opts.bias == "bit":
        return SIGMA_W / (2.0 * x.shape[1] ** 0.5)
    if opts.bias == "large":
        return float(x.shape[1] ** 0.5 * x.norm(dim=1).max()) * SIGMA_W
    return SIGMA_W


def prepare(ds: Dataset, opts: GFLOptions, seed: int) -> Prepared:
    """Scale, centre and pick the probe samples of a dataset (float32, CPU)."""
    dirs = feature_directions(ds)
    if dirs is None:
        raise ConfigError("procedure", "gfl", "a procedure of a world with feature directions")
    f = lambda a: torch.as_tensor(np.asarray(a), dtype=torch.float32)  # noqa: E731
    x_tr, x_te = f(ds.z_train), f(ds.z_test)
    scale = float(x_tr.pow(2).sum(dim=1).mean().sqrt())
    x_tr, x_te = x_tr / scale, x_te / scale
    y_tr, y_te = f(ds.y_train), f(ds.y_test)
    fit, offset = y_tr, None
    if opts.centre_target:
        rho = float(y_tr.mean())
        beta = ((y_tr - rho)[:, None] * x_tr).mean(dim=0)
        fit, offset = y_tr - rho - x_tr @ beta, (rho, beta)
    rng = np.random.default_rng([seed, 0xB0B])
    pick = lambda n: torch.as_tensor(np.sort(rng.choice(n, min(n, PROBE_SAMPLES), False)))  # noqa: E731
    return Prepared(x_tr, fit, y_tr, x_te, y_te, offset, dirs, f(dirs.vectors), f(dirs.relevant),
                    b_tilde_of(opts, x_tr), ds.task == "regression", pick(len(y_tr)),
                    pick(len(y_te)))
