"""Every training procedure, one package each, and the registry of them (REGISTRY): the only list
of procedures. A world names the procedures it runs with (its record's `procedures`, the first is
its default); Config.procedure picks one ("auto" = the world's first).

A procedure is one package, engine/procedures/<name>/, whose __init__ ends with its record,
`RECORD = ProcedureRecord(...)`, and one line in REGISTRY below (docs/procedures.md is the recipe).
Its package imports no ui/ module and no Streamlit: the pages read the record, never its internals.
"""

from __future__ import annotations

from dataclasses import replace
from importlib import import_module
from typing import TYPE_CHECKING

from .. import scenarios
from ..errors import ConfigError
from ..spec import Spec
from .record import Chart, CompareTable, Line, ProcedureRecord, Source, missing
from .views import KINDS, bad_blocks

if TYPE_CHECKING:  # annotations only: the settings sit above the procedures
    from ..settings import Settings as Config  # the Protocol: engine/config.py sits above

# The registry: one line per procedure (its package's name here).
REGISTRY = (
    "shi2022",
    "fcb2022",
    "resnet3",
    "gfl",
)


def checked(record: ProcedureRecord) -> ProcedureRecord:
    """The record, or ValueError naming every required declaration it leaves out (a view never
    fills one with another procedure's words)."""
    gaps = missing(record)
    if gaps:
        raise ValueError(f"procedure {record.name}'s record must declare "
                         + "; ".join(gaps))
    bad = bad_blocks(record)
    if bad:
        raise ValueError(f"procedure {record.name}'s {bad[0]} is no block kind: one of "
                         + ", ".join(KINDS))
    return record


RECORDS: dict[str, ProcedureRecord] = {
    record.name: checked(record)
    for record in (import_module(f"{__name__}.{m}").RECORD for m in REGISTRY)}
PROCEDURES = ("auto", *RECORDS)  # the procedure setting's choices; auto = the world's first

__all__ = ["REGISTRY", "RECORDS", "PROCEDURES", "PROCEDURE_SETTINGS", "Chart",
           "CompareTable", "Line", "ProcedureRecord", "Source", "procedure_of", "offered",
           "check_methods", "owner_of", "glossary", "runs_with", "shown_terms", "checked",
           "source_of"]


def _settings() -> dict[str, Spec]:
    """Every procedure's own settings in the registry's order; a name is declared once."""
    out: dict[str, Spec] = {}
    for record in RECORDS.values():
        for name, spec in record.settings.items():
            if name in out:
                raise ValueError(f"procedure {record.name} declares {name!r} a second time")
            out[name] = spec
    return out


PROCEDURE_SETTINGS: dict[str, Spec] = _settings()


def owner_of(setting: str) -> str | None:
    """The procedure that declares a setting, or None (a common or a world's setting)."""
    return next((r.name for r in RECORDS.values() if setting in r.settings), None)


def procedure_of(cfg: Config) -> ProcedureRecord:
    """cfg's procedure: the setting, or the world's default for "auto" (ConfigError when the
    world does not run with it)."""
    from_world = runs_with(cfg)
    name = from_world[0] if cfg.procedure == "auto" else cfg.procedure
    if name not in from_world:
        raise ConfigError("procedure", cfg.procedure,
                          f"auto or one of {', '.join(from_world)} for the {cfg.scenario} world")
    return RECORDS[name]


def offered(cfg: Config) -> ProcedureRecord:
    """cfg's procedure with only the methods cfg's world gives a meaning: the w/o-structure twins
    only where the world reads the `structure` setting (its record's `common`); its Compare
    groups and headlines narrowed to them (one group left: no legend groups)."""
    proc = procedure_of(cfg)
    if scenarios.reads_common(scenarios.world(cfg), "structure"):
        return proc
    keep = tuple(m for m in proc.methods if m.structure)
    names = {m.name for m in keep}
    groups = [(title, tuple(n for n in ms if n in names)) for title, ms in proc.table.groups]
    groups = [g for g in groups if g[1]]
    table = replace(proc.table, groups=tuple(groups) if len(groups) > 1 else (),
                    headlines=tuple(h for h in proc.table.headlines if {h[1], h[2]} <= names))
    return replace(proc, methods=keep, defaults=tuple(m for m in proc.defaults if m in names),
                   table=table)


def source_of(cfg: Config) -> Source:
    """Whose run it is: the procedure's source, or, for a world with a source of its own
    (WorldRecord.source: dm_parity is Daniely & Malach's), the world's claim credited to the
    world's citation and the procedure's."""
    proc = procedure_of(cfg).source
    own = scenarios.world(cfg).source
    if own is None or own.citation == proc.citation:
        return proc
    return Source(f"{own.citation}; trained as in {proc.short or proc.citation}", own.claim,
                  own.short or own.citation)


def runs_with(cfg: Config) -> tuple[str, ...]:
    """The procedures cfg's world trains with: those its record names (its default first), then
    those whose record names the world (ConfigError for an unknown world)."""
    named = scenarios.world(cfg).procedures
    return (*named, *(r.name for r in RECORDS.values()
                      if cfg.scenario in r.worlds and r.name not in named))


def check_methods(cfg: Config, methods, legacy: bool = False) -> None:
    """ConfigError naming --methods when cfg's procedure does not train one of them (legacy:
    also the names a stored sweep may still use, the record's aliases)."""
    proc = procedure_of(cfg)
    known = set(proc.names) | (set(proc.aliases) if legacy else set())
    bad = [m for m in methods if m not in known]
    if bad:
        raise ConfigError("--methods", ",".join(methods),
                          f"a subset of {', '.join(proc.names)} for the {proc.name} procedure")


def glossary() -> list[tuple[str, str, str]]:
    """(term, meaning, procedures) of every procedure's glossary: a term with one meaning once,
    naming every procedure that shows it; a term two procedures mean differently, once each."""
    rows: dict[tuple[str, str], list[str]] = {}
    for record in RECORDS.values():
        for term, meaning in record.glossary:
            rows.setdefault((term, meaning), []).append(record.source.short)
    return [(term, meaning, ", ".join(who)) for (term, meaning), who in rows.items()]


def shown_terms(record: ProcedureRecord, maker_terms=()) -> tuple[str, ...]:
    """The probe names a procedure's views show: its charts' terms and its frame maker's
    (engine.frames MAKERS[record.frame].TERMS), each once."""
    terms = [t for chart in record.charts for t in chart.terms]
    return tuple(dict.fromkeys([*terms, *maker_terms]))
