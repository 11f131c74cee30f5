"""Frames in words shared by the frame makers: a step told by its numbers only (a procedure
without a story of its own). The shi2022 procedure's stages are its own
(engine/procedures/shi2022/story.py, re-exported here); Algorithm 1's are its package's
(engine/procedures/gfl/narrate.py)."""

from __future__ import annotations

from ..procedures.shi2022.story import narrate
from ..procedures.words import aligned as _aligned
from ..procedures.words import score_text

__all__ = ["narrate", "plain", "score_text"]


def plain(snap, truth: bool) -> str:
    """A procedure without its own story: the step, its stage and its numbers, nothing else."""
    where = f"; {_aligned(snap)}" if truth else ""
    return f"**Step {snap.step}** ({snap.stage}): {score_text(snap)}{where}."
