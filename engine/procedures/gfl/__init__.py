"""Shi's dissertation, ch. 3, Algorithm 1 (gradient feature learning): 4m neurons with
init (3.9), b fixed, one large step on the full sample that finds the features, then the
classifier stage; methods network, ntk, rf, one_step. A world tells it its init, bias and step-1
rules (WorldRecord.procedure_options["gfl"], an engine.scenarios.gfl.options.GFLOptions);
the gfl_* settings override them one by one (auto, the default, keeps the world's)."""

from __future__ import annotations

from dataclasses import replace

from ... import scenarios
from ...method_table import BY_NAME
from ...scenarios.gfl.options import BIASES, ETA1_RULES, INITS, KEEP_WEIGHTS, GFLOptions
from ...spec import Spec
from ..record import Chart, CompareTable, ProcedureRecord, Source
from ..rows import ACCURACY, MDS_MAP, MSE, TEST_ACCURACY, WEIGHT_SHARE, regression
from .cards import CARDS, GUIDE
from .learners import METHODS
from .run import GFLRun

SOURCE = Source("Shi, PhD dissertation 2024, ch. 3, Algorithm 1",
                "Gradient feature learning: one large gradient step finds the features the "
                "labels depend on, and the classifier stage fits them",
                "Shi 2024, Algorithm 1")


def _choice(field: str, choices: tuple, label: str, help_: str) -> Spec:
    """A choice of Algorithm 1 whose auto is the world's own (WorldRecord.procedure_options)."""
    return Spec(str, choices=("auto", *choices), group="procedure", label=label, default="auto",
                help=f"gfl procedure: {help_}; auto = the world's own")


def _switch(label: str, help_: str) -> Spec:
    """An on/off choice of Algorithm 1 whose auto (None) is the world's own."""
    return Spec(bool, optional=True, group="procedure", label=label,
                help=f"gfl procedure: {help_}; auto = the world's own")


# GFLOptions' fields as settings (gfl_<field>); each world's choice stays its default ("auto")
SETTINGS = {
    "gfl_w_init": _choice("w_init", INITS, "W⁽⁰⁾ init", "first-layer entries N(0, 1) "
                          "(gaussian) or uniform ±1 (sign, B.479)"),
    "gfl_a_init": _choice("a_init", INITS, "a⁽⁰⁾ init", "output weights N(0, σ_a²) "
                          "(gaussian) or ±σ_a (sign)"),
    "gfl_bias": _choice("bias", BIASES, "bias b̃", "unit: b̃ = σ_w; large: d·max‖x‖·σ_w "
                        "(B.5.1); zero (Alg. 7); bit: σ_w/(2√d); grid: B.479's grid"),
    "gfl_eta1_rule": _choice("eta1_rule", ETA1_RULES, "η⁽¹⁾ rule", "p90: the 90th percentile "
                             "of max_j |⟨w⁽¹⁾, D_j⟩| at 3·b̃; rms: RMS ⟨w⁽¹⁾, x⟩ = 1 (Alg. 7); "
                             "alg6: 1/(k·mean |∇W|) (B.54)"),
    "gfl_step1_moves_a": _switch("step 1 moves a", "the large step also moves the output "
                                 "weights (off: only W, Algorithm 7)"),
    "gfl_rebias": _switch("re-draw b after step 1", "b_i ~ N(0, 1) after the large step "
                          "(Algorithm 7)"),
    "gfl_centre_target": _switch("centred target", "fit y − E y − ⟨E y x, x⟩ (Algorithm 7)"),
}


def options(cfg) -> GFLOptions:
    """cfg's choices within Algorithm 1: the world's GFLOptions (spec §2.2's single rule when it
    has none) with every setting that is not auto in its place."""
    opts = scenarios.world(cfg).procedure_options.get("gfl") or GFLOptions()
    chosen = {name.removeprefix("gfl_"): getattr(cfg, name) for name in SETTINGS}
    return replace(opts, **{k: v for k, v in chosen.items() if v not in ("auto", None)})


