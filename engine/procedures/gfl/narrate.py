"""Algorithm 1's frames in words: each step's probes (coverage, aligned share, relevant share)
and its scores (markdown with **bold**)."""

from __future__ import annotations

from ...frames.base import extra
from ...frames.narrate import score_text
from ...snapshot import ALIGNED


def _pct(x: float) -> str:
    return f"{100 * x:.0f} %"


def gfl_text(snap) -> str:
    """Algorithm 1's frame in words, quoting the snapshot's probes."""
    e = extra(snap)
    cover, aligned, share = e["coverage"], snap.frac_aligned, e["relevant_share"]
    probes = (f"coverage {cover:.2f} — every feature direction has a neuron within cos "
              f"{cover:.2f}; {_pct(aligned)} of the neurons within cos {ALIGNED:g} of a "
              f"direction; relevant share {share:.2f} (median share of a neuron's weight in "
              "the relevant subspace)")
    if snap.step == 0:
        head = "**Initialisation** (g⁽⁰⁾ ≡ 0: the twins cancel)"
    elif snap.step == 1 and snap.stage.startswith("step 1"):
        head = "**After step 1** (the reset: one gradient step from the symmetric start)"
    else:
        head = f"**Step {snap.step}** ({snap.stage})"
    return f"{head}: {probes}; {score_text(snap)}."
