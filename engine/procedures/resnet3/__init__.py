"""Allen-Zhu & Li (2019): a 3-layer ResNet learns F first, then the hierarchical part G(F), where
2-layer networks, 3-layer fully connected networks and kernels do not. SGD with momentum and
weight decay on ½‖out − y‖², every step size ×0.1 from the drop epoch on; five methods from one
shared initialisation on the same batches (world: engine/scenarios/azl; docs/azl.md)."""

from __future__ import annotations

from functools import lru_cache

from ...method_table import Method
from ...scenarios.azl.config import FC_BIASES, LABELS, RANGES, AZLConfig
from ...scenarios.azl.convert import from_engine
from ...scenarios.azl.data import TEST_PROBE
from ...spec import Spec
from ..record import Chart, CompareTable, Line, ProcedureRecord, Source
from ..rows import ERROR, MDS_MAP, WEIGHT_SHARE
from .cards import CARDS, GUIDE
from .explore import ExploreRun
from .narrate import narrate
from .run import AZLRun, AZLWorld, azl_world
from .timing import run_gflop

SOURCE = Source("Allen-Zhu & Li 2019",
                "A 3-layer ResNet learns F first, then the hierarchical part G(F), which 2-layer "
                "networks and kernels do not learn", "Allen-Zhu & Li 2019")
METHOD_RECORDS = (  # Okabe–Ito colours; the flags size them in engine.guard as the paper's alike
    Method("resnet3", LABELS["resnet3"], "ResNet", "#0072B2", "circle", None),
    Method("fc3", LABELS["fc3"], "3-layer FC", "#CC79A7", "triangle-up", None),
    Method("two_layer", LABELS["two_layer"], "2-layer", "#009E73", "star", None),
    Method("ntk", LABELS["ntk"], "NTK", "#E69F00", "square", None, linearised=True),
    Method("last_layer", LABELS["last_layer"], "last layer", "#D55E00", "diamond", 0),
)
# the engine names the AZL world answered to before it had its own (stored sweeps, old links)
ALIASES = {"network": "resnet3", "rf": "last_layer"}


@lru_cache(maxsize=2)
def _shared(acfg: AZLConfig) -> AZLWorld:
    """One data set and initialisation per setting, shared by the methods trained side by side."""
    return azl_world(acfg)


def make_run(method: str, world, embed: bool = True, freeze_after=None) -> AZLRun:
    """The AZL run of a method (an alias: the method it names), under the name it was asked by."""
    run = AZLRun(_shared(from_engine(world.cfg)), ALIASES.get(method, method))
    run.method = method
    return run


def explore_run(world) -> ExploreRun:
    """Explore's run: the ResNet with the four other methods beside it on the same batches, so
    its chart has every method's test error against kα²."""
    return ExploreRun(_shared(from_engine(world.cfg)))


def run_bytes(cfg, r: int, params: float) -> tuple[float, float]:
    """(kept, peak) bytes of one run: per step a few hundred floats and every 10th first layer;
    the peak is the whole-set evaluation through the 300×300 layer."""
    kept = params + (cfg.T + 1) * (cfg.m * 2 + cfg.m * cfg.d / 10) * 4
    return kept, 8 * max(cfg.n, cfg.n_test, TEST_PROBE) * cfg.m * 4


def narrate_step(extra: dict, step: int, cfg, label: str = "") -> str:
    """The ResNet's step in words against kα² (.narrate) and where its weights sit,
    for Compare."""
    words = narrate(extra, step, threshold(cfg), cfg.seed, label)
    return f"{words}\n\n{weights_line(extra, cfg.k)}"


def _two(value) -> str:
    """A probe to two decimals; '—' where the row has none (the report's rows hold None, not
    NaN, for a probe a step did not measure)."""
    return "—" if value is None or value != value else f"{value:.2f}"


def weights_line(extra: dict, k: int) -> str:
    """Where the weights sit: pair purity and relevant share of W's rows, V's support share."""
    text = (f"First layer: pair purity {_two(extra.get('pair_purity'))} (the largest of {k} "
            f"pair shares: about 0.18 for random rows at k = 8, 1 on a pair star), "
            f"share on x₁…x₂ₖ {_two(extra.get('relevant_share'))} "
            f"({2 * k}/30 at random)")
    v = extra.get("v_support")
    if v is not None and v == v:  # NaN: no second block
        text += f"; V's share on out₁…out₄ (what G reads) {v:.2f} (4/{k} at random)"
    return text + "."


def header(cfg) -> str:
    """Explore's setting line for the AZL world: its variant, k outputs, SGD steps."""
    return (f"**AZL world ({cfg.azl_variant}) · d={cfg.d} · k={cfg.k} outputs · m={cfg.m}** · "
            f"n={cfg.n:,} · T={cfg.T} SGD steps · batch={cfg.batch} · seed={cfg.seed}")


def threshold(cfg) -> float:
    """kα²: the test error of a perfect F with no G (cfg: an engine Config)."""
    return cfg.k * cfg.azl_alpha ** 2


