"""Rules between settings that hold in every world (D ≤ d, k ≤ D, t1 ≤ t2, …): checked by
engine.config.validate after every range. A world's own rules (odd k for the parity mixture,
D = d for DM parity, a class pair for real data) are the `check` of its record
(engine/scenarios/), which validate reads next. Functions take any object with the settings'
fields, so this module sits below the settings."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .errors import ConfigError
from .population import parity_q1, parse_counts

if TYPE_CHECKING:
    from .settings import Settings as Config  # the Protocol: engine/config.py sits above


def check_relations(cfg: Config, reads: Callable[[str], bool] = lambda name: True) -> None:
    """Raise ConfigError naming the setting to change when two settings do not fit together;
    a rule about a setting the world does not read (`reads`: D and k in gfl_xor) is skipped,
    so that its hidden default (D = 100) never refuses a run it cannot change."""
    if reads("D") and cfg.D > cfg.d:
        raise ConfigError("D", cfg.D, f"an integer in [1, d] = [1, {cfg.d}] (D ≤ d)")
    if reads("k") and reads("D") and cfg.k > cfg.D:
        raise ConfigError("k", cfg.k, f"an integer in [1, D] = [1, {cfg.D}] (k ≤ D)")
    if reads("batch") and cfg.batch > cfg.n:
        raise ConfigError("batch", cfg.batch, f"an integer in [1, n] = [1, {cfg.n}]")
    if cfg.labeling == "parity" and cfg.structure:
        parity_q1(cfg.p_o)
    if cfg.labeling == "interval":
        _check_interval(cfg)
    if cfg.labeling == "custom":
        counts = parse_counts(cfg.P, cfg.k)
        if len(counts) == cfg.k + 1:
            raise ConfigError("P", cfg.P, "a set that leaves at least one count labelled -1")
    _check_stage_settings(cfg)


def stage_optimizer(cfg: Config) -> str:
    """The classifier stage's optimizer: the setting, or the schedule's own (adam for paper)."""
    if cfg.optimizer != "auto":
        return cfg.optimizer
    return "adam" if cfg.schedule == "paper" else "sgd"


def first_layer_optimizer(cfg: Config) -> str:
    """The classifier stage's rule for the first layer: the setting, or the schedule's own (sgd
    for paper: the theory's stage 3 keeps the features; same = the output layer's rule)."""
    if cfg.optimizer_w != "auto":
        return cfg.optimizer_w
    return "sgd" if cfg.schedule == "paper" else "same"


def _check_stage_settings(cfg: Config) -> None:
    """Settings that name a stage apply to it only: momentum belongs to SGD steps."""
    if cfg.momentum and stage_optimizer(cfg) == "adam":
        raise ConfigError("momentum", cfg.momentum, "auto or 0 while the classifier stage uses "
                          "Adam (set optimizer=sgd to use SGD momentum)")


def _check_interval(cfg: Config) -> None:
    """t1 ≤ t2 ≤ k, and t2 ≥ 1 (count 0 is always labelled -1)."""
    if cfg.t2 > cfg.k:
        raise ConfigError("t2", cfg.t2, f"an integer in [max(t1, 1), k] = [{max(cfg.t1, 1)}, "
                          f"{cfg.k}] (t1 ≤ t2 ≤ k)")
    if cfg.t1 > cfg.t2:
        raise ConfigError("t1", cfg.t1, f"an integer in [0, t2] = [0, {cfg.t2}] (t1 ≤ t2 ≤ k)")
    if cfg.t2 < 1:
        raise ConfigError("t2", cfg.t2, f"an integer in [1, {cfg.k}] (count 0 is always -1)")
