"""Run settings: one spec table (every setting declared once: the common ones here, a world's
own in its record) from which the frozen Config dataclass, validation, CLI, URL and UI derive."""

from __future__ import annotations

import dataclasses
import difflib
import math
from typing import Any

from .errors import ConfigError
from .free_text import check_free_text
from .population import label_set
from .procedures import PROCEDURE_SETTINGS, PROCEDURES, owner_of, procedure_of
from .relations import check_relations
from .scenarios import WORLDS, pinned, reads_common, with_pins
from .spec import Spec

LABELINGS = ("parity", "interval", "threshold", "custom")
SCHEDULES = ("paper", "theory", "standard")
THEORY_VARIANTS = ("lemma23", "thm26")
CLASSIFIERS = ("schedule", "logreg")
OPTIMIZERS = ("auto", "adam", "sgd")
LAYER_OPTIMIZERS = ("auto", "sgd", "adam", "same")
DECAYS = ("auto", "constant", "cosine")
BALANCES = ("steps12", "all", "off")

# The settings every world shares, declared once. Names follow the paper's symbols.
COMMON: dict[str, Spec] = {
    # the worlds are the registry's (engine/scenarios/__init__.py); its first is the default
    "scenario": Spec(str, choices=tuple(WORLDS), label="scenario", default=next(iter(WORLDS)),
                     help="data world: " + "; ".join(f"{r.name}: {r.label}"
                                                    for r in WORLDS.values())),
    "labeling": Spec(str, choices=LABELINGS, label="labeling",
                     help="parity: D_mix of App. E.1.1; interval: count in [t1, t2]; "
                          "threshold: count > k/2; custom: count in P", default="parity"),
    "d": Spec(int, 2, 5000, label="d", help="input dimension", default=500),
    "D": Spec(int, 1, 5000, label="D", help="number of dictionary patterns (D ≤ d)", default=100),
    "k": Spec(int, 1, 500, label="k", help="number of class-relevant patterns (k ≤ D)",
              text="k ≤ D; odd for the parity labeling", default=5),
    "p_o": Spec(float, 0, 1, open_lo=True, open_hi=True, label="p_o",
                text="at most 2/3 for the parity labeling",
                help="background pattern probability", default=0.5),
    "p_a": Spec(float, 0, 1, open_lo=True, open_hi=True, label="p_A",
                help="relevant-pattern probability (interval/threshold/custom labelings)",
                default=2 / 3, shown=lambda c: c.labeling != "parity"),
    "t1": Spec(int, 0, 500, label="t1", help="interval labeling: lower count", default=20,
               shown=lambda c: c.labeling == "interval"),
    "t2": Spec(int, 0, 500, label="t2", help="interval labeling: upper count", default=30,
               shown=lambda c: c.labeling == "interval"),
    "P": Spec(str, label="P", help="custom labeling: comma-separated counts labelled +1",
              text="comma-separated integers in [1, k], not all of 0..k, e.g. '1,3,5'",
              default='', shown=lambda c: c.labeling == "custom"),
    "structure": Spec(bool, label="input structure",
                      help="off = (A1'): all patterns uniform, same labeling rule", default=True),
    "neg_ratio": Spec(float, 0, 1, open_lo=True, open_hi=True, optional=True,
                      label="negative ratio", help="fraction of class -1 (E.2.2); auto = natural",),
    "noise": Spec(float, 0, 10, label="σ_ζ", help="additive Gaussian input noise (App. F)",
                  default=0.0),
    "n": Spec(int, 10, 1_000_000, label="n", help="training samples", default=50_000),
    "n_test": Spec(int, 10, 1_000_000, label="n_test", help="test samples", default=10_000),
    "seed": Spec(int, 0, 2**31 - 1, label="seed", help="random seed of the run", default=0),
    "m": Spec(int, 1, 20_000, group="network", label="m",
              help="width: 2m hidden neurons (shi2022, fcb2022), 4m (gfl), m (resnet3)",
              default=300),
    "schedule": Spec(str, choices=SCHEDULES, group="network", label="schedule",
                     help="paper: practical default; theory: Lemma 23/Thm 26; "
                          "standard: ReLU, Gaussian init, SGD+momentum", default="paper"),
    "theory": Spec(str, choices=THEORY_VARIANTS, group="network", label="theory variant",
                   help="which theorem's step-1 formulas the theory schedule uses",
                   default="lemma23", shown=lambda c: c.schedule == "theory"),
    "T": Spec(int, 2, 100_000, group="steps", label="T", help="total steps", default=600),
    "batch": Spec(int, 1, 1_000_000, group="steps", label="batch",
                  help="mini-batch size for steps t > 2", default=1000),
    "eta1": Spec(float, 0, 1e6, open_lo=True, optional=True, group="steps", label="η⁽¹⁾",),
    "nu1": Spec(float, 0, 1e6, optional=True, group="steps", label="ν⁽¹⁾",
                help="step 1 keeps the initial weights: w⁽¹⁾ = η⁽¹⁾(ν⁽¹⁾w⁽⁰⁾ - ∇L), i.e. "
                     "λ_w⁽¹⁾ = 1/(2η⁽¹⁾) - ν⁽¹⁾/2; 0 = Lemma 23's full reset"),
    "lam_w1": Spec(float, 0, 1e12, optional=True, group="steps", label="λ_w⁽¹⁾"),
    "lam_a1": Spec(float, 0, 1e12, optional=True, group="steps", label="λ_a⁽¹⁾"),
    "xi1": Spec(float, 0, 10, optional=True, group="steps", label="σ_ξ⁽¹⁾"),
    "eta2": Spec(float, 0, 1e6, open_lo=True, optional=True, group="steps", label="η⁽²⁾",),
    "lam_w2": Spec(float, 0, 1e12, optional=True, group="steps", label="λ_w⁽²⁾"),
    "lam_a2": Spec(float, 0, 1e12, optional=True, group="steps", label="λ_a⁽²⁾"),
    "xi2": Spec(float, 0, 10, optional=True, group="steps", label="σ_ξ⁽²⁾"),
    "eta": Spec(float, 0, 1e6, open_lo=True, optional=True, group="steps", label="η",),
    "lam": Spec(float, 0, 1e12, optional=True, group="steps", label="λ"),
    "xi": Spec(float, 0, 10, optional=True, group="steps", label="σ_ξ"),
    "momentum": Spec(float, 0, 1, open_hi=True, optional=True, group="steps",
                     label="momentum", help="SGD momentum of the classifier stage (every step "
                     "of the standard schedule); needs optimizer=sgd",
                     shown=lambda c: c.schedule == "standard"),
    "optimizer": Spec(str, choices=OPTIMIZERS, group="steps", label="optimizer (t > 2)",
                      help="classifier stage: adam (paper schedule's default) or plain sgd "
                           "(the theory's step); auto = the schedule's choice", default="auto"),
    "optimizer_w": Spec(str, choices=LAYER_OPTIMIZERS, group="steps",
                        label="first-layer optimizer (t > 2)",
                        help="how the classifier stage moves the first layer (w, b): sgd = plain "
                             "SGD with step η_w (the theory's stage 3: the features stay), adam, "
                             "or same = the output layer's rule (optimizer, η); auto = sgd for "
                             "the paper schedule, same otherwise", default="auto"),
    "eta_w": Spec(float, 0, 1e6, open_lo=True, optional=True, group="steps", label="η_w",
                  help="the first layer's step in the classifier stage (optimizer_w); auto = "
                       "0.5 for SGD, the output layer's η otherwise"),
    "ema": Spec(float, 0, 1, open_hi=True, optional=True, group="steps", label="EMA β",
                help="the reported model averages the classifier stage's iterates "
                     "(exponential moving average with this β; 0 = last iterate)"),
    "intercept": Spec(bool, optional=True, group="steps", label="output intercept (t > 2)",
                      help="the classifier stage also trains c in g = Σ a_i σ_i + c, for every "
                           "method (a linear classifier's usual intercept); auto = on for the "
                           "paper schedule, off for theory and standard"),
    "lr_decay": Spec(str, choices=DECAYS, group="steps", label="η decay (t > 2)",
                     help="classifier-stage step size: constant or cosine-decayed to 0 at T",
                     default="auto"),
    "balance": Spec(str, choices=BALANCES, group="steps", label="class weights",
                    help="weighted loss α_v = 1/(2Pr[y=v]) for unbalanced classes (App. F): "
                         "in steps 1-2, in every step, or off", default="steps12"),
    "classifier": Spec(str, choices=CLASSIFIERS, group="baselines", label="classifier",
                       help="how One/Two Step and RF train their top layer", default="schedule"),
    # where a fixed-feature method trains without decay its converged limit is the λ → 0 end of
    # the regularised path (max-margin where separable): 0; a positive value solves there instead
    "limit_ridge": Spec(float, 0.0, 0.1, group="baselines", label="limit ridge (0: λ → 0)",
                        help="0 = the λ → 0 limit (engine/limits, docs/limits.md): the max-margin "
                             "readout where the features separate the sample, else the end of "
                             "the ridge path 1e-2 … 1e-8; a positive λ solves at that ridge. Read "
                             "only where a method trains without decay (GFL, FCB, the theory and "
                             "standard schedules), never by the runs themselves",
                        default=0.0),
    "procedure": Spec(str, choices=PROCEDURES, group="network", label="procedure",
                      help="how the network is trained (engine/procedures: "
                           + ", ".join(PROCEDURES[1:]) + "); auto = the world's own first",
                      default="auto"),
}


