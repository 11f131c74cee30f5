"""Per-step hyper-parameters: the theory's formulas, the paper-reproducing default, standard SGD."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from .data import Stats
from .relations import first_layer_optimizer, stage_optimizer

if TYPE_CHECKING:  # annotations only: the settings sit above the worlds
    from .settings import Settings as Config  # the Protocol: engine/config.py sits above


@dataclass(frozen=True)
class StepParams:
    """What one update uses: θ ← θ - η(∇L(θ; σ_ξ) + 2λθ), on the full set or a mini-batch."""

    eta: float
    lam_w: float
    lam_a: float
    xi: float
    full_batch: bool
    momentum: float = 0.0
    class_weights: tuple[float, float] | None = None  # (α_+, α_-) of the weighted loss
    keep_w: float | None = None  # factor on the old w (None: the decay 1 - 2ηλ_w)
    optimizer: str = "sgd"  # "sgd" (θ - η∇) or "adam" (Adam's direction, decoupled decay)
    ema: float = 0.0  # the reported model is an exponential average of the iterates (0: off)
    decay: str = "constant"  # step size over the stage: constant or cosine to 0 at T
    intercept: bool = False  # train an output intercept c (g = Σ a_i σ_i + c) in this stage
    optimizer_w: str | None = None  # the first layer's own rule in this stage (None: optimizer)
    eta_w: float | None = None  # the first layer's own step (None: eta)

    def to_dict(self) -> dict:
        """Plain dict for reports."""
        return asdict(self)


@dataclass(frozen=True)
class Schedule:
    """Step 1, step 2 and the classifier stage t > 2, plus the network's form."""

    step1: StepParams
    step2: StepParams
    later: StepParams
    truncated: bool  # truncated ReLU min(1, max(z, 0)) vs plain ReLU
    symmetric_init: bool  # the paper's unbiased init (twins with a_{m+i} = -a_i)
    T: int = 0  # total steps (for a decaying classifier-stage step size)
    dim: int = 1  # input dimension d (the first layer's Adam second moment is a mean over d)

    def at(self, t: int) -> StepParams:
        """Parameters of step t (1-based)."""
        return self.step1 if t == 1 else self.step2 if t == 2 else self.later

    def stage(self, t: int) -> str:
        """Name of the stage that step t belongs to."""
        return "init" if t == 0 else "step 1" if t == 1 else "step 2" if t == 2 else "classifier"

    def rows(self) -> list[dict]:
        """The step sizes each stage really uses, one row per stage, for a table (Explore)."""
        out = []
        for stage, sp in (("step 1", self.step1), ("step 2", self.step2),
                          (f"steps 3-{self.T}", self.later)):
            out.append({"stage": stage, "η": sp.eta, "λ_w": sp.lam_w, "λ_a": sp.lam_a,
                        "σ_ξ": sp.xi, "batch": "full" if sp.full_batch else "mini-batch",
                        "rule": _rule(sp)})
        return out

    def to_dict(self) -> dict:
        """Plain dict for reports."""
        return {"step1": self.step1.to_dict(), "step2": self.step2.to_dict(),
                "later": self.later.to_dict(), "truncated": self.truncated,
                "symmetric_init": self.symmetric_init, "T": self.T, "dim": self.dim}


# The first layer's parameters (w in data coordinates, b): the classifier stage may move them
# by their own rule (`optimizer_w`, `eta_w`). The NTK has no first layer of its own: all of
# θ − θ₀ is one linear classifier on fixed tangent features, trained by the output layer's rule
# like the read-outs of RF, One Step and Two Step (the first-layer SGD put interval NTK at 70 %).
FIRST_LAYER_KEYS = ("q", "b")


def layer_rule(sp: StepParams, key: str, eta: float) -> tuple[str, float]:
    """(optimizer, step) for the parameter `key` at a step whose η (after decay) is `eta`."""
    if key not in FIRST_LAYER_KEYS or sp.optimizer_w is None:
        return sp.optimizer, eta
    eta_w = sp.eta if sp.eta_w is None else sp.eta_w
    return sp.optimizer_w, eta_w * (eta / sp.eta if sp.eta > 0 else 1.0)  # the same decay


def _rule(sp: StepParams) -> str:
    """The update rule of a stage in words: 'sgd, w ← η(ν·w − ∇_w L) with ν = 0.0817', 'adam, …'."""
    parts = [sp.optimizer]
    if sp.momentum:
        parts.append(f"momentum {sp.momentum:g}")
    if sp.keep_w is not None and sp.eta > 0:
        parts.append(f"w ← η(ν·w − ∇_w L) with ν = {sp.keep_w / sp.eta:.4g}")
    if sp.decay != "constant":
        parts.append(f"{sp.decay} decay")
    if sp.ema:
        parts.append(f"reports the average of iterates (β {sp.ema:g})")
    if sp.intercept:
        parts.append("output intercept")
    if sp.optimizer_w is not None:
        parts.append(f"first layer: {sp.optimizer_w} with η_w = {sp.eta_w:g}")
    return ", ".join(parts)


