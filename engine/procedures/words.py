"""Words and numbers every procedure's narration shares (a snapshot's score, its stars), in a
low module: a procedure's package tells its own story with them without importing the frames."""

from __future__ import annotations

import math

from ..snapshot import ALIGNED, star_counts

MSE_KEY = "test_mse_ratio"  # a regression world's test number (engine/gfl), in Snapshot.extra


def extra(snap) -> dict:
    """The snapshot's procedure numbers (the engine's own Snapshot has none)."""
    return getattr(snap, "extra", None) or {}


def regression(snap) -> bool:
    """Whether the run reports test MSE / Var(y) instead of an accuracy."""
    return MSE_KEY in extra(snap)


def scores(snap) -> tuple[float, float]:
    """(train, test) of the chart: accuracy, or MSE / Var(y) for a regression world."""
    if regression(snap):
        e = extra(snap)
        return float(e.get("train_mse_ratio", math.nan)), float(e[MSE_KEY])
    return float(snap.train_acc), float(snap.test_acc)


def zero_gradient(snap) -> bool:
    """Whether the step's hinge gradient on w was exactly zero (measured by the engine's Run
    only: the GFL procedure's and the AZL world's snapshots carry their own probes instead)."""
    # a procedure's own snapshot (a ScenarioSnapshot, with `extra`): an empty gradient there
    # means "not measured", never "zero"
    own = hasattr(snap, "extra")
    return bool(snap.step > 0 and not snap.grad and not own)


def pct(x: float) -> str:
    return f"{100 * x:.0f} %"


def score_text(snap) -> str:
    """'test accuracy 97 %, train 99 %' or 'test MSE / Var(y) 0.28 (lower is better), …'."""
    if regression(snap):
        train, test = scores(snap)
        return (f"test MSE / Var(y) {test:.3f} (lower is better; 1 = predicting the mean), "
                f"train {train:.3f}")
    return f"test accuracy {pct(snap.test_acc)}, train {pct(snap.train_acc)}"


def aligned(snap) -> str:
    """'37 % of the 600 neurons within cos 0.9 of a star (120 on +Σ_A M, 102 on −Σ_A M)'."""
    plus, minus = star_counts(snap.cos)
    return (f"{pct(snap.frac_aligned)} of the {len(snap.cos)} neurons within cos {ALIGNED:g} of a "
            f"star ({plus} on +Σ_A M, {minus} on −Σ_A M); max cos {snap.cos_max:.2f}")