def _world_settings() -> dict[str, Spec]:
    """Every world's own settings in the registry's order; a name is declared once."""
    out: dict[str, Spec] = {}
    for record in WORLDS.values():
        for name, spec in record.settings.items():
            if name in COMMON or name in out:
                raise ValueError(f"world {record.name} declares {name!r} a second time")
            out[name] = spec
    for record in WORLDS.values():
        missing = [n for n in record.shared if n not in out and n not in COMMON]
        if missing:
            raise ValueError(f"world {record.name} shares undeclared settings {missing}")
    return out


def _procedure_settings() -> dict[str, Spec]:
    """Every procedure's own settings, each shown only where its procedure trains the run."""
    out = {}
    for name, spec in PROCEDURE_SETTINGS.items():
        if name in COMMON or name in _WORLD:
            raise ValueError(f"procedure {owner_of(name)} declares {name!r} a second time")
        out[name] = dataclasses.replace(spec, shown=_runs_with(owner_of(name), spec.shown))
    return out


def _runs_with(owner: str, rule):
    """A sidebar rule: cfg's procedure is `owner` (and the setting's own rule holds)."""
    def shown(cfg) -> bool:
        try:
            runs = procedure_of(cfg).name == owner
        except ConfigError:  # a procedure the world refuses: validation names it
            return False
        return runs and (rule is None or bool(rule(cfg)))
    return shown