def init_scales(cfg: Config, st: Stats) -> tuple[float, float, float]:
    """(σ_w, σ_b, σ_a): the paper's 1/k, 1/k², σ̃²/(γk²); standard: He-like for ‖x‖ ≈ 1."""
    if cfg.schedule == "standard":
        return 1.0, 0.1, 1.0 / cfg.m**0.5
    gamma = max(st.gamma, 1e-6)  # (A1) needs γ > 0; no-structure data can give γ ≈ 0
    return 1.0 / cfg.k, 1.0 / cfg.k**2, st.sigma2 / (gamma * cfg.k**2)


def theory_defaults(cfg: Config, st: Stats) -> dict[str, float]:
    """Lemma 23 (η⁽¹⁾ = γ²σ̃/(km³), σ_ξ = k^-3/2) or Thm 26 (γ²σ̃²/(km³), k^-2); t>2 of Thm 26."""
    k, m, T = cfg.k, cfg.m, cfg.T
    gamma = max(st.gamma, 1e-6)
    if cfg.theory == "thm26":
        eta1, xi12 = gamma**2 * st.sigma2 / (k * m**3), 1.0 / k**2
    else:
        eta1, xi12 = gamma**2 * st.sigma / (k * m**3), 1.0 / k**1.5
    return {"eta1": eta1, "nu1": 0.0, "lam_w1": 1 / (2 * eta1), "lam_a1": 0.0, "xi1": xi12,
            "eta2": 1.0, "lam_w2": 0.5, "lam_a2": 0.5, "xi2": xi12,
            "eta": k**2 / (T * m ** (1 / 3)), "lam": 0.0, "xi": 0.0, "momentum": 0.0,
            "optimizer": "sgd", "ema": 0.0, "lr_decay": "constant", "intercept": False,
            "optimizer_w": "same", "eta_w": None}


def paper_defaults(cfg: Config, st: Stats) -> dict[str, float]:
    """Step 1 exactly as Lemma 23; step 2 with a larger η⁽²⁾; a classifier stage that moves.

    The paper reports no step sizes. The theory's values at these sizes leave the post-step-2
    features tiny (|⟨w⁽²⁾, x⟩| ≈ 0.05 with η⁽²⁾ = 1) and its t > 2 step k²/(Tm^{1/3}) ≈ 0.006
    then stalls at the linear solution (≈ 84% on parity). Step 2 keeps the reset λ = 1/(2η⁽²⁾),
    so η⁽²⁾ only rescales w⁽²⁾ and a⁽²⁾ (directions unchanged): `paper_eta2` picks it so the
    pre-activations come out O(1) (≈ 30 on parity, ≈ 470 on the interval preset), which the
    truncation turns into threshold-like features; η = 0.5 then reaches Table 1's picture
    within T = 600 steps (README, 'Schedules').
    """
    out = theory_defaults(cfg.replace(theory="lemma23"), st)
    eta2 = paper_eta2(cfg, st)
    eta1 = cfg.eta1 if cfg.eta1 is not None else out["eta1"]
    nu1 = cfg.nu1 if cfg.nu1 is not None else PAPER_NU1
    out.update(nu1=nu1, lam_w1=1 / (2 * eta1) - nu1 / 2, eta2=eta2, lam_w2=1 / (2 * eta2),
               lam_a2=1 / (2 * eta2), eta=PAPER_ETA if stage_optimizer(cfg) == "adam" else
               PAPER_SGD_ETA, lam=PAPER_LAM, optimizer=PAPER_OPT,
               ema=PAPER_EMA, lr_decay=PAPER_DECAY, intercept=True, optimizer_w=PAPER_OPT_W,
               eta_w=PAPER_ETA_W if first_layer_optimizer(cfg) == "sgd" else None)
    return out


PAPER_PRE_RMS = 2 / 3  # target RMS of ⟨w⁽²⁾, x⟩ along Σ_A M: inside the truncation's ramp (0, 1)
# The estimate assumes the sparse-coding statistics; where they do not describe the data (real
# digits at d = 64: γ per pattern ≈ 0) it gave η⁽²⁾ ≈ 1.5e4 and float32 norms overflowed at step 2.
# The interval preset needs ≈ 465; 1000 keeps every scenario's default finite.
PAPER_ETA2_MAX = 1000.0
PAPER_NU1 = 0.0817  # calibrated once, on Table 1's One Step cosine 0.848 (README)
PAPER_ETA = 0.05  # Adam's step size in the classifier stage
PAPER_SGD_ETA = 0.5  # plain SGD's step there (optimizer=sgd), the previous default
PAPER_LAM = 1e-4
PAPER_OPT = "adam"
PAPER_EMA = 0.95
PAPER_OPT_W = "sgd"  # the first layer's rule there: the theory's plain SGD (the features stay)
PAPER_ETA_W = PAPER_SGD_ETA  # its step: 0.5 (2 and 5 kept the stars too; 5 oscillated, 6.7 points)
PAPER_DECAY = "constant"