def footer(config: dict) -> str:
    """The kα² line under the table (config: a report's)."""
    thr = config["k"] * config["azl_alpha"] ** 2
    return f"kα² = {thr:.2f}: a test error above it means G(F) is not learned at all"


def _spec(name: str, label: str, default) -> Spec:
    kind, lo, hi, text = RANGES[name]
    return Spec(kind, lo, hi, label=label, default=default, group="procedure",
                help=f"resnet3 procedure: {text}")


SETTINGS = {
    "azl_drop_epoch": _spec("drop_epoch", "step-size drop epoch", 15),
    "azl_lr": _spec("lr", "step size (ResNet, FC, 2-layer)", 0.2),
    "azl_lr_ntk": _spec("lr_ntk", "step size (NTK)", 0.1),
    "azl_lr_last": _spec("lr_last", "step size (last layer)", 0.02),
    "azl_wd": _spec("wd", "weight decay", 1e-3),
    "azl_momentum": _spec("momentum", "SGD momentum", 0.9),
    "azl_fc_bias": Spec(str, choices=FC_BIASES, label="FC nets' biases", default="fixed",
                        group="procedure",
                        help="resnet3 procedure: fixed = the source's reading (only the hidden "
                             "weights of fc3, two_layer and its NTK train); trained = as the "
                             "ResNet's (docs/azl.md)"),
}
TABLE = CompareTable(
    title="Test error E‖out − y‖², c_F and c_G (share of F and of αG learned)",
    intro="Five networks start from one shared initialisation and train by SGD on the same "
          "batches: the 3-layer ResNet, a 3-layer fully connected net, a 2-layer net, its NTK "
          "and the last layer on fixed random features. The source's claim: only the ResNet "
          "learns the hierarchical part G(F); the others learn at most F, so their test error "
          "stays above kα².",
    rows=lambda entries: ERROR,
    headlines=(("ResNet − 2-layer", "resnet3", "two_layer"), ("ResNet − 3-layer FC", "resnet3",
                                                               "fc3"),
               ("ResNet − NTK", "resnet3", "ntk")),
    footer=footer, groups=(), bands=())
KALPHA = Line(threshold, "kα²: above this line G is not learned at all")
CHARTS = (
    Chart("error", "Test error against kα²", ("test_err",), "test error E‖out − y‖²", log=True,
          lines=(KALPHA,), terms=("test error", "kα²")),
    Chart("projection", "Share of F and of αG learned", ("c_F", "c_G"), "c_F, c_G",
          terms=("c_F", "c_G")),
    # Explore's player only: read from the ResNet's own weights each frame
    Chart("weights", "Where the ResNet's weights sit",
          ("pair_purity", "relevant_share", "v_support"), "pair purity / shares",
          views=("explore",)),
    Chart("pairs", "Neurons per pair over steps", ("pair_counts",), "neurons", views=("explore",)),
)
GLOSSARY = (
    ("m (ResNet)", "hidden width of the AZL networks: m neurons per layer"),
    ("c_F", "the share of F in the network's output: 1 when F is learned"),
    ("c_G", "the share of αG(F) in the output: 1 when the hierarchical part is learned"),
    ("kα²", "the test error of a perfect F with no G: above it, G is not learned at all"),
    ("pair purity", "how much of a first-layer neuron's weight sits on one pair x₂ᵣ₋₁x₂ᵣ "
                    "(1 on a pair star)"),
    ("V's support share", "the share of ‖V‖² on out₁…out₄, the coordinates G reads"),
    ("test error", "E‖out − y‖² on the test set, summed over the k outputs"),
    WEIGHT_SHARE,
    ("on a pair star", "a first-layer neuron within cos 0.9 of one of pair r's four stars "
                       "±(e₂ᵣ₋₁ ± e₂ᵣ)/√2; a pair's count is how many"),
    MDS_MAP,
)
RECORD = ProcedureRecord(
    "resnet3", "Allen-Zhu & Li 2019 (3-layer ResNet, SGD, MSE)", ("regression",), METHOD_RECORDS,
    tuple(m.name for m in METHOD_RECORDS), make_run, SOURCE, TABLE, neurons=lambda m: m,
    settings=SETTINGS, run_bytes=run_bytes, explore_run=explore_run,
    run_gflop=lambda cfg, methods, embed: run_gflop(cfg, methods, embed, ALIASES),
    frame="azl", charts=CHARTS, glossary=GLOSSARY, aliases=ALIASES, narrate=narrate_step,
    header=header, reads=("m", "T", "batch"), guide=GUIDE, cards=CARDS,
    loss="mean squared error ½‖out − y‖² with weight decay",
    step_rule=lambda cfg: f"SGD with momentum {cfg.azl_momentum:g}, step sizes ×0.1 from epoch "
                          f"{cfg.azl_drop_epoch}",
    step_table=lambda run, world: {"note": run.step_sizes_note, "rows": run.step_sizes()},
    stages=(("SGD", "1–T"),), schedule=False)  # engine.scenarios.azl.convert.ENGINE_NAMES
