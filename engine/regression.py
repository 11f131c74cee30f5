"""The regression task (Dataset.task = "regression"): real targets y, n or n×k, the MSE loss and
the metric every method reports, test MSE / Var(y) (1 = no better than predicting the mean)."""

from __future__ import annotations

import torch


def as_matrix(y: torch.Tensor) -> torch.Tensor:
    """Targets or predictions as n×k (a 1-D y is one output)."""
    return y[:, None] if y.dim() == 1 else y


def mse(pred: torch.Tensor, y: torch.Tensor) -> float:
    """E_n ‖ŷ − y‖² (summed over the k outputs, averaged over samples)."""
    diff = as_matrix(pred) - as_matrix(y)
    return float((diff * diff).sum(dim=1).mean())


def total_variance(y: torch.Tensor) -> float:
    """E_n ‖y − ȳ‖²: the MSE of the best constant predictor."""
    y = as_matrix(y)
    centred = y - y.mean(dim=0, keepdim=True)
    return float((centred * centred).sum(dim=1).mean())


def mse_ratio(pred: torch.Tensor, y: torch.Tensor) -> float:
    """MSE / Var(y): 0 for a perfect fit, 1 for the mean (NaN for a constant y)."""
    var = total_variance(y)
    return mse(pred, y) / var if var > 0 else float("nan")