def paper_eta2(cfg: Config, st: Stats) -> float:
    """η⁽²⁾ giving post-step-2 pre-activations of RMS ≈ 2/3 (a first-order estimate).

    Per unit η⁽²⁾, w⁽²⁾ = -∇_w L ≈ |a⁽¹⁾| · Pr[σ' = 1] · (γ/σ̃) · Σ_A M with |a⁽¹⁾| ≈ σ_a and
    Pr[σ' = 1] ≈ 1/2, and ⟨Σ_A M, x⟩ has standard deviation √(k v_A)/σ̃ where v_A is the
    variance of one relevant pattern's coefficient. A fixed η⁽²⁾ = 30 suits parity but
    leaves the interval preset (k = 30, γ ≈ 0.07) with features 15× too small.
    """
    _, _, sigma_a = init_scales(cfg, st)
    gamma = max(st.gamma, 1e-6)
    v_a = max(st.mean_rel * (1.0 - st.mean_rel), 1e-6)
    per_unit = sigma_a * 0.5 * (gamma / st.sigma) * (cfg.k * v_a) ** 0.5 / st.sigma
    return float(min(PAPER_PRE_RMS / per_unit, PAPER_ETA2_MAX))


def standard_defaults(cfg: Config, st: Stats) -> dict[str, float]:
    """Typical practice: every step is a mini-batch SGD step with momentum, no regulariser."""
    p = {"eta": 0.02, "lam": 0.0, "xi": 0.0, "momentum": 0.95}
    return {**p, "eta1": p["eta"], "nu1": 0.0, "lam_w1": 0.0, "lam_a1": 0.0, "xi1": 0.0,
            "eta2": p["eta"], "lam_w2": 0.0, "lam_a2": 0.0, "xi2": 0.0,
            "optimizer": "sgd", "ema": 0.0, "lr_decay": "constant", "intercept": False,
            "optimizer_w": "same", "eta_w": None}


def resolved_values(cfg: Config, st: Stats) -> dict[str, float]:
    """Every step-size field: the schedule's default unless the config overrides it."""
    base = {"paper": paper_defaults, "theory": theory_defaults,
            "standard": standard_defaults}[cfg.schedule](cfg, st)
    return {key: (val if getattr(cfg, key) in (None, "auto") else getattr(cfg, key))
            for key, val in base.items()}


def class_weights(pos_frac: float) -> tuple[float, float] | None:
    """App. F's α_v = 1/(2 Pr[y = v]); None when the classes are balanced (α ≡ 1)."""
    if not 0.0 < pos_frac < 1.0:
        return None
    alpha = (0.5 / pos_frac, 0.5 / (1.0 - pos_frac))
    return None if alpha == (1.0, 1.0) else alpha


def _first_layer(v: dict) -> dict:
    """The classifier stage's own rule for the first layer (none: the output layer's rule)."""
    rule = v["optimizer_w"]
    if rule == "same":
        return {}
    return {"optimizer_w": rule, "eta_w": v["eta"] if v["eta_w"] is None else v["eta_w"]}


def build_schedule(cfg: Config, st: Stats) -> Schedule:
    """The per-step parameters for this config and data statistics."""
    v = resolved_values(cfg, st)
    std = cfg.schedule == "standard"
    mom = v["momentum"]
    early_mom = mom if std else 0.0  # momentum names the SGD stage, never the paper's steps 1-2
    cw = class_weights(st.pos_frac) if cfg.balance != "off" else None
    late_cw = cw if cfg.balance == "all" else None
    # an explicit λ_w⁽¹⁾ wins; otherwise step 1 keeps ν⁽¹⁾η⁽¹⁾·w⁽⁰⁾ (0 = Lemma 23's reset)
    keep1 = v["eta1"] * v["nu1"] if cfg.lam_w1 is None and v["nu1"] > 0 and not std else None
    return Schedule(
        step1=StepParams(v["eta1"], v["lam_w1"], v["lam_a1"], v["xi1"], not std, early_mom, cw,
                         keep_w=keep1),
        step2=StepParams(v["eta2"], v["lam_w2"], v["lam_a2"], v["xi2"], not std, early_mom, cw),
        later=StepParams(v["eta"], v["lam"], v["lam"], v["xi"], False, mom, late_cw,
                         optimizer=v["optimizer"], ema=v["ema"], decay=v["lr_decay"],
                         intercept=bool(v["intercept"]), **_first_layer(v)),
        truncated=not std,
        symmetric_init=not std,
        T=cfg.T,
        dim=cfg.d,
    )
