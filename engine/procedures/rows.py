"""Table rows (summary key, title) the procedures' Compare tables and the CLI's table share."""

from __future__ import annotations

ACCURACY = (("train_acc", "Train %"), ("test_acc", "Test %"), ("cos", "Cos"))
# a regression world trained by the GFL procedure: MSE / Var(y) (lower is better), coverage as cos
MSE = (("train_mse_ratio", "Train MSE/Var"), ("test_mse_ratio", "Test MSE/Var"),
       ("cos", "Coverage"))
ERROR = (("test_err", "Test err"), ("c_F", "c_F"), ("c_G", "c_G"))  # AZL: E‖out − y‖², F, G


def regression(entries) -> bool:
    """True when the method summaries report a test MSE / Var(y) (a regression world)."""
    return any(e.get("test_mse_ratio") is not None for e in entries)


def accuracy_rows(entries) -> tuple[tuple[str, str], ...]:
    """Train %, test % and the cosine with the truth; MSE / Var(y) rows for regression data."""
    return MSE if regression(list(entries)) else ACCURACY
