"""Frei, Chatterji & Bartlett (2022): 2m ReLU neurons with fixed ±1/√(2m) output weights,
full-batch gradient descent with step α (the `eta` setting) on the logistic loss (run.py)."""

from __future__ import annotations

from ...method_table import METHOD_RECORDS
from ...preset import COLUMNS
from ..record import Chart, CompareTable, ProcedureRecord, Source
from ..rows import MDS_MAP, TEST_ACCURACY, accuracy_rows
from .run import FCBRun
from .story import narrate

DEFAULT_ALPHA = 0.05  # FCB's Fig. 1 step size, when eta is auto
SOURCE = Source("Frei, Chatterji & Bartlett 2022",
                "One gradient step amplifies the random features that correlate with the "
                "clusters; the network then generalises despite noisy labels",
                "Frei, Chatterji & Bartlett 2022")


def make_run(method, world, embed, freeze_after) -> FCBRun:
    """The FCB trainer for one of the engine's methods (the NTK trains as the network here)."""
    return FCBRun(world, method, embed, alpha(world.cfg), freeze_after)


def run_bytes(cfg, r: int, params: float) -> tuple[float, float]:
    """(kept, evaluation peak) bytes of one run (engine.guard): full-batch steps on n×2m
    matrices, the weights kept every step."""
    width = 2 * cfg.m
    kept = params + (cfg.T + 1) * width * (r + 4) * 4
    # a step makes about 6 n×2m float32 temporaries; the allocator keeps freed ones in varying
    # amounts (identical runs peaked at 340-640 MB in bench.guard), so count twice that
    return kept, 12 * max(cfg.n, cfg.n_test) * width * 4


TABLE = CompareTable(
    title="Train %, test % (noisy labels: the flip rate bounds it), cosine with the cluster "
          "means",
    intro="Every method trains on the same data from the same initial network by full-batch "
          "gradient descent on the logistic loss. The source's claim: the first step amplifies "
          "the neurons that correlate with the cluster means, so the network's test error "
          "approaches the label-noise rate, while fixed random features, which cannot move towards "
          "the cluster means, stay below it.",
    rows=accuracy_rows,
    headlines=(("Network − NTK", "network", "ntk"), ("Network − RF", "network", "rf")),
    groups=(("Methods", tuple(m.name for m in METHOD_RECORDS if m.structure)),
            ("Labels independent of x", tuple(m.name for m in METHOD_RECORDS if not m.structure))),
    bands=((0, 1, "step 1"),))  # the one step that amplifies the features
GLOSSARY = (
    ("µ₁, µ₂", "the cluster means: ±µ₁ carry label +1, ±µ₂ label −1 (the map's stars)"),
    ("label noise η", "the share of labels flipped; the best test accuracy is 1 − η"),
    ("cos", "a neuron's largest |correlation| with the cluster means µ₁, µ₂ (the map's colour); "
            "Compare's cos: the mean correlation of a neuron with its own mean"),
    TEST_ACCURACY, MDS_MAP,
)
def alpha(cfg) -> float:
    """The step size α it trains with: the eta setting, FCB's 0.05 when auto."""
    return cfg.eta or DEFAULT_ALPHA


def step_table(run, world) -> dict:
    """One row: every step is a full-batch gradient step of size α on the first layer W."""
    return {"note": "Full-batch gradient descent on the logistic loss with one constant step "
                    "size α (the eta setting); the output weights ±1/√(2m) stay fixed.",
            "rows": [{"stage": f"steps 1-{world.cfg.T}", "α": alpha(world.cfg),
                      "batch": f"full ({world.cfg.n:,})", "trains": "W"}]}


RECORD = ProcedureRecord(
    "fcb2022", "Frei, Chatterji & Bartlett 2022 (full-batch GD, logistic loss)", ("binary",),
    METHOD_RECORDS, COLUMNS, make_run, SOURCE, TABLE,
    neurons=lambda m: 2 * m, run_bytes=run_bytes, glossary=GLOSSARY,
    # full-batch GD with step η: no batch, schedule or optimizer; its readouts train without
    # decay, so their converged limits take the tie-break ridge (engine/limits/sources.py)
    reads=("m", "T", "eta", "limit_ridge"),
    loss="logistic loss log(1 + e^(−y·f(x)))",
    step_rule=lambda cfg: f"full-batch gradient descent, α = {alpha(cfg):g}",
    step_table=step_table, stages=(("gradient descent", "1–T"),), schedule=False, story=narrate,
    charts=(Chart("accuracy", "Test accuracy", ("test_acc",), "test accuracy",
                  terms=("test accuracy",)),))
