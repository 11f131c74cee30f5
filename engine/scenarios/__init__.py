"""More worlds to explore (issue 8): data scenarios beyond the sparse-coding model.

Each module defines SCENARIO (a value of Config.scenario), make_dataset(cfg, space) returning an
`engine.data.Dataset` (with optional `centres` / `centre_labels`, K×r in data coordinates), and
PRESETS, which `engine.presets` lists after its own.

What the dashboard reads from a scenario Dataset (declared fields; defaults mean "sparse coding"):
  has_truth        False: no ±Σ_A M stars and no relevant/background gradient split to show
  centres          K×r cluster centres / labelled vectors in the data coordinates (like weights)
  centre_labels    K labels (±1) of the centres, for two colours
  extras           a world's own arrays by name: real_train/real_test (teacher_student) boolean
                   masks of the real-digit rows of z_train / z_test; clean_test (fcb)
Runs of `fcb` and `teacher_student` yield ScenarioSnapshot (a Snapshot with an `extra` dict of
per-step numbers that scalars() includes); the others yield the engine's Snapshot.
"""

from __future__ import annotations

from ..config import Config, ConfigError
from ..data import Dataset
from . import dm_parity, fcb, hidden_repr, mog, real, teacher_student
from ._common import centre_cosines, centre_coverage, neighbour_cosine, two_cluster_score

MODULES = {m.SCENARIO: m for m in (dm_parity, hidden_repr, mog, real, fcb,
                                          teacher_student)}

__all__ = ["MODULES", "make_dataset", "make_run", "headline", "centre_cosines", "centre_coverage",
           "neighbour_cosine", "two_cluster_score", "scenario_presets"]


def make_dataset(cfg: Config, space: str = "auto") -> Dataset:
    """The Dataset of a non-sparse-coding scenario."""
    if cfg.scenario not in MODULES:
        raise ConfigError("scenario", cfg.scenario, "one of " + ", ".join(MODULES))
    return MODULES[cfg.scenario].make_dataset(cfg, space)


def make_run(method: str, world, embed: bool = True, freeze_after: int | None = None):
    """The scenario's own run for a method (its own trainer or probes), or None when the
    engine's Run serves it unchanged."""
    module = MODULES.get(world.cfg.scenario)
    maker = getattr(module, "make_run", None)
    return None if maker is None else maker(method, world, embed, freeze_after)


def scenario_presets() -> list:
    """Every preset this package adds."""
    return [p for m in MODULES.values() for p in m.PRESETS]


def headline(ds: Dataset, weights) -> dict:
    """Scenario probes of a first layer (2m×r, data coordinates): per-centre coverage, the
    nearest-neighbour cosine of the neurons and the two-cluster score."""
    out = {"neighbour_cos": neighbour_cosine(weights)}
    centres = ds.centres
    if centres is not None:
        cov = centre_coverage(weights, centres)
        out.update(centre_cos_min=float(cov.min()), centre_cos_mean=float(cov.mean()))
    out["two_cluster"] = two_cluster_score(weights)[0]
    # neurons that weight decay shrank keep their random directions; the map's clusters are
    # the neurons that carry the function
    out["two_cluster_top"] = two_cluster_score(weights, top=0.5)[0]
    return out

