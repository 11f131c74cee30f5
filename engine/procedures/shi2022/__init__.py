"""Shi, Wei & Liang (ICLR 2022): the 2m twin network with trained biases, the three-stage
schedule (two large steps, then the classifier stage) on the hinge loss; the engine's Run and
NTKRun (engine/run.py, engine/baselines.py), or a world's own run where its record has make_run
(teacher_student)."""

from __future__ import annotations

from ... import scenarios
from ...method_table import METHOD_RECORDS as TABLE1
from ...preset import COLUMNS
from ..record import Chart, CompareTable, ProcedureRecord, Source
from ..rows import MDS_MAP, TEST_ACCURACY, accuracy_rows
from ..told import reads_structure
from .guide import FIGURES, GUIDE, TABLES
from .story import narrate

SOURCE = Source("Shi, Wei & Liang, ICLR 2022",
                "A two-layer network learns features from structured inputs",
                "Shi, Wei & Liang 2022")


def make_run(method, world, embed, freeze_after):
    """The world's own run when its record has one (its make_run), else None: the engine's."""
    return scenarios.make_run(method, world, embed, freeze_after)


WITH = tuple(m.name for m in TABLE1 if m.structure)
WITHOUT = tuple(m.name for m in TABLE1 if not m.structure)


def title(cfg, truth: bool | None) -> str:
    """Table 1's layout; the cosine only where the world plants Σ_A M."""
    return "Table 1 layout: train %, test %" + ("" if truth is False else ", cosine with Σ_A M")


def intro(cfg, truth: bool | None) -> str:
    """The paper's claim; the with/without-structure words only where the world reads
    `structure` (elsewhere there is no run without it)."""
    same = ("Every method trains on the same data from the same initial network, one step at a "
            "time. ")
    if not reads_structure(cfg):
        return same + ("The claim: the network (and Two Step) beats every fixed-feature "
                       "method.")
    return same + ("Solid lines: with the input structure of the paper; dotted: without it "
                   "(A1′). The claim: the network (and Two Step) beats every fixed-feature "
                   "method, and loses that edge when the structure is removed.")


TABLE = CompareTable(
    title=title, intro=intro,
    rows=accuracy_rows,
    headlines=(("Network − NTK", "network", "ntk"), ("Network − RF", "network", "rf"),
               ("Two Step − One Step", "two_step", "one_step"),
               ("Network: with − without structure", "network", "network_no_structure")),
    groups=(("With input structure", WITH), ("Without input structure (A1′)", WITHOUT)),
    bands=((0, 2, "steps 1–2"),),  # where the features emerge
    claims_note="mean of 5 runs in the paper")
CHARTS = (
    Chart("accuracy", "Test accuracy", ("test_acc",), "test accuracy",
          terms=("test accuracy",)),
    Chart("cos", "Neurons on a star", ("frac_aligned", "cos_max"), "share / max cos",
          terms=("on a star", "cos")),
    # Explore's player only: the step's gradient split (where the world plants Σ_A M)
    Chart("gradient", "Relevant share of ∂L/∂w_i", ("grad_rel", "grad_bg"), "relevant share",
          terms=("relevant share",), views=("explore",)),
)
GLOSSARY = (
    ("m", "neuron pairs of the twin network (2m hidden neurons)"),
    ("Σ_A M", "the ground-truth feature direction: the sum of the class-relevant patterns "
              "(the map's stars ±Σ_A M)"),
    ("cos", "max over neurons of cos(w_i, Σ_A M), the Table-1 cosine"),
    ("relevant share", "‖relevant part‖ / (‖relevant‖ + ‖background‖) of a neuron's gradient: "
                       "1 = all along the patterns in A"),
    ("on a star", "a neuron with |cos(w_i, ±Σ_A M)| > 0.9"),
    ("η, λ, σ_ξ", "step size, weight decay, injected noise, per stage of the schedule"),
    TEST_ACCURACY, MDS_MAP,
)
STEP_NOTE = ("What the schedule computed for this data (Lemma 23's η⁽¹⁾ and η⁽²⁾, the classifier "
             "stage's rule); the same numbers are in the JSON report.")


def step_table(run, world) -> dict:
    """The three stages' step sizes as the schedule computed them for this data."""
    return {"note": STEP_NOTE, "rows": world.schedule.rows()}


RECORD = ProcedureRecord(
    "shi2022", "Shi, Wei & Liang 2022 (three-stage schedule)", ("binary",), TABLE1, COLUMNS,
    make_run, SOURCE, TABLE, neurons=lambda m: 2 * m, charts=CHARTS, glossary=GLOSSARY,
    frame="engine", loss="hinge loss max(0, 1 − y·g(x)) with weight decay",
    step_rule=lambda cfg: f"three-stage schedule ({cfg.schedule}): two large full-batch steps, "
                          "then the classifier stage",
    step_table=step_table, schedule=True, story=narrate, guide=GUIDE, figures=FIGURES,
    tables=TABLES, stages=(("step 1", "1"), ("step 2", "2"), ("classifier", "3–T")))
