"""The paper's world (Sec. 2, App. E.1-E.2): sparse combinations of D dictionary patterns, drawn
by engine.data, declared here under the world contract of engine/scenarios/__init__.py. Its
presets are the paper's tables (Tables 1-5) and the classroom and theory settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..data import make_dataset
from ..errors import ConfigError
from ..population import population_stats
from ..preset import Preset
from ..preset import paper_table as _table
from ..spec import WorldRecord
from ._common import check_odd_parity

if TYPE_CHECKING:  # annotations only: the settings sit above the worlds
    from ..settings import Settings as Config  # the Protocol: engine/config.py sits above

SCENARIO = "sparse_coding"
MIN_CLASS_FRAC = 0.005  # below this a class is too rare to learn or to measure on a test set
CLASS_KNOB = {"custom": "P", "interval": "t1", "threshold": "p_a"}


def check(cfg: Config) -> None:
    """An odd k for parity; any other labeling must give each class some samples."""
    check_odd_parity(cfg)
    if cfg.labeling == "parity":
        return
    name = CLASS_KNOB[cfg.labeling]
    try:
        pos = population_stats(cfg).natural_pos_frac
    except ConfigError:
        pos = 0.0  # population_stats refuses a labeling with a single class
    if min(pos, 1 - pos) < MIN_CLASS_FRAC:
        raise ConfigError(name, getattr(cfg, name),
                          f"a value that gives each class at least {MIN_CLASS_FRAC:.1%} of the "
                          f"samples (here Pr[y = +1] = {pos:.3%}; try p_a, p_o, t1/t2 or P)")


PRESETS = [
    Preset("paper-parity", "Parity labeling (Table 1, Fig. 1/5, 2/6)",
           "The headline experiment: D_mix parity, d=500, D=100, k=5, p_o=1/2, m=300, T=600.",
           "Table 1, App. E.1.1", {},
           _table((100.0, 84.0, 74.7, 51.3, 100.0, 100.0), (100.0, 86.4, 76.0, 52.2, 100.0, 52.0),
                  (0.997, None, 0.114, 0.848, 0.997, 0.253))),
    Preset("paper-interval", "Interval labeling (Table 2, Fig. 7/8)",
           "y = +1 iff the count of relevant patterns is in [20, 30]; k=30, p_A=2/3, "
           "m=100, T=200.",
           "Table 2, App. E.1.2",
           {"labeling": "interval", "k": 30, "t1": 20, "t2": 30, "p_a": 2 / 3, "p_o": 0.5,
            "m": 100, "T": 200},
           _table((100.0, 100.0, 76.4, 44.1, 100.0, 100.0),
                  (100.0, 100.0, 73.2, 41.0, 100.0, 100.0),
                  (1.00, None, 0.153, 0.901, 0.994, 0.965))),
    Preset("paper-parity-d100", "Input dimension d=100 (Table 3)", "Parity with d = 100.",
           "Table 3, App. E.2.1", {"d": 100},
           _table((100.0, 83.1, 78.9, 53.0, 100.0, 100.0), (100.0, 81.5, 78.3, 51.1, 100.0, 51.0),
                  (1.000, None, 0.354, 0.967, 1.000, 0.331))),
    Preset("paper-parity-d2000", "Input dimension d=2000 (Table 3)", "Parity with d = 2000.",
           "Table 3, App. E.2.1", {"d": 2000},
           _table((100.0, 75.6, 80.0, 50.22, 100.0, 100.0), (100.0, 75.4, 77.0, 50.01, 100.0, 52.5),
                  (0.998, None, 0.056, 0.560, 0.998, 0.309))),
    Preset("paper-parity-ratio0.8", "Negative-class ratio 0.8 (Table 4)",
           "Parity with 80% of the samples in class -1 (majority rate 80%).",
           "Table 4, App. E.2.2", {"neg_ratio": 0.8},
           _table((100.0, 62.9, 72.7, 78.3, 100.0, 100.0), (100.0, 82.7, 70.4, 75.7, 100.0, 61.7),
                  (0.999, None, 0.293, 0.950, 0.999, 0.218))),
    Preset("paper-parity-ratio0.9", "Negative-class ratio 0.9 (Table 4)",
           "Parity with 90% of the samples in class -1 (majority rate 90%).",
           "Table 4, App. E.2.2", {"neg_ratio": 0.9},
           _table((100.0, 84.0, 73.6, 92.3, 100.0, 100.0), (100.0, 81.7, 72.4, 89.2, 100.0, 71.8),
                  (0.997, None, 0.296, 0.956, 0.997, 0.286))),
    Preset("paper-parity-n25000", "Sample size n=25000 (Table 5)", "Parity with n = 25 000.",
           "Table 5, App. E.2.3", {"n": 25000},
           _table((100.0, 84.0, 78.6, 50.6, 100.0, 100.0), (100.0, 84.1, 74.7, 50.0, 100.0, 50.2),
                  (0.997, None, 0.105, 0.851, 0.997, 0.230))),
    Preset("paper-parity-n10000", "Sample size n=10000, m=50 (Table 5)",
           "Parity with n = 10 000; the paper reduced m to 50 against overfitting.",
           "Table 5, App. E.2.3", {"n": 10000, "m": 50},
           _table((100.0, 73.9, 71.6, 50.7, 100.0, 100.0), (100.0, 75.0, 74.3, 50.3, 100.0, 52.2),
                  (0.995, None, 0.096, 0.974, 0.994, 0.176))),
    Preset("theory-parity", "Parity with the theory's step sizes",
           "Lemma 23's steps 1-2 and Theorem 26's t > 2 step: what the formulas do at this size.",
           "Lemma 23 / Theorem 26", {"schedule": "theory"}),
    Preset("quick-parity", "Parity, classroom size",
           "A small parity setting that finishes in seconds on a laptop: d=100, D=50, k=5.",
           "App. E.1.1 (reduced)", {"d": 100, "D": 50, "n": 10000, "n_test": 4000, "m": 100,
                                    "T": 200}),
]

# the symbols of the paper's data (the Guide's table of this world)
GLOSSARY = (
    ("d, D", "input dimension, number of dictionary patterns"),
    ("k, A", "number of relevant patterns, the relevant set"),
    ("p_o", "probability of each background pattern"),
    ("γ, σ̃", "label correlation of a relevant pattern, data scale"),
)

RECORD = WorldRecord(
    SCENARIO, "sparse coding: D dictionary patterns, k of them class-relevant (the paper)",
    make_dataset, check=check, presets=tuple(PRESETS), pattern_space=True, batched_sweeps=True,
    procedures=("shi2022", "gfl"), glossary=GLOSSARY)
