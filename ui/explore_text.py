"""Words for the Explore page's header (the narration, what is measured and the credit line
come with the frame stream's meta() and frames(): engine/frames)."""

from __future__ import annotations

from engine.config import Config, summary_line
from engine.procedures import procedure_of
from engine.scenarios import reads_common, world


def header(cfg: Config) -> str:
    """The setting in one line above the player: the procedure's own line where its record has
    one (resnet3), else the common settings the world reads and the procedure's step rule."""
    proc = procedure_of(cfg)
    if proc.header is not None:
        return proc.header(cfg)
    # the batch only where the procedure reads it (full-batch methods have none)
    batch = (f"batch={cfg.batch} · " if reads_common(world(cfg), "batch")
             and (proc.reads is None or "batch" in proc.reads) else "")
    return (f"**{summary_line(cfg)}** · n={cfg.n:,} · T={cfg.T} · {batch}"
            f"{proc.step_rule(cfg)} · seed={cfg.seed}")
