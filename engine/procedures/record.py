"""What one training procedure is (ProcedureRecord, the entries of engine.procedures.RECORDS) and
the plain records it is made of: its source, its charts and its Compare table."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..method_table import Method
from ..spec import Spec


@dataclass(frozen=True)
class Source:
    """Whose procedure it is: the citation and its claim in one line (headers, exports, Compare)."""

    citation: str  # e.g. "Shi, Wei & Liang, ICLR 2022"
    claim: str  # one sentence, e.g. "A two-layer network learns features from structured inputs"
    short: str = ""  # a card-width name (the Guide's glossary column)

    def credit(self) -> str:
        """The claim with its citation: "A two-layer network learns … (Shi, Wei & Liang, …)"."""
        return f"{self.claim} ({self.citation})"


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


@dataclass(frozen=True)
class CompareTable:
    """Compare's table and its words: the rows per report (key, title), the title, the intro
    above the page, the source's claims as (label, method, baseline) differences, the method
    groups, and a footer line from the report's setting (e.g. the kα² line)."""

    title: str
    intro: str
    rows: Callable  # (method entries of a report) -> ((key, title), ...)
    headlines: tuple[tuple[str, str, str], ...] = ()
    groups: tuple[tuple[str, tuple[str, ...]], ...] = ()  # () = one group of every method
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
    neurons: Callable = lambda m: 2 * m  # hidden neurons of width setting m (the width label)
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
    charts: tuple[Chart, ...] = ()
    glossary: tuple[tuple[str, str], ...] = ()  # (term, meaning) for the Guide
    aliases: dict[str, str] = field(default_factory=dict)  # older names of its methods
    # worlds it also trains besides those whose record names it (a new procedure on an
    # existing world needs no edit of the world's file); never their default
    worlds: tuple[str, ...] = ()
    # the common training settings (groups network, steps, baselines) its runs read; None: every
    # one (shi2022). The others are hidden where it trains the run and refused where given.
    reads: tuple[str, ...] | None = None

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

