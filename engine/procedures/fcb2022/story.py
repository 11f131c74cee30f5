"""Frei, Chatterji & Bartlett's run in words: the one-step jump of the neurons' correlation with
their own cluster mean, quoted from the snapshots (FCBRun's corr_own), and the test accuracy
against the label noise."""

from __future__ import annotations


def _pct(x: float) -> str:
    return f"{100 * x:.0f} %"


def _corr(snap) -> float | None:
    """The mean |⟨w_j/‖w_j‖, µ⟩| of a neuron with the mean its output sign favours."""
    value = (getattr(snap, "extra", None) or {}).get("corr_own")
    return None if value is None else float(value)


def _scores(snap) -> str:
    """'test accuracy 84 % (clean labels 99 %), train 86 %'."""
    clean = (getattr(snap, "extra", None) or {}).get("clean_test_acc")
    tail = f" (clean labels {_pct(clean)})" if clean is not None else ""
    return f"test accuracy {_pct(snap.test_acc)}{tail}, train {_pct(snap.train_acc)}"


def narrate(history: list, i: int, source: str = "", truth: bool = False) -> str:
    """The step at history index i in words, with the correlation jump of step 1 (the story
    signature: whose theory and whether there is a Σ_A M do not change its words)."""
    snap, first = history[i], history[0]
    c0, now = _corr(first), _corr(snap)
    if now is None:
        return f"**Step {snap.step}** ({snap.stage}): {_scores(snap)}."
    if snap.step == 0:
        return (f"**Initialisation.** The neurons point in random directions: their mean "
                f"correlation with their own cluster mean is {now:.2f}; {_scores(snap)}. "
                "Press **Step** (→) for the first full-batch gradient step.")
    if snap.step == 1:
        return (f"**After step 1** (one full-batch gradient step on the logistic loss): the "
                f"mean correlation of a neuron with its own cluster mean jumped from {c0:.2f} "
                f"to {now:.2f} (×{now / max(c0, 1e-12):.1f}) in this one step: the features "
                f"that correlate with ±µ₁, ±µ₂ are amplified. {_scores(snap)}.")
    c1 = _corr(history[1]) if len(history) > 1 else None
    jump = f" (step 0: {c0:.2f}, step 1: {c1:.2f})" if c1 is not None else ""
    return (f"**Step {snap.step}** (gradient descent): mean correlation with the own cluster "
            f"mean {now:.2f}{jump}; {_scores(snap)}: the flipped labels bound the test "
            "accuracy, the clean labels show what the network learned.")
