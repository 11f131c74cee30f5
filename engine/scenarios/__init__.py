"""Every data world, one module each, and the registry of them (WORLDS): the only list of worlds.

A world is one module, engine/scenarios/<name>.py, that ends with its record,
`RECORD = WorldRecord(...)` (engine.spec.WorldRecord), and one line in REGISTRY below. The record:
  name, label       its value of Config.scenario; one line for people
  make_dataset(cfg, space) → engine.data.Dataset (fields below)
  settings          {name: Spec(kind, lo, hi, default=…, help=…, shown=…)}: the settings only this
                    world uses, declared here once (Config's fields, the CLI's --set, the URL
                    and the sidebar derive from them; the sidebar shows them for it alone)
  shared            settings declared elsewhere that this one reads too: another world's, or a
                    common one its own shown rule would hide (gfl_parity_blocks reads p_a)
  check(cfg)        its own rules between settings (ConfigError naming the setting to change);
                    engine.config.validate runs it after the rules every world shares
                    (engine/relations.py)
  presets           its engine.preset.Preset records (engine.presets lists them in registry order)
  procedures        the training procedures it runs with, its default first (engine/procedures/:
                    "shi2022": the paper's three stages; "fcb2022": Frei, Chatterji & Bartlett's
                    trainer; "resnet3": Allen-Zhu & Li's; "gfl": Shi's Algorithm 1); a
                    procedure brings its methods, its runs, their sizing and its own settings
  procedure_options per procedure, what this world tells it (gfl: scenarios.gfl.options.GFLOptions;
                    spec §2.2's single rule when left out)
  pattern_space     True when noise-free data may be stored in pattern coordinates (D wide)
  dictionary        True when the data is drawn through a d×D dictionary M (the guard counts it)
  batched_sweeps    True when engine.sweep.batched reproduces its runs (tested for the paper's)
and, optionally,
  input_dim(cfg)    the width of x when it is not cfg.d (real data: the image size)
  download_setting(cfg)  the setting that makes it download data, or None (the guard refuses it
                    on a server with downloads off)
  make_run(method, world, embed, freeze_after)  its own run of a method under the shi2022
                    procedure (teacher_student's probes), or None for the engine's
  pins(cfg)         {setting: (value, why)} its rules fix to one value (azl_hier: d = 30, k);
                    validate refuses another, from_dict sets them, the sidebar shows them as text
  common            the common settings it reads, when not all of them (the others are hidden in
                    its sidebar and refused where given; azl_hier: d, k, n, n_test, seed, m,
                    T, batch; "training" stands for every common setting outside the data
                    group, which the procedure's `reads` then decides)

What the dashboard reads from a Dataset (declared fields; defaults mean "sparse coding"):
  has_truth        False: no ±Σ_A M stars and no relevant/background gradient split to show
  centres          K×r cluster centres / labelled vectors in the data coordinates (like weights)
  centre_labels    K labels (±1) of the centres, for two colours
  extras           a world's own arrays by name: real_train/real_test boolean masks of the
                   real-digit rows of z_train / z_test; clean_test (labels before flips)
A world's own runs may yield ScenarioSnapshot (a Snapshot with an `extra` dict of per-step
numbers that scalars() includes); the engine's runs yield the engine's Snapshot.
"""

from __future__ import annotations

import dataclasses
from importlib import import_module
from typing import TYPE_CHECKING

from ..data import Dataset
from ..errors import ConfigError
from ..spec import WorldRecord
from ._common import (
    DATA_COMMON,
    TRAINING,
    centre_cosines,
    centre_coverage,
    neighbour_cosine,
    two_cluster_score,
)

if TYPE_CHECKING:  # annotations only: the settings sit above the worlds
    from ..settings import Settings as Config  # the Protocol: engine/config.py sits above

