"""Frames in words shared by the frame makers: a step told by its numbers only (a procedure
without a story of its own) and Algorithm 1's frame; the shi2022 procedure's stages are its
own (engine/procedures/shi2022/story.py, re-exported here)."""

from __future__ import annotations

from ..evaluate import ALIGNED
from ..procedures.shi2022.story import NO_TRUTH, narrate
from ..procedures.words import aligned as _aligned
from ..procedures.words import extra, score_text
from ..procedures.words import pct as _pct

__all__ = ["NO_TRUTH", "gfl_text", "narrate", "plain", "score_text"]


def plain(snap, truth: bool) -> str:
    """A procedure without its own story: the step, its stage and its numbers, nothing else."""
    where = f"; {_aligned(snap)}" if truth else ""
    return f"**Step {snap.step}** ({snap.stage}): {score_text(snap)}{where}."


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
