"""What one training procedure is (ProcedureRecord, the entries of engine.procedures.RECORDS) and
the plain records it is made of: its source, its charts and its Compare table."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields

from ..method_table import Method
from ..spec import Source, Spec
from .views import CardGroup, Figure, GuideSection, TableGroup

__all__ = ["UNSET", "Chart", "CompareTable", "Line", "ProcedureRecord", "Source", "missing"]


class _Unset:
    """A declaration a record must make: no view may fall back to another procedure's words."""

    def __repr__(self) -> str:
        return "UNSET"


UNSET = _Unset()


@dataclass(frozen=True)
class Line:
    """A horizontal reference line of a chart: its height from the setting, and what it means."""

    value: Callable  # (cfg) -> float
    label: str  # e.g. "kα²: above this line G is not learned at all"


@dataclass(frozen=True)
class Chart:
    """One chart the procedure's views draw: which per-step numbers, on which axis."""

    name: str
    title: str
    curves: tuple[str, ...]  # Snapshot.scalars() keys
    axis: str  # the y axis title
    log: bool = False
    lines: tuple[Line, ...] = ()
    terms: tuple[str, ...] = ()  # the glossary terms its curves and lines show (the Guide's)
    # where it is drawn: Explore's player (its frame maker's spec of this name) and Compare's
    # charts of every method (its curves from the report's history)
    views: tuple[str, ...] = ("explore", "compare")


@dataclass(frozen=True)
class CompareTable:
    """Compare's table and its words: the rows per report (key, title), the title, the intro
    above the page, the source's claims as (label, method, baseline) differences, the method
    groups, and a footer line from the report's setting (e.g. the kα² line)."""

    # each a string, or (cfg, truth) -> the words for this setting (truth: whether the world
    # plants Σ_A M, None before a run): engine.procedures.told.said
    title: str | Callable
    intro: str | Callable
    rows: Callable  # (method entries of a report) -> ((key, title), ...)
    headlines: tuple[tuple[str, str, str], ...] = ()
    # REQUIRED: (title, methods) legend groups of the chart and table; () = one group of all
    groups: tuple[tuple[str, tuple[str, ...]], ...] = UNSET  # type: ignore[assignment]
    # REQUIRED: (first step, last step, label) shaded bands of the chart; () = none
    bands: tuple[tuple[float, float, str], ...] = UNSET  # type: ignore[assignment]
    footer: Callable | None = None  # (report config dict) -> one line, or ""
    claims_note: str = ""  # where the source's numbers beside ours come from, when it has some