def make_run(method, world, embed, freeze_after) -> GFLRun:
    """Algorithm 1 with cfg's options (the world's own where a setting is auto)."""
    return GFLRun(world, method, options(world.cfg), embed)


def run_bytes(cfg, r: int, params: float) -> tuple[float, float]:
    """(kept, peak) bytes of one GFL run (engine.guard): the kept first layers and per-neuron
    arrays of every step; at peak the full-batch step 1 and the whole-set evaluations hold a
    few samples × 4m float32 matrices."""
    width = 4 * cfg.m
    kept = params + (KEEP_WEIGHTS + 3) * width * r * 4 + (cfg.T + 1) * width * 4 * 4
    return kept, 6 * max(cfg.n, cfg.n_test) * width * 4


def rows(entries) -> tuple[tuple[str, str], ...]:
    """Train %, test % and coverage; MSE / Var(y) and coverage for a regression world."""
    return MSE if regression(list(entries)) else (*ACCURACY[:2], ("cos", "Coverage"))


TABLE = CompareTable(
    title="Algorithm 1's table: train %, test % (or test MSE / Var(y), lower is better), "
          "coverage (min over the feature directions of the best neuron's |cos|)",
    intro="Every method starts from the same 4m neurons and data. Algorithm 1's first step is "
          "one large gradient step on the whole sample; then the classifier stage trains. The "
          "source's claim: that step puts neurons on the directions the labels depend on "
          "(coverage near 1), so the network beats the NTK and random features, which keep "
          "their initial directions.",
    rows=rows,
    headlines=(("Network − NTK", "network", "ntk"), ("Network − RF", "network", "rf"),
               ("Network − One Step", "network", "one_step")),
    groups=(), bands=((0, 1, "step 1"),))  # the large step that finds the features
GLOSSARY = (
    ("m (GFL)", "width setting of Algorithm 1: 4m hidden neurons"),
    ("coverage", "min over the feature directions D_j of max over neurons of |cos(w_i, D_j)|: "
                 "1 when every direction has a neuron on it"),
    ("D_j", "a feature direction the labels depend on (the map's stars ±D_j)"),
    ("MSE / Var(y)", "a regression world's test error: 1 = predicting the mean, 0 = perfect"),
    WEIGHT_SHARE,
    ("on a direction", "a neuron within cos 0.9 of one of D_j's stars (signed for a cluster "
                       "centre); a star group's count is how many"),
    TEST_ACCURACY, MDS_MAP,
)
STEP_NOTE = ("What Algorithm 1 uses on this data: step 1's η⁽¹⁾ by the world's calibration "
             "rule, then the classifier stage's rule. A value that a step sets (η⁽¹⁾, SGD's L) "
             "shows once that step is taken.")
RECORD = ProcedureRecord(
    "gfl", "Shi 2024, Algorithm 1 (gradient feature learning)", ("binary", "regression"),
    tuple(BY_NAME[m] for m in METHODS), METHODS, make_run, SOURCE, TABLE,
    neurons=lambda m: 4 * m, run_bytes=run_bytes, glossary=GLOSSARY, frame="gfl",
    settings=SETTINGS, guide=GUIDE, cards=CARDS,
    loss="hinge loss max(0, 1 − y·g(x)) (squared error on a regression world)",
    step_rule=lambda cfg: "Algorithm 1: one large full-batch step, then the classifier stage",
    step_table=lambda run, world: {"note": STEP_NOTE, "rows": run.step_sizes()},
    stages=(("step 1 (reset)", "1"), ("classifier stage", "2–T")), schedule=False,
    # run.stage_rule; limit_ridge: the fixed-feature readouts' limits break ties with it
    reads=("m", "T", "batch", "optimizer", "optimizer_w", "eta", "eta_w", "limit_ridge"),
    charts=(Chart("score", "Test accuracy or MSE / Var(y)", ("test_acc", "test_mse_ratio"),
                  "test accuracy / MSE ÷ Var(y)", terms=("test accuracy", "MSE / Var(y)")),
            Chart("coverage", "Coverage", ("coverage",), "coverage", terms=("coverage",))))
