"""Run settings: one frozen dataclass, a spec table that drives validation, CLI, URL and UI."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import ConfigError
from .population import label_set
from .relations import check_relations
from .spec import Spec

SCENARIOS = ("sparse_coding", "dm_parity", "hidden_repr", "mog", "real", "fcb",
             "teacher_student")
REAL_DATASETS = ("digits", "mnist", "cifar10", "svhn")
LABELINGS = ("parity", "interval", "threshold", "custom")
SCHEDULES = ("paper", "theory", "standard")
THEORY_VARIANTS = ("lemma23", "thm26")
CLASSIFIERS = ("schedule", "logreg")
OPTIMIZERS = ("auto", "adam", "sgd")
LAYER_OPTIMIZERS = ("auto", "sgd", "adam", "same")
DECAYS = ("auto", "constant", "cosine")
BALANCES = ("steps12", "all", "off")

# The single source of truth for every setting. Names follow the paper's symbols.
SPECS: dict[str, Spec] = {
    "scenario": Spec(str, choices=SCENARIOS, label="scenario", help="data world"),
    "labeling": Spec(str, choices=LABELINGS, label="labeling",
                     help="parity: D_mix of App. E.1.1; interval: count in [t1, t2]; "
                          "threshold: count > k/2; custom: count in P"),
    "d": Spec(int, 2, 5000, label="d", help="input dimension"),
    "D": Spec(int, 1, 5000, label="D", help="number of dictionary patterns (D ≤ d)"),
    "k": Spec(int, 1, 500, label="k", help="number of class-relevant patterns (k ≤ D)",
              text="k ≤ D; odd for the parity labeling"),
    "p_o": Spec(float, 0, 1, open_lo=True, open_hi=True, label="p_o",
                text="at most 2/3 for the parity labeling",
                help="background pattern probability"),
    "p_a": Spec(float, 0, 1, open_lo=True, open_hi=True, label="p_A",
                help="relevant-pattern probability (interval/threshold/custom labelings)"),
    "t1": Spec(int, 0, 500, label="t1", help="interval labeling: lower count"),
    "t2": Spec(int, 0, 500, label="t2", help="interval labeling: upper count"),
    "P": Spec(str, label="P", help="custom labeling: comma-separated counts labelled +1",
              text="comma-separated integers in [1, k], not all of 0..k, e.g. '1,3,5'"),
    "structure": Spec(bool, label="input structure",
                      help="off = (A1'): all patterns uniform, same labeling rule"),
    "neg_ratio": Spec(float, 0, 1, open_lo=True, open_hi=True, optional=True,
                      label="negative ratio", help="fraction of class -1 (E.2.2); auto = natural"),
    "noise": Spec(float, 0, 10, label="σ_ζ", help="additive Gaussian input noise (App. F)"),
    "n": Spec(int, 10, 1_000_000, label="n", help="training samples"),
    "n_test": Spec(int, 10, 1_000_000, label="n_test", help="test samples"),
    "seed": Spec(int, 0, 2**31 - 1, label="seed", help="random seed of the run"),
    "m": Spec(int, 1, 20_000, group="network", label="m", help="neuron pairs (width 2m)"),
    "schedule": Spec(str, choices=SCHEDULES, group="network", label="schedule",
                     help="paper: practical default; theory: Lemma 23/Thm 26; "
                          "standard: ReLU, Gaussian init, SGD+momentum"),
    "theory": Spec(str, choices=THEORY_VARIANTS, group="network", label="theory variant",
                   help="which theorem's step-1 formulas the theory schedule uses"),
    "T": Spec(int, 2, 100_000, group="steps", label="T", help="total steps"),
    "batch": Spec(int, 1, 1_000_000, group="steps", label="batch",
                  help="mini-batch size for steps t > 2"),
    "eta1": Spec(float, 0, 1e6, open_lo=True, optional=True, group="steps", label="η⁽¹⁾"),
    "nu1": Spec(float, 0, 1e6, optional=True, group="steps", label="ν⁽¹⁾",
                help="step 1 keeps the initial weights: w⁽¹⁾ = η⁽¹⁾(ν⁽¹⁾w⁽⁰⁾ - ∇L), i.e. "
                     "λ_w⁽¹⁾ = 1/(2η⁽¹⁾) - ν⁽¹⁾/2; 0 = Lemma 23's full reset"),
    "lam_w1": Spec(float, 0, 1e12, optional=True, group="steps", label="λ_w⁽¹⁾"),
    "lam_a1": Spec(float, 0, 1e12, optional=True, group="steps", label="λ_a⁽¹⁾"),
    "xi1": Spec(float, 0, 10, optional=True, group="steps", label="σ_ξ⁽¹⁾"),
    "eta2": Spec(float, 0, 1e6, open_lo=True, optional=True, group="steps", label="η⁽²⁾"),
    "lam_w2": Spec(float, 0, 1e12, optional=True, group="steps", label="λ_w⁽²⁾"),
    "lam_a2": Spec(float, 0, 1e12, optional=True, group="steps", label="λ_a⁽²⁾"),
    "xi2": Spec(float, 0, 10, optional=True, group="steps", label="σ_ξ⁽²⁾"),
    "eta": Spec(float, 0, 1e6, open_lo=True, optional=True, group="steps", label="η"),
    "lam": Spec(float, 0, 1e12, optional=True, group="steps", label="λ"),
    "xi": Spec(float, 0, 10, optional=True, group="steps", label="σ_ξ"),
    "momentum": Spec(float, 0, 1, open_hi=True, optional=True, group="steps",
                     label="momentum", help="SGD momentum of the classifier stage (every step "
                     "of the standard schedule); needs optimizer=sgd"),
    "optimizer": Spec(str, choices=OPTIMIZERS, group="steps", label="optimizer (t > 2)",
                      help="classifier stage: adam (paper schedule's default) or plain sgd "
                           "(the theory's step); auto = the schedule's choice"),
    "optimizer_w": Spec(str, choices=LAYER_OPTIMIZERS, group="steps",
                        label="first-layer optimizer (t > 2)",
                        help="how the classifier stage moves the first layer (w, b): sgd = plain "
                             "SGD with step η_w (the theory's stage 3: the features stay), adam, "
                             "or same = the output layer's rule (optimizer, η); auto = sgd for "
                             "the paper schedule, same otherwise"),
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
                     help="classifier-stage step size: constant or cosine-decayed to 0 at T"),
    "balance": Spec(str, choices=BALANCES, group="steps", label="class weights",
                    help="weighted loss α_v = 1/(2Pr[y=v]) for unbalanced classes (App. F): "
                         "in steps 1-2, in every step, or off"),
    "classifier": Spec(str, choices=CLASSIFIERS, group="baselines", label="classifier",
                       help="how One/Two Step and RF train their top layer"),
    "sigma_r": Spec(float, 0, 10, label="σ_r",
                    help="mixture of Gaussians: noise g ~ N(0, σ_r² k/d I) (App. E.3.2); "
                         "FCB: in-cluster noise N(0, σ_r²/d I)"),
    "vectors": Spec(int, 2, 100_000, label="vectors per label",
                    help="hidden representation: binary vectors φ̃_A per label (App. E.3.1)"),
    "flip": Spec(float, 0, 0.5, open_hi=True, label="label noise η",
                 help="random feature amplification (FCB): fraction of flipped labels"),
    "alpha": Spec(float, 0, 1, open_lo=True, open_hi=True, label="α (Gaussian fraction)",
                  help="input structure on real data (App. E.5): fraction of Gaussian inputs"),
    "real": Spec(str, choices=REAL_DATASETS, label="real dataset",
                 help="real data (App. E.4): digits is bundled; the others need torchvision"),
    "pair": Spec(str, label="class pair", help="real data: the two classes, e.g. '0,1'",
                 text="two distinct class indices in 0..9, e.g. '0,1'"),
}


@dataclass(frozen=True)
class Config:
    """Every setting of a run; None in a step-size field means 'from the schedule'."""

    scenario: str = "sparse_coding"
    labeling: str = "parity"
    d: int = 500
    D: int = 100
    k: int = 5
    p_o: float = 0.5
    p_a: float = 2 / 3
    t1: int = 20
    t2: int = 30
    P: str = ""
    structure: bool = True
    neg_ratio: float | None = None
    noise: float = 0.0
    n: int = 50_000
    n_test: int = 10_000
    seed: int = 0
    m: int = 300
    schedule: str = "paper"
    theory: str = "lemma23"
    T: int = 600
    batch: int = 1000
    eta1: float | None = None
    nu1: float | None = None
    lam_w1: float | None = None
    lam_a1: float | None = None
    xi1: float | None = None
    eta2: float | None = None
    lam_w2: float | None = None
    lam_a2: float | None = None
    xi2: float | None = None
    eta: float | None = None
    lam: float | None = None
    xi: float | None = None
    momentum: float | None = None
    optimizer: str = "auto"
    optimizer_w: str = "auto"
    eta_w: float | None = None
    ema: float | None = None
    lr_decay: str = "auto"
    intercept: bool | None = None
    balance: str = "steps12"
    classifier: str = "schedule"
    sigma_r: float = 1.0
    flip: float = 0.15
    alpha: float = 0.5
    vectors: int = 50
    real: str = "digits"
    pair: str = "0,1"

    def replace(self, **changes: Any) -> Config:
        """A validated copy with some settings changed."""
        return validate(dataclasses.replace(self, **changes))

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of the settings (JSON-safe)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def label_set(self) -> tuple[int, ...]:
        """The counts labelled +1 (the paper's P ⊆ [k])."""
        return label_set(self)


def coerce(name: str, raw: Any) -> Any:
    """Turn a string or loose value into the setting's type, or raise ConfigError."""
    if name not in SPECS:
        raise ConfigError(name, raw, "a known setting: " + ", ".join(SPECS))
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
    if isinstance(raw, str) and not raw.isascii():  # float() takes '５' and other digits
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


MAX_TEXT = 200  # free-text settings (P, pair) come from URLs: keep them short

# Each world's own rules (its module's check(cfg)). The worlds sit above the settings, so the
# world registry (engine.scenarios, imported by engine/__init__ before any caller runs)
# installs its dispatcher here instead of validate importing upwards.
_world_rules: Callable[[Config], None] | None = None


def install_world_rules(check: Callable[[Config], None]) -> None:
    """Let the world registry add each world's own rules to validate."""
    global _world_rules
    _world_rules = check


def validate(cfg: Config) -> Config:
    """Check every range and relation; return cfg or raise ConfigError."""
    for name in SPECS:
        _check_range(name, getattr(cfg, name))
        if SPECS[name].kind is str and len(str(getattr(cfg, name))) > MAX_TEXT:
            raise ConfigError(name, str(getattr(cfg, name))[:20] + "...",
                              f"at most {MAX_TEXT} characters")
    check_relations(cfg)
    if _world_rules is not None:
        _world_rules(cfg)
    return cfg


def from_dict(values: dict[str, Any], base: Config | None = None) -> Config:
    """Build a validated Config from loose (e.g. string) values; unknown names are errors."""
    base = base or Config()
    changes = {name: coerce(name, raw) for name, raw in values.items()}
    return validate(dataclasses.replace(base, **changes))


def diff(cfg: Config, base: Config | None = None) -> dict[str, Any]:
    """Settings that differ from base (default: the paper's default), for URLs and reports."""
    base = base or Config()
    return {k: v for k, v in cfg.to_dict().items() if getattr(base, k) != v}


def summary_line(cfg: Config) -> str:
    """'d=500 · D=100 · k=5 · p_o=0.5 · m=300': the setting in one line (CLI, pages, reports)."""
    return f"d={cfg.d} · D={cfg.D} · k={cfg.k} · p_o={cfg.p_o:g} · m={cfg.m}"
