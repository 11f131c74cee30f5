"""Named sweeps with the paper's expected shape stated beside them (README "Sweeps"): grids over
settings, not the settings presets of engine/presets.py."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from math import comb

from ..config import ConfigError
from .spec import SweepSpec


@dataclass(frozen=True)
class Picture:
    """The README picture of a stored preset sweep, as plain data (ui/sweep_pictures.py draws it
    with the Sweep page's own figures): lines of `metric` over `x`, one per method of the sweep
    (mean ± std over seeds), or, with `versus`, a heat map of its first method − its second over
    x and `y`."""

    metric: str
    x: str
    title: str | Callable  # or (cfg: the sweep's first setting) -> the title
    versus: tuple[str, str] | None = None  # a heat map of first − second (diverging colours)
    y: str | None = None  # the heat map's second axis
    gap: tuple[str, str, str] | None = None  # (a, b, name): a dotted line of a − b
    split: str | None = None  # one set of lines per value of this axis (after the first dashed)
    mark: Callable | None = None  # (cfg, value of split) -> (x, words): a dotted vertical line
    log_x: str = ""  # the x axis' title on a log scale ("": linear, the page's title)
    log_y: bool = False
    levels: bool = False  # the world's reference levels of the metric (kα²), as the page draws


@dataclass(frozen=True)
class SweepPreset:
    """A sweep, the claim it tests, the shape the paper predicts and its README picture."""

    name: str
    spec: SweepSpec
    claim: str
    expected: str
    picture: Picture | None = None


def _threshold_mark(cfg, d) -> tuple[float, str]:
    """Where step 1 starts to find the bits at this d: (2/ξ₃)², and its words."""
    at = parity_threshold(int(d), cfg.k)
    return at, f" (2/ξ₃)² ≈ {at:,.0f} at d = {d}"


def majority_coefficient(d: int, size: int) -> float:
    """|Maj^(S)| for |S| = size on d bits (d odd): E[Maj(x) Π_S x_i], counted exactly."""
    total = sum(comb(size, a) * comb(d - size, b) * (-1) ** a * (1 if d - 2 * (a + b) > 0 else -1)
                for a in range(size + 1) for b in range(d - size + 1))
    return abs(total) / 2**d


def parity_threshold(d: int, k: int) -> float:
    """(2/ξ_{k−1})²: the n at which step 1's signal ½ξ_{k−1} per relevant bit passes the
    sampling noise 1/√n (spec §3.5; ≈ 5 400 at d = 11, k = 4)."""
    return (2 / majority_coefficient(d, k - 1)) ** 2


# uniform parity at the spec's d = 11 and a second d = 15, n log-spaced across both thresholds
# (2/ξ₃)² ≈ 5 400 and 15 400; m = 128 (4m = 512) keeps n = 50 000 within the guard's memory
PARITY_M = 128
PARITY_CELLS = tuple((("n", n), ("d", d), ("D", d)) for d in (11, 15)
                     for n in (1000, 2000, 5000, 10000, 20000, 50000))
# the AZL world at azl-resnet's 900 SGD steps for every N, the step size dropped at half of them
# (the epochs grow as N shrinks, so the drop epoch moves with N)
AZL_CELLS = tuple((("n", n), ("azl_drop_epoch", -(-900 // -(-n // 100)) // 2))
                  for n in (1000, 2000, 3000, 5000))

SWEEP_PRESETS = {p.name: p for p in [
    SweepPreset(
        "separation-vs-k",
        SweepSpec("quick-parity", {}, (("k", (1, 3, 5, 7, 9)),), (), 3, 0,
                  ("network", "ntk", "rf")),
        "Fixed features need a size exponential in k; the network learns Σ_A M in two steps "
        "(Theorems 1-2, Table 1).",
        "with m = 100 and n = 10 000 fixed, the network stays near 100 % test accuracy for every "
        "odd k while NTK and RF fall towards chance (50 %) as k grows",
        Picture("test_acc", "k", "separation vs k: test accuracy (mean ± std, 3 seeds)")),
    SweepPreset(
        "structure-strength",
        SweepSpec("quick-parity", {}, (("p_o", (0.1, 0.2, 0.4, 0.6)),
                                       ("structure", (True, False))), (), 3, 0,
                  ("network", "ntk", "rf")),
        "Feature learning needs input structure (A1); without it no SQ algorithm learns the "
        "labels efficiently (Theorem 3, 'w/o structure' column).",
        "with structure the network is near 100 % for every p_o (background patterns only add "
        "noise); without structure every method stays near chance",
        Picture("test_acc", "p_o", "structure strength: Network − NTK test accuracy (mean over "
                "3 seeds)", versus=("network", "ntk"), y="structure")),
    SweepPreset(
        "gfl-parity-threshold",
        SweepSpec("gfl-uniform-parity", {"m": PARITY_M}, (), PARITY_CELLS, 3, 0,
                  ("one_step", "rf")),
        "Uniform sparse parity has no input structure, yet one gradient step finds the k "
        "relevant bits once n passes about (2/ξ_{k−1})² (Diss. B.5.5-B.5.6; spec §3.5).",
        "the relevant share after step 1 (share_1) stays near √(k/d) (0.60 at d = 11, 0.52 at "
        "d = 15) for small n and rises above 0.75 once n passes (2/ξ₃)² ≈ 5 400 (d = 11) or "
        "15 400 (d = 15): the rise moves right with d; RF's share stays at √(k/d)",
        Picture("share_1", "n", lambda cfg: f"uniform parity (k = {cfg.k}): relevant share "
                "after step 1 over n (mean ± std, 3 seeds)", split="d", mark=_threshold_mark,
                log_x="n (training samples, log scale)")),
    SweepPreset(
        "gfl-xor-gap",
        SweepSpec("gfl-xor", {}, (("d", (25, 50, 100, 200, 400)),), (), 3, 0,
                  ("network", "one_step", "rf")),
        "On Refinetti et al.'s XOR mixture a network trained by Algorithm 1 needs Õ(d^1.5) "
        "samples while fixed features need Ω(d²) (Diss. B.5.3, Thm B.42; spec §3.3).",
        "at fixed n = 2 000 and 4m = 400 neurons the network (and One Step) stay near 100 % "
        "test accuracy while random features fall towards chance as d grows: the gap "
        "network − RF widens with d",
        Picture("test_acc", "d", "XOR mixture: test accuracy over d at n = 2 000 (mean ± std, "
                "3 seeds)", gap=("network", "rf", "network − RF"),
                log_x="d (input dimension, log scale)")),
    SweepPreset(
        "azl-error-vs-n",
        SweepSpec("azl-resnet", {}, (), AZL_CELLS, 3, 0, ("resnet3", "two_layer")),
        "Only the 3-layer ResNet learns the hierarchical part G(F) from few samples; a 2-layer "
        "network learns F and no G (Allen-Zhu & Li 2019, Fig. 2 and [L241]).",
        "the ResNet's (resnet3's) test error falls below kα² = 0.72 once N is large enough, "
        "while the 2-layer net approaches kα² from above and stays there (c_G ≈ 0)",
        Picture("test_err", "n", "AZL world: test error over N at 900 SGD steps (mean ± std, "
                "3 seeds)", log_y=True, levels=True)),
]}


def get(name: str) -> SweepPreset:
    """The named sweep preset, or a ConfigError listing them."""
    if name not in SWEEP_PRESETS:
        raise ConfigError("--sweep-preset", name, "one of " + ", ".join(SWEEP_PRESETS))
    return SWEEP_PRESETS[name]
