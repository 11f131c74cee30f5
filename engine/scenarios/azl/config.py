"""The AZL world's settings: one frozen record, its allowed ranges and its presets."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ...errors import ConfigError

# the readings of the source's target (docs/azl.md): "v1v2" = v1's F, k = 8 and threshold with
# v2's G_r = (−1)^r y1y2y3y4 (the default); "literal" = v1 as printed, G_r alternating y1y2y3y4 /
# y5y6y7y8; "k15" = the later version, F over all 15 pairs of x ∈ {±1}³⁰
VARIANTS = {"v1v2": 8, "literal": 8, "k15": 15}
# the networks AZLConfig validates and the runs train; the resnet3 procedure's record declares
# them as its methods (engine/procedures/resnet3), these are the world-side names
METHODS = ("resnet3", "fc3", "two_layer", "ntk", "last_layer")
LABELS = {"resnet3": "3-layer ResNet", "fc3": "3-layer FC", "two_layer": "2-layer",
          "ntk": "NTK (2-layer)", "last_layer": "last layer (CK)"}
D_INPUT = 30  # x ∈ {±1}³⁰ in every reading
# the fully connected nets' biases (fc3, two_layer and its NTK): "fixed" at their random init, the
# source's reading ("we only train hidden weights for fully connected neural networks following
# [2]" [L420]; only the ResNet's biases are absorbed into W and V, "W(x, 1)" [L221]); "trained"
# as the ResNet's (docs/azl.md)
FC_BIASES = ("fixed", "trained")

# name → (type, lo, hi, help); lo/hi inclusive (lr and friends must be > 0: lo is a tiny floor)
RANGES = {
    "n": (int, 100, 100_000, "training samples"),
    "n_test": (int, 100, 100_000, "test samples (the per-step probe uses 1 024 of them)"),
    "m": (int, 8, 4096, "hidden width"),
    "epochs": (int, 1, 1000, "passes over the training set"),
    "steps": (int, 0, 1_000_000, "total SGD steps (0: epochs × ⌈n / batch⌉)"),
    "batch": (int, 1, 100_000, "mini-batch size"),
    "lr": (float, 1e-6, 10.0, "step size of resnet3, fc3 and two_layer"),
    "lr_ntk": (float, 1e-6, 10.0, "step size of the NTK"),
    "lr_last": (float, 1e-6, 10.0, "step size of the last-layer (conjugate kernel) method"),
    "drop_epoch": (int, 0, 1000, "epoch at which every step size drops ×0.1 (0: never)"),
    "wd": (float, 0.0, 1.0, "weight decay"),
    "momentum": (float, 0.0, 0.99, "SGD momentum"),
    "alpha": (float, 0.0, 2.0, "weight α of G(F)"),
    "beta": (float, 0.01, 2.0, "weight β of F"),
    "seed": (int, 0, 2**31 - 1, "random seed"),
}


@dataclass(frozen=True)
class AZLConfig:
    """Every setting of an AZL run (spec §3.1 proposed defaults)."""

    variant: str = "v1v2"
    fc_bias: str = "fixed"
    n: int = 3000
    n_test: int = 5000
    m: int = 300
    epochs: int = 30
    steps: int = 0
    batch: int = 100
    lr: float = 0.2
    lr_ntk: float = 0.1
    lr_last: float = 0.02
    drop_epoch: int = 15
    wd: float = 1e-3
    momentum: float = 0.9
    alpha: float = 0.3
    beta: float = 1.0
    seed: int = 0

    @property
    def k(self) -> int:
        """Number of outputs (pairs in F)."""
        return VARIANTS[self.variant]

    @property
    def d(self) -> int:
        """Input width."""
        return D_INPUT

    @property
    def steps_per_epoch(self) -> int:
        """Mini-batches per epoch (the last one may be short)."""
        return -(-self.n // self.batch)

    @property
    def T(self) -> int:
        """Total SGD steps."""
        return self.steps or self.epochs * self.steps_per_epoch

    @property
    def threshold(self) -> float:
        """kα²: the test error of a perfect F with no G."""
        return self.k * self.alpha**2

    def replace(self, **changes) -> AZLConfig:
        """A copy with some settings changed (validated)."""
        return validate(dataclasses.replace(self, **changes))

    def to_dict(self) -> dict:
        """The settings and the derived k, d, T, threshold."""
        return {**dataclasses.asdict(self), "k": self.k, "d": self.d, "T": self.T,
                "threshold": self.threshold}


def _coerce(name: str, value):
    """value as the setting's type (ConfigError naming the setting otherwise)."""
    kind, lo, hi, _ = RANGES[name]
    word = "an integer" if kind is int else "a number"
    try:
        number = kind(value) if not isinstance(value, bool) else None
    except (TypeError, ValueError):
        number = None
    if number is None or number != number or not lo <= number <= hi:
        raise ConfigError(name, value, f"{word} in [{lo:g}, {hi:g}]")
    return number


def validate(cfg: AZLConfig) -> AZLConfig:
    """cfg with every setting checked and typed; ConfigError naming the first bad one."""
    if cfg.variant not in VARIANTS:
        raise ConfigError("variant", cfg.variant, "one of " + ", ".join(VARIANTS))
    if cfg.fc_bias not in FC_BIASES:
        raise ConfigError("fc_bias", cfg.fc_bias, "one of " + ", ".join(FC_BIASES))
    typed = {name: _coerce(name, getattr(cfg, name)) for name in RANGES}
    if typed["drop_epoch"] > typed["epochs"]:
        raise ConfigError("drop_epoch", cfg.drop_epoch, f"an integer in [0, {cfg.epochs}] "
                          "(at most the number of epochs)")
    if typed["batch"] > typed["n"]:
        raise ConfigError("batch", cfg.batch, f"an integer in [1, {cfg.n}] (at most n)")
    return dataclasses.replace(cfg, **typed)


def from_dict(values: dict) -> AZLConfig:
    """A validated AZLConfig from a name → value mapping (unknown names refused)."""
    known = {f.name for f in dataclasses.fields(AZLConfig)}
    for name in values:
        if name not in known:
            raise ConfigError(name, values[name], "a setting of the AZL world: "
                              + ", ".join(sorted(known)))
    return validate(AZLConfig(**values))