@dataclass(frozen=True, eq=False)
class ProcedureRecord:
    """One training procedure (explained in engine/procedures/__init__.py and docs/procedures.md).

    make_run(method, world, embed, freeze_after) -> its run of a method on a built engine world,
    or None for the engine's Run / NTKRun (the paper's procedure)."""

    name: str  # its value of Config.procedure
    label: str  # one line for people
    tasks: tuple[str, ...]  # "binary", "regression"
    methods: tuple[Method, ...]  # every method it trains, in its table's order
    defaults: tuple[str, ...]  # the methods a run trains when none are named
    make_run: Callable
    source: Source
    table: CompareTable
    # REQUIRED declarations (UNSET until given; engine.procedures refuses a record without one,
    # so no view falls back to the paper's words): the loss its runs minimise, in words
    loss: str = UNSET  # type: ignore[assignment]
    # (cfg) -> its step rule in one line, e.g. "full-batch gradient descent, α = 0.05"
    step_rule: Callable = UNSET  # type: ignore[assignment]
    # (run, world) -> Explore's step-size table {"note", "rows"}, or None: it shows none
    step_table: Callable | None = UNSET  # type: ignore[assignment]
    # (name, steps) of its stages as its runs name them in Snapshot.stage; () = no stages
    stages: tuple[tuple[str, str], ...] = UNSET  # type: ignore[assignment]
    schedule: bool = UNSET  # type: ignore[assignment]  # trains by engine.schedule (reports it)
    neurons: Callable = UNSET  # type: ignore[assignment]  # (m) -> hidden neurons of width m
    settings: dict[str, Spec] = field(default_factory=dict)  # its own, shown only where it runs
    run_bytes: Callable | None = None  # (cfg, r, params) -> (kept, peak) bytes (engine.guard)
    # (cfg, methods, embed) -> GFLOP-equivalents of its runs, for the guard's time estimate,
    # when the engine's count does not fit them
    run_gflop: Callable | None = None
    # (extra, step, cfg, label) -> one sentence on a finished or live step of its lead method,
    # for a view that shows its runs without frames (Compare's narration)
    narrate: Callable | None = None
    # (cfg) -> the one-line setting above Explore's player when the common line does not fit
    # (resnet3: its variant, k outputs, SGD steps; no p_o, no paper schedule)
    header: Callable | None = None
    explore_run: Callable | None = None  # (built world) -> Explore's run, if not its lead's
    # the frame maker that draws its runs and narrates each step (engine/frames MAKERS: "engine",
    # "gfl", "azl"): its map, stars, counts, curves and words
    frame: str = "engine"
    charts: tuple[Chart, ...] = UNSET  # type: ignore[assignment]  # REQUIRED; () = none
    # (history, i, source, truth) -> the "engine" frame maker's words on step index i (markdown);
    # None: a plain line of the step's numbers
    story: Callable | None = None
    glossary: tuple[tuple[str, str], ...] = ()  # (term, meaning) for the Guide
    aliases: dict[str, str] = field(default_factory=dict)  # older names of its methods
    # worlds it also trains besides those whose record names it (a new procedure on an
    # existing world needs no edit of the world's file); never their default
    worlds: tuple[str, ...] = ()
    # the common training settings (groups network, steps, baselines) its runs read; None: every
    # one (shi2022). The others are hidden where it trains the run and refused where given.
    reads: tuple[str, ...] | None = None
    # what its pages tell beside its runs (engine/procedures/views.py; ui/telling.py draws them):
    # its Guide sections, the figures of its source on Reproduce, and its group of Reproduce
    # cards (None: its presets are cards among "More presets")
    guide: tuple[GuideSection, ...] = ()
    figures: tuple[Figure, ...] = ()
    cards: CardGroup | None = None
    tables: TableGroup | None = None  # the header over the presets with its table numbers

    def stage_names(self) -> tuple[str, ...]:
        """The names of its declared stages."""
        return tuple(name for name, _ in self.stages)

    @property
    def names(self) -> tuple[str, ...]:
        """Its method names, in its table's order."""
        return tuple(m.name for m in self.methods)

    @property
    def lead(self) -> str:
        """The method Explore plays and the guard sizes it by: its first default."""
        return self.defaults[0]

    def method(self, name: str) -> Method:
        """The record of one of its methods (an alias resolved); KeyError for another name."""
        name = self.aliases.get(name, name)
        for info in self.methods:
            if info.name == name:
                return info
        raise KeyError(f"the {self.name} procedure trains {', '.join(self.names)}, not {name!r}")

    def labels(self) -> dict[str, str]:
        """method → its label (aliases included, under their own method's label)."""
        out = {m.name: m.label for m in self.methods}
        return {**{a: out[b] for a, b in self.aliases.items()}, **out}

    def width_text(self, m: int) -> str:
        """The width control's label: "m — 600 neurons"."""
        return f"m — {self.neurons(m):,} neurons"



# what each required declaration is, for the refusal's message
REQUIRED = {"loss": "the loss its runs minimise, in words",
            "step_rule": "(cfg) -> its step rule in one line",
            "step_table": "(run, world) -> its step-size table, or None for none",
            "stages": "its (name, steps) stages, or () for none",
            "schedule": "whether it trains by engine.schedule",
            "neurons": "(m) -> its hidden neurons at width m",
            "charts": "the charts its views draw, or ()",
            "table.groups": "Compare's legend groups, or () for one group",
            "table.bands": "Compare's shaded step bands, or () for none"}


def missing(record: ProcedureRecord) -> list[str]:
    """The required declarations a record leaves out, as "field (what it is)"."""
    out = [f.name for f in fields(record) if getattr(record, f.name) is UNSET]
    out += [f"table.{f.name}" for f in fields(record.table)
            if getattr(record.table, f.name) is UNSET]
    return [f"{name} ({REQUIRED.get(name, 'required')})" for name in out]
