"""Rules between settings (D ≤ d, odd k for parity, a labeling that gives both classes, …):
checked by engine.config.validate after every range; functions take any object with the
settings' fields, so this module sits below the settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import ConfigError
from .population import parity_q1, parse_counts, population_stats

if TYPE_CHECKING:
    from .config import Config


def check_relations(cfg: Config) -> None:
    """Raise ConfigError naming the setting to change when two settings do not fit together."""
    if cfg.D > cfg.d:
        raise ConfigError("D", cfg.D, f"an integer in [1, d] = [1, {cfg.d}] (D ≤ d)")
    if cfg.k > cfg.D:
        raise ConfigError("k", cfg.k, f"an integer in [1, D] = [1, {cfg.D}] (k ≤ D)")
    if cfg.batch > cfg.n:
        raise ConfigError("batch", cfg.batch, f"an integer in [1, n] = [1, {cfg.n}]")
    if cfg.labeling == "parity" and cfg.k % 2 == 0 \
            and cfg.scenario in ("sparse_coding", "dm_parity"):
        raise ConfigError("k", cfg.k, "an odd integer for the parity labeling (App. E.1.1)")
    if cfg.labeling == "parity" and cfg.structure:
        parity_q1(cfg.p_o)
    if cfg.labeling == "interval":
        _check_interval(cfg)
    if cfg.labeling == "custom":
        counts = parse_counts(cfg.P, cfg.k)
        if len(counts) == cfg.k + 1:
            raise ConfigError("P", cfg.P, "a set that leaves at least one count labelled -1")
    if cfg.scenario == "dm_parity" and cfg.D != cfg.d:
        raise ConfigError("D", cfg.D, f"D = d = {cfg.d} for Daniely-Malach sparse parity (M = I)")
    if cfg.scenario == "real":
        parse_pair(cfg.pair)
    _check_stage_settings(cfg)
    _check_classes(cfg)


def stage_optimizer(cfg: Config) -> str:
    """The classifier stage's optimizer: the setting, or the schedule's own (adam for paper)."""
    if cfg.optimizer != "auto":
        return cfg.optimizer
    return "adam" if cfg.schedule == "paper" else "sgd"


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


MIN_CLASS_FRAC = 0.005  # below this a class is too rare to learn or to measure on a test set
CLASS_KNOB = {"custom": "P", "interval": "t1", "threshold": "p_a"}


def _check_classes(cfg: Config) -> None:
    """Refuse a sparse-coding labeling that makes one class (almost) never occur."""
    if cfg.scenario != "sparse_coding" or cfg.labeling == "parity":
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


def parse_pair(text: str) -> tuple[int, int]:
    """The two class labels of a real-data subset, e.g. '0,1' -> (0, 1)."""
    if not str(text).isascii():
        raise ConfigError("pair", text, "two distinct class indices in ASCII digits like '0,1'")
    try:
        a, b = (int(t) for t in str(text).replace(";", ",").split(","))
    except ValueError:
        raise ConfigError("pair", text, "two distinct class indices like '0,1'") from None
    if a == b or min(a, b) < 0 or max(a, b) > 9:
        raise ConfigError("pair", text, "two distinct class indices in 0..9 like '0,1'")
    return a, b