# Every setting: the common ones, then each world's own (shown only where a world uses them),
# then each procedure's own (shown only where it trains the run).
_WORLD = _world_settings()
SPECS: dict[str, Spec] = {**COMMON, **_WORLD, **_procedure_settings()}


# what a message names instead of all the settings' names, which no longer fit one line
KNOWN = f"a known setting (`python -m engine settings` lists all {len(SPECS)})"


class _Settings:
    """The methods of Config (its fields are generated from SPECS below)."""

    __slots__ = ()

    def replace(self, **changes: Any) -> Config:
        """A validated copy with some settings changed."""
        return validate(dataclasses.replace(self, **changes))

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of the settings (JSON-safe)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def label_set(self) -> tuple[int, ...]:
        """The counts labelled +1 (the paper's P ⊆ [k])."""
        return label_set(self)


def _annotation(spec: Spec) -> str:
    """The field's type as Config declares it ('float | None' for an optional setting)."""
    return spec.kind.__name__ + (" | None" if spec.optional else "")


# Every setting of a run, one field per SPECS row with its default; None in an optional field
# means "from the schedule". Frozen: a Config is a value (equal settings, equal runs).
Config = dataclasses.make_dataclass(
    "Config", [(name, _annotation(s), dataclasses.field(default=s.default))
               for name, s in SPECS.items()],
    bases=(_Settings,), frozen=True)
Config.__module__ = __name__
Config.__doc__ = "Every setting of a run; None in a step-size field means 'from the schedule'."


