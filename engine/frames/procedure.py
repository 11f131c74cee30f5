"""What the frames read from a run's procedure (engine/procedures/<name>/, its registry record):
its frame maker's name (`frame`), its lead method, its neuron count, its own Explore run and its
credit line (`source`). The record is the only place these are chosen."""

from __future__ import annotations

from ..config import Config, ConfigError
from ..procedures import RECORDS, ProcedureRecord, procedure_of, source_of


def frame_name(cfg: Config) -> str:
    """The name of the frame maker that draws cfg's runs, the record's `frame` (ConfigError for
    a procedure the world does not run with)."""
    return procedure_of(cfg).frame


def record(cfg: Config) -> ProcedureRecord:
    """cfg's procedure record: what its views may say (loss, stages, step table, neurons)."""
    return procedure_of(cfg)


def lead(cfg: Config) -> str:
    """The method Explore plays and the guard sizes it by: the procedure's first default."""
    return procedure_of(cfg).lead


def neurons(cfg: Config) -> int:
    """Hidden neurons of cfg's width m, counted by the procedure (2m, 4m for gfl, m for resnet3)."""
    return procedure_of(cfg).neurons(cfg.m)


def own_explore_run(cfg: Config):
    """The procedure's own Explore run maker, (built world) → run, or None: Explore plays the
    run of its lead method."""
    return procedure_of(cfg).explore_run


def credit(cfg: Config) -> dict:
    """{"claim", "source"} of cfg's run (its world's and procedure's: source_of); the first
    registered procedure's for a setting it refuses (never shown: such a setting builds no
    stream)."""
    try:
        source = source_of(cfg)
    except ConfigError:
        source = next(iter(RECORDS.values())).source
    return {"claim": source.claim, "source": source.citation}