# The registry: one line per world (its module's name here); the first is the default world.
REGISTRY = (
    "sparse_coding",
    "dm_parity",
    "hidden_repr",
    "mog",
    "real",
    "fcb",
    "teacher_student",
    "gfl_xor",
    "gfl_uniform_parity",
    "gfl_multi_index",
    "gfl_linear",
    "gfl_parity_blocks",
    "gfl_mog",
    "azl_hier",
)
WORLDS: dict[str, WorldRecord] = {
    record.name: record for record in (import_module(f"{__name__}.{m}").RECORD for m in REGISTRY)}
WORLD_SETTINGS = frozenset(name for r in WORLDS.values() for name in r.settings)

__all__ = ["REGISTRY", "WORLDS", "WORLD_SETTINGS", "world", "shows", "pinned", "with_pins",
           "input_dim", "pattern_space", "dictionary", "download_setting", "make_dataset",
           "make_run", "headline", "centre_cosines", "centre_coverage", "neighbour_cosine",
           "two_cluster_score", "scenario_presets"]


def world(cfg: Config) -> WorldRecord:
    """The record of cfg's world (ConfigError for an unknown one)."""
    if cfg.scenario not in WORLDS:
        raise ConfigError("scenario", cfg.scenario, "one of " + ", ".join(WORLDS))
    return WORLDS[cfg.scenario]


def shows(name: str, cfg: Config, spec=None) -> bool:
    """Whether the sidebar shows setting `name` (its Spec `spec`) for cfg: a world's own
    setting only in the worlds that use it, and only where its `shown` rule holds."""
    record = world(cfg)
    if name in WORLD_SETTINGS and name not in record.uses:
        return False
    if not reads_common(record, name):
        return False
    if name in record.reads_if and not record.reads_if[name][0](cfg):
        return False
    if name in record.shared:  # the world reads it whatever the setting's own rule says
        return True
    return spec is None or spec.shown is None or bool(spec.shown(cfg))


def pinned(cfg: Config) -> dict:
    """{setting: (value, why)} of the settings cfg's world fixes (WorldRecord.pins)."""
    pins = WORLDS[cfg.scenario].pins if cfg.scenario in WORLDS else None
    return {} if pins is None else pins(cfg)


def with_pins(cfg: Config, given=()) -> Config:
    """cfg with its world's pinned settings at their values, except those in `given` (a user's
    own value is validated, not overwritten): picking the AZL world or its variant sets d, k."""
    fixed = {n: v for n, (v, _) in pinned(cfg).items() if n not in given}
    return dataclasses.replace(cfg, **fixed) if fixed else cfg


def reads_common(record: WorldRecord, name: str) -> bool:
    """False for a common setting the world ignores (scenario and procedure it always reads);
    True for every other setting (a world's own are the `uses` rule's)."""
    if record.common is None or name in WORLD_SETTINGS:
        return True
    if TRAINING in record.common and name not in DATA_COMMON:  # the procedure's to read
        return True
    return name in ("scenario", "procedure", *record.common)


def input_dim(cfg: Config) -> int:
    """The width d of the world's inputs x."""
    dim = world(cfg).input_dim
    return cfg.d if dim is None else dim(cfg)


def pattern_space(cfg: Config) -> bool:
    """Whether the engine stores this setting's data in pattern coordinates (D wide)."""
    return world(cfg).pattern_space and cfg.noise == 0


def dictionary(cfg: Config) -> bool:
    """Whether the data is drawn through a d×D dictionary M."""
    return world(cfg).dictionary


def download_setting(cfg: Config) -> str | None:
    """The setting that makes this world download data, or None."""
    hook = world(cfg).download_setting
    return None if hook is None else hook(cfg)


def make_dataset(cfg: Config, space: str = "auto") -> Dataset:
    """The Dataset of cfg's world."""
    return world(cfg).make_dataset(cfg, space)


def make_run(method: str, built, embed: bool = True, freeze_after: int | None = None):
    """The world's own run for a method on a built world (engine.run.World; its own trainer or
    probes), or None when the engine's Run serves it unchanged."""
    maker = world(built.cfg).make_run
    return None if maker is None else maker(method, built, embed, freeze_after)


def scenario_presets() -> list:
    """Every world's presets, in the registry's order."""
    return [p for r in WORLDS.values() for p in r.presets]


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
