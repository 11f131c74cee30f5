"""Finiteness checks of a training step: which number turned NaN or infinite, and at which step."""

from __future__ import annotations

import math

import torch

from .network import Grads, Params


class DivergenceError(RuntimeError):
    """Loss, weights or gradients became NaN or infinite."""

    def __init__(self, step: int, what: str, eta: float | None = None,
                 eta_w: float | None = None):
        self.step, self.what, self.eta, self.eta_w = step, what, eta, eta_w
        now = f" (now {eta:.3g}; try {eta / 10:.3g})" if eta else ""
        # the first layer's own step (optimizer_w) can diverge as well
        own = f" or η_w (now {eta_w:.3g}; try {eta_w / 10:.3g})" if eta_w else ""
        super().__init__(f"training diverged at step {step}: {what} became NaN or infinite; "
                         f"lower the step size η{now}{own} or raise λ, then reset")


def check_finite(step: int, loss: float, p: Params, g: Grads, eta: float | None = None,
                 eta_w: float | None = None) -> None:
    """Raise DivergenceError when anything is NaN or infinite."""
    if not math.isfinite(loss):
        raise DivergenceError(step, "the loss", eta, eta_w)
    named = (("the gradient", g.q), ("the gradient of a", g.a), ("the weights", p.q),
             ("the output weights a", p.a), ("the biases b", p.b))
    # one reduction and one sync; a NaN/Inf anywhere makes its sum non-finite
    if bool(torch.isfinite(torch.stack([t.sum() for _, t in named])).all()):
        return
    for name, tensor in named:
        if not bool(torch.isfinite(tensor).all()):
            raise DivergenceError(step, name, eta, eta_w)


# snapshot numbers that are finite for every healthy network (gradient ratios may be inf by design)
FINITE_FIELDS = {"train_loss": "the training loss", "test_loss": "the test loss",
                 "train_acc": "the training accuracy", "test_acc": "the test accuracy",
                 "cos_max": "the cosine to the ground truth", "cos_min":
                 "the cosine to the ground truth", "cos_mean": "the cosine to the ground truth",
                 "weight_ratio": "the weight norms", "off_span": "the weight norms"}
FINITE_GRAD = {"grad_rel": "the gradient norms", "grad_bg": "the gradient norms",
               "grad_offdict": "the gradient norms"}


def nonfinite_scalar(snap) -> str | None:
    """What a snapshot reports as NaN or infinite (None when every checked number is finite)."""
    for name, what in FINITE_FIELDS.items():
        if not math.isfinite(getattr(snap, name)):
            return f"{what} ({name})"
    for name, what in FINITE_GRAD.items():
        if name in snap.grad and not math.isfinite(snap.grad[name]):
            return f"{what} ({name})"
    return None
