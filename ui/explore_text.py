"""Words for the Explore page's header (the narration, what is measured and the credit line
come with the frame stream's meta() and frames(): engine/frames)."""

from __future__ import annotations

from engine.config import Config, summary_line
from engine.frames.base import regression, scores
from engine.procedures import procedure_of
from engine.scenarios import reads_common, world

__all__ = ["header", "regression", "scores"]  # Compare's charts (ui/figures.py) read the last two


def header(cfg: Config) -> str:
    """The setting in one line above the player (a world the resnet3 procedure trains, the AZL
    world: its own settings, no p_o and no paper schedule)."""
    if "resnet3" in world(cfg).procedures:
        return (f"**AZL world ({cfg.azl_variant}) · d={cfg.d} · k={cfg.k} outputs · "
                f"m={cfg.m}** · n={cfg.n:,} · T={cfg.T} SGD steps · batch={cfg.batch} · "
                f"seed={cfg.seed}")
    record = world(cfg)
    how = (f"schedule={cfg.schedule}" if reads_common(record, "schedule") else
           f"procedure={procedure_of(cfg).name}")
    return (f"**{summary_line(cfg)}** · n={cfg.n:,} · T={cfg.T} · batch={cfg.batch} · "
            f"{how} · seed={cfg.seed}")