def coerce(name: str, raw: Any) -> Any:
    """Turn a string or loose value into the setting's type, or raise ConfigError."""
    if name not in SPECS:
        close = difflib.get_close_matches(str(name), SPECS, n=3)
        hint = f"; close: {', '.join(close)}" if close else ""
        raise ConfigError(name, raw, f"{KNOWN}{hint}")
    spec = SPECS[name]
    if spec.optional and (raw is None or (isinstance(raw, str) and raw.strip().lower()
                                          in ("", "auto", "none"))):
        return None
    if spec.kind is bool:
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off"):
            return False
        raise ConfigError(name, raw, spec.allowed())
    if spec.kind is str:
        return str(raw).strip()
    # float() takes '５' and other scripts' digits, and reads '1_1' as 11
    if isinstance(raw, str) and (not raw.isascii() or "_" in raw):
        raise ConfigError(name, raw, spec.allowed() + ", in ASCII digits")
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise ConfigError(name, raw, spec.allowed()) from None
    if spec.kind is int:
        if not math.isfinite(value) or not value.is_integer():
            raise ConfigError(name, raw, spec.allowed())
        return int(value)
    return value


def _check_range(name: str, value: Any) -> None:
    spec = SPECS[name]
    if value is None:
        if not spec.optional:
            raise ConfigError(name, value, spec.allowed())
        return
    if spec.choices and value not in spec.choices:
        raise ConfigError(name, value, spec.allowed())
    if spec.kind in (int, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value):
            raise ConfigError(name, value, spec.allowed())
        if spec.lo is not None and (value < spec.lo or (spec.open_lo and value == spec.lo)):
            raise ConfigError(name, value, spec.allowed())
        if spec.hi is not None and (value > spec.hi or (spec.open_hi and value == spec.hi)):
            raise ConfigError(name, value, spec.allowed())


TRAINING_GROUPS = ("network", "steps", "baselines")  # the groups a procedure's `reads` decides
MAX_TEXT = 200  # free-text settings (P, pair) come from URLs: keep them short

def validate(cfg: Config) -> Config:
    """Check every range and relation; return cfg or raise ConfigError."""
    for name in SPECS:
        _check_range(name, getattr(cfg, name))
        if SPECS[name].kind is str and len(str(getattr(cfg, name))) > MAX_TEXT:
            raise ConfigError(name, str(getattr(cfg, name))[:20] + "...",
                              f"at most {MAX_TEXT} characters")
    check_free_text(cfg)  # in every world: P and pair reach printed commands and links
    record = WORLDS.get(cfg.scenario)  # a valid name: its range was checked above
    proc = procedure_of(cfg)  # ConfigError when the world does not run with the procedure
    # a rule on a training setting the procedure does not read (fcb2022: batch) is skipped
    check_relations(cfg, lambda name: reads_common(record, name) and (
        proc.reads is None or name in proc.reads or SPECS[name].group not in TRAINING_GROUPS))
    for name, (value, why) in pinned(cfg).items():
        if getattr(cfg, name) != value:
            raise ConfigError(name, getattr(cfg, name), f"{value} ({why})")
    rules = WORLDS[cfg.scenario].check  # the world's own rules, read from its record
    if rules is not None:
        rules(cfg)
    return cfg


def from_dict(values: dict[str, Any], base: Config | None = None) -> Config:
    """Build a validated Config from loose (e.g. string) values; unknown names are errors; the
    world's pinned settings follow unless given."""
    base = base or Config()
    changes = {name: coerce(name, raw) for name, raw in values.items()}
    return validate(with_pins(dataclasses.replace(base, **changes), changes))


def diff(cfg: Config, base: Config | None = None) -> dict[str, Any]:
    """Settings that differ from base (default: the paper's default), for URLs and reports."""
    base = base or Config()
    return {k: v for k, v in cfg.to_dict().items() if getattr(base, k) != v}


def summary_line(cfg: Config) -> str:
    """'d=500 · D=100 · k=5 · p_o=0.5 · m=300': the setting in one line (CLI, pages, reports),
    without the settings its world does not read (gfl_xor: no p_o)."""
    parts = {"d": cfg.d, "D": cfg.D, "k": cfg.k, "p_o": f"{cfg.p_o:g}", "m": cfg.m}
    record = WORLDS[cfg.scenario]
    return " · ".join(f"{name}={value}" for name, value in parts.items()
                      if reads_common(record, name))
