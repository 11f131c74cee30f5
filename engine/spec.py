"""Declarations: how one setting is typed, bounded and explained (Spec, the rows of
engine.config.SPECS), and what one data world is (WorldRecord, the entries of
engine.scenarios.WORLDS)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Spec:
    """How one setting is typed, bounded, explained, defaulted and when the sidebar shows it."""

    kind: type
    lo: float | None = None
    hi: float | None = None
    choices: tuple = ()
    group: str = "data"
    label: str = ""
    help: str = ""
    open_lo: bool = False  # lo itself excluded
    open_hi: bool = False
    optional: bool = False  # None means "derived from the schedule"
    text: str = ""  # the allowed values of a free-text setting; or a note on a numeric range
    default: Any = None
    # cfg -> whether the sidebar shows the setting (None: always; a world's own settings are
    # shown only in the worlds that use them, engine.scenarios.shows)
    shown: Callable[[Any], bool] | None = None

    def allowed(self) -> str:
        """Human-readable allowed range."""
        if self.kind is str and not self.choices:
            return self.text
        if self.choices:
            return "one of " + ", ".join(str(c) for c in self.choices)
        if self.kind is bool:
            return "true or false" + (" (or 'auto')" if self.optional else "")
        lo = "(" if self.open_lo else "["
        hi = ")" if self.open_hi else "]"
        lo_v = "-inf" if self.lo is None else _fmt(self.lo)
        hi_v = "inf" if self.hi is None else _fmt(self.hi)
        word = "an integer" if self.kind is int else "a number"
        tail = " (or 'auto')" if self.optional else ""
        tail += f" ({self.text})" if self.text else ""
        return f"{word} in {lo}{lo_v}, {hi_v}{hi}{tail}"


@dataclass(frozen=True)
class Source:
    """Whose procedure or world it is: the citation and its claim in one line (headers,
    exports, Compare); a world's own source is credited beside its procedure's
    (engine.procedures.source_of)."""

    citation: str  # e.g. "Shi, Wei & Liang, ICLR 2022"
    claim: str  # one sentence, e.g. "A two-layer network learns features from structured inputs"
    short: str = ""  # a card-width name (the Guide's glossary column)

    def credit(self) -> str:
        """The claim with its citation: "A two-layer network learns … (Shi, Wei & Liang, …)"."""
        return f"{self.claim} ({self.citation})"


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() and abs(v) < 1e12 else f"{v:g}"


@dataclass(frozen=True, eq=False)
class WorldRecord:
    """One data world: name, settings, rules, presets, procedures, data and hooks (the contract,
    explained in engine/scenarios/__init__.py)."""

    name: str  # its value of Config.scenario
    label: str  # one line for people (the scenario setting's help: CLI `settings`, sidebar)
    make_dataset: Callable  # (cfg, space) -> engine.data.Dataset
    settings: dict[str, Spec] = field(default_factory=dict)  # settings this world declares
    shared: tuple[str, ...] = ()  # settings declared elsewhere (another world, or common ones
    # whose own `shown` rule would hide them here) that this one reads too
    check: Callable | None = None  # (cfg) -> None or ConfigError: its rules between settings
    presets: tuple = ()  # engine.preset.Preset records (plain data)
    procedures: tuple[str, ...] = ("shi2022",)  # the training procedures it runs with
    # per procedure, the options this world gives it (gfl: a scenarios.gfl.options.GFLOptions)
    procedure_options: dict = field(default_factory=dict)
    pattern_space: bool = False  # noise-free data may be stored in pattern coordinates (D wide)
    dictionary: bool = True  # the data is drawn through a d×D dictionary M (the guard counts it)
    batched_sweeps: bool = False  # engine.sweep.batched reproduces its runs (tested)
    input_dim: Callable | None = None  # (cfg) -> width of x when it is not cfg.d
    download_setting: Callable | None = None  # (cfg) -> the setting that downloads data, or None
    # (method, world, embed, freeze_after) -> its own run under the shi2022 procedure (its own
    # probes: teacher_student); a procedure's own runs are its record's (engine/procedures)
    make_run: Callable | None = None
    # the common settings it reads (None: every one): the others are hidden in the sidebar and
    # refused where a user gives them (azl_hier reads no labeling, p_o, schedule, ...)
    common: tuple[str, ...] | None = None
    # (cfg) -> {setting: (value, why)}: settings its rules fix to one value (azl_hier: d = 30,
    # k = the variant's outputs); validate refuses another value, the sidebar shows them as text
    pins: Callable | None = None
    # {common setting: (cfg) -> bool, why}: read only where the rule holds (real data: k only
    # by the paper's and the theory's step-1 formulas, not by the standard schedule)
    reads_if: dict = field(default_factory=dict)
    # whose world it is, when not its procedure's source (dm_parity: Daniely & Malach, trained
    # by the shi2022 procedure): the credit names both (engine.procedures.source_of)
    source: Source | None = None
    glossary: tuple[tuple[str, str], ...] = ()  # (symbol, meaning) of its data, for the Guide

    @property
    def uses(self) -> tuple[str, ...]:
        """Every world-owned setting this world reads: its own and the shared ones."""
        return (*self.settings, *self.shared)
