"""Table rows (summary key, title) the procedures' Compare tables and the CLI's table share."""

from __future__ import annotations

ACCURACY = (("train_acc", "Train %"), ("test_acc", "Test %"), ("cos", "Cos"))
# a regression world trained by the GFL procedure: MSE / Var(y) (lower is better), coverage as cos
MSE = (("train_mse_ratio", "Train MSE/Var"), ("test_mse_ratio", "Test MSE/Var"),
       ("cos", "Coverage"))
ERROR = (("test_err", "Test err"), ("c_F", "c_F"), ("c_G", "c_G"))  # AZL: E‖out − y‖², F, G


# glossary entries several procedures' views share (the Guide merges equal ones)
TEST_ACCURACY = ("test accuracy", "the share of test points the model classifies right")
MDS_MAP = ("MDS map", "classical MDS on the cosine distance of the neurons' first-layer weights "
                      "and the stars: points close together point the same way; each frame "
                      "is rotated onto the previous one so points do not jump")

# Algorithm 1's and the AZL probes' relevant share (not the paper's gradient split of that name)
WEIGHT_SHARE = ("relevant share", "median over neurons of ‖P_U w‖ / ‖w‖: the share of a "
                                  "neuron's weight in the span U of the feature directions "
                                  "(AZL: on the relevant bits)")


def regression(entries) -> bool:
    """True when the method summaries report a test MSE / Var(y) (a regression world)."""
    return any(e.get("test_mse_ratio") is not None for e in entries)


def accuracy_rows(entries) -> tuple[tuple[str, str], ...]:
    """Train %, test % and the cosine with the truth; MSE / Var(y) rows for regression data."""
    return MSE if regression(list(entries)) else ACCURACY
