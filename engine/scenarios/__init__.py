"""Every data world, one module each, and the registry of them (WORLDS).

The world contract: a module declares
  SCENARIO          its value of Config.scenario
  make_dataset(cfg, space) → engine.data.Dataset (fields below)
  PRESETS           its presets (engine.presets lists them after the paper's)
  SETTINGS          the settings only this world uses: the sidebar shows them for it alone
  PATTERN_SPACE     True when noise-free data may be stored in pattern coordinates (D wide)
  DICTIONARY        True when the data is drawn through a d×D dictionary M (the guard counts it)
and may define
  input_dim(cfg)    the width of x when it is not cfg.d (real data: the image size)
  download_setting(cfg)  the setting that makes it download data, or None (the guard refuses it
                    on a server with downloads off)
  run_bytes(cfg, r, params)  (kept, peak) bytes of its own runs, when make_run replaces the
                    engine's (the guard's sizing)
  make_run(method, world, embed, freeze_after)  its own run of a method, or None for the engine's
  PROCEDURES        the training procedures it runs with (engine/procedures.py), its default
                    first; ("shi2022",) when left out
  GFL               its engine.gfl.options.GFLOptions for the gfl procedure (spec §2.2's rule
                    when left out)
  check(cfg)        its own rules between settings (ConfigError naming the setting to change);
                    engine.config.validate runs it after the rules every world shares
                    (engine/relations.py), through check() below, installed in engine.config

What the dashboard reads from a Dataset (declared fields; defaults mean "sparse coding"):
  has_truth        False: no ±Σ_A M stars and no relevant/background gradient split to show
  centres          K×r cluster centres / labelled vectors in the data coordinates (like weights)
  centre_labels    K labels (±1) of the centres, for two colours
  extras           a world's own arrays by name: real_train/real_test (teacher_student) boolean
                   masks of the real-digit rows of z_train / z_test; clean_test (fcb)
Runs of `fcb` and `teacher_student` yield ScenarioSnapshot (a Snapshot with an `extra` dict of
per-step numbers that scalars() includes); the others yield the engine's Snapshot.
"""

from __future__ import annotations

from ..config import Config, ConfigError, install_world_rules
from ..data import Dataset
from . import (
    dm_parity,
    fcb,
    gfl_linear,
    gfl_mog,
    gfl_multi_index,
    gfl_parity_blocks,
    gfl_uniform_parity,
    gfl_xor,
    hidden_repr,
    mog,
    real,
    sparse_coding,
    teacher_student,
)
from ._common import centre_cosines, centre_coverage, neighbour_cosine, two_cluster_score

# The registry: a new world is one module and one entry here.
WORLDS = {m.SCENARIO: m for m in (sparse_coding, dm_parity, hidden_repr, mog, real, fcb,
                                  teacher_student, gfl_xor, gfl_uniform_parity, gfl_multi_index,
                                  gfl_linear, gfl_parity_blocks, gfl_mog)}
WORLD_SETTINGS = frozenset(name for m in WORLDS.values() for name in m.SETTINGS)

__all__ = ["WORLDS", "WORLD_SETTINGS", "world", "world_procedures", "shows", "check", "input_dim",
           "pattern_space",
           "dictionary", "download_setting", "run_bytes", "make_dataset", "make_run", "headline",
           "centre_cosines", "centre_coverage", "neighbour_cosine", "two_cluster_score",
           "scenario_presets"]


def world(cfg: Config):
    """The module of cfg's world (ConfigError for an unknown one)."""
    if cfg.scenario not in WORLDS:
        raise ConfigError("scenario", cfg.scenario, "one of " + ", ".join(WORLDS))
    return WORLDS[cfg.scenario]


def shows(name: str, cfg: Config) -> bool:
    """Whether the sidebar shows setting `name` for cfg's world (world-only settings)."""
    return name not in WORLD_SETTINGS or name in world(cfg).SETTINGS


def _hook(cfg: Config, name: str):
    """An optional function of cfg's world module, or None when the world leaves it out."""
    return getattr(world(cfg), name, None)


def world_procedures(cfg: Config) -> tuple[str, ...]:
    """The procedures cfg's world runs with, its default first."""
    return tuple(getattr(world(cfg), "PROCEDURES", ("shi2022",)))


def check(cfg: Config) -> None:
    """cfg's procedure is one its world runs with; then the world's own rules (if any)."""
    allowed = world_procedures(cfg)
    if cfg.procedure != "auto" and cfg.procedure not in allowed:
        raise ConfigError("procedure", cfg.procedure,
                          f"auto or one of {', '.join(allowed)} for the {cfg.scenario} world")
    rules = _hook(cfg, "check")
    if rules is not None:
        rules(cfg)


install_world_rules(check)


def input_dim(cfg: Config) -> int:
    """The width d of the world's inputs x."""
    dim = _hook(cfg, "input_dim")
    return cfg.d if dim is None else dim(cfg)


def pattern_space(cfg: Config) -> bool:
    """Whether the engine stores this setting's data in pattern coordinates (D wide)."""
    return world(cfg).PATTERN_SPACE and cfg.noise == 0


def dictionary(cfg: Config) -> bool:
    """Whether the data is drawn through a d×D dictionary M."""
    return world(cfg).DICTIONARY


def run_bytes(cfg: Config, r: int, params: float) -> tuple[float, float] | None:
    """(kept, peak) bytes of one of the world's own runs (engine.guard), or None: the engine's."""
    hook = _hook(cfg, "run_bytes")
    return None if hook is None else hook(cfg, r, params)


def download_setting(cfg: Config) -> str | None:
    """The setting that makes this world download data, or None."""
    hook = _hook(cfg, "download_setting")
    return None if hook is None else hook(cfg)


def make_dataset(cfg: Config, space: str = "auto") -> Dataset:
    """The Dataset of cfg's world."""
    return world(cfg).make_dataset(cfg, space)


def make_run(method: str, world, embed: bool = True, freeze_after: int | None = None):
    """The scenario's own run for a method (its own trainer or probes), or None when the
    engine's Run serves it unchanged."""
    maker = _hook(world.cfg, "make_run")
    return None if maker is None else maker(method, world, embed, freeze_after)


def scenario_presets() -> list:
    """Every preset this package adds."""
    return [p for m in WORLDS.values() for p in m.PRESETS]


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

