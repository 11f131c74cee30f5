"""Words for the Explore page's header (the narration, what is measured and the credit line
come with the frame stream's meta() and frames(): engine/frames)."""

from __future__ import annotations

from engine.config import Config, summary_line
from engine.procedures import procedure_of
from engine.scenarios import reads_common, world


def header(cfg: Config) -> str:
    """The setting in one line above the player: the procedure's own line where its record has
    one (resnet3), else the common settings the world reads and how it trains."""
    proc = procedure_of(cfg)
    if proc.header is not None:
        return proc.header(cfg)
    record = world(cfg)
    how = (f"schedule={cfg.schedule}" if reads_common(record, "schedule") else
           f"procedure={proc.name}")
    return (f"**{summary_line(cfg)}** · n={cfg.n:,} · T={cfg.T} · batch={cfg.batch} · "
            f"{how} · seed={cfg.seed}")
