"""What a limit solves: a fixed-feature method's objective and its train/test features."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import torch

LOSSES = ("hinge", "squared", "logistic")
TOL = 1e-4  # the certificate every limit must reach (relative duality gap or gradient norm)
# set at interpreter exit by a host that solves in a background thread (ui/limits_view.py): the
# solvers' loops stop, since a thread still inside torch at shutdown aborts the process
CANCEL = threading.Event()


class Cancelled(RuntimeError):
    """The solve was stopped by CANCEL."""


def check_cancel() -> None:
    """Raise Cancelled once CANCEL is set."""
    if CANCEL.is_set():
        raise Cancelled("the converged limit was cancelled (the process is exiting)")


@dataclass(frozen=True)
class Objective:
    """min_w,c  mean_i s_i ℓ(y_i, ⟨w, x_i⟩ + c) + lam‖w‖² (c only when intercept; never decayed).

    squared: ℓ = scale·‖out − y‖² summed over outputs (scale ½ for AZL's ½‖out − y‖², 1 for GFL's
    mean squared error); hinge: max(0, 1 − y f); logistic: log(1 + e^{−y f})."""

    loss: str
    lam: float
    intercept: bool = False
    class_weights: tuple[float, float] | None = None  # (α_+, α_−) per-sample weights
    scale: float = 1.0
    tie_break: bool = False  # the method trains without decay: lam 0 = λ → 0, else a chosen ridge

    def weights(self, y: torch.Tensor) -> torch.Tensor | None:
        """Per-sample loss weights s_i (None: all 1)."""
        if self.class_weights is None:
            return None
        pos, neg = self.class_weights
        return torch.where(y > 0, pos, neg).to(torch.float64)

    def text(self) -> str:
        """The objective in one line, for the report and the docs."""
        loss = {"hinge": "mean hinge max(0, 1 − y f)",
                "logistic": "mean logistic log(1 + e^(−y f))",
                "squared": f"{self.scale:g} · mean ‖f − y‖²"}[self.loss]
        if self.class_weights is not None:
            loss += " weighted α_v = " + ", ".join(f"{a:.3g}" for a in self.class_weights)
        if self.tie_break and self.lam == 0.0:
            reg = " + λ‖w‖², λ → 0 (the method has no decay)"
        else:
            reg = f" + {self.lam:g}‖w‖²" + (" (a chosen ridge: the method has no decay)"
                                             if self.tie_break else "")
        return loss + reg + (" + unregularised intercept" if self.intercept else "")


@dataclass
class Problem:
    """One method's readout problem: operators on train and test rows, targets, objective, and how
    its predictions are scored ('acc', 'err' = AZL's test error, 'mse_ratio' = MSE / Var(y))."""

    train: object  # a linear operator (engine.limits.ops): mv, rmv, p
    test: object
    y_train: torch.Tensor  # the fit target, float64, n or n×k (minus a fixed offset)
    y_test: torch.Tensor
    objective: Objective
    metric: str = "acc"
    offset: tuple | None = None  # (train, test) additive offsets of predictions (GFL's ρ + ⟨β, x⟩)
    score: object = None  # score(pred, split) for metric 'err' (AZL's fit_numbers)
    notes: dict = field(default_factory=dict)  # sizes and the form solved, for the report
    start: object = None  # the run's own readout (w, [c]) flat: where its decay is the problem


@dataclass
class Refusal:
    """No solve fits the guard: the reason with its size."""

    reason: str
