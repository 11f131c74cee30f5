"""Which settings a run reads: a setting its world or labeling ignores is refused when a user
gives it (CLI, link, sweep), and left out of the links and commands the pages print."""

from __future__ import annotations

from collections.abc import Iterable

from .config import COMMON, SPECS, Config, ConfigError, diff
from .limits.reads import ridge_unread
from .procedures import owner_of, procedure_of
from .scenarios import WORLDS, pinned, reads_common, shows

# the common settings of how a network trains: each procedure names those it reads (its record's
# `reads`; None: all); the data settings are the world's to read
TRAINING_GROUPS = ("network", "steps", "baselines")

# what a setting shown only under one labeling or schedule (its Spec.shown rule) needs, in
# words for the refusal; the settings of one data world alone are declared by that world
NEEDS = {"P": "labeling=custom", "t1": "labeling=interval", "t2": "labeling=interval",
         "p_a": "a labeling other than parity", "theory": "schedule=theory"}


def unread_reason(name: str, cfg: Config) -> str | None:
    """Why cfg's run ignores setting `name`, or None when it reads it."""
    owner = owner_of(name)  # a procedure's own setting: read where that procedure trains
    if owner is not None:
        running = procedure_of(cfg).name
        return None if owner == running else (
            f"only read by procedure={owner}, and this run's procedure is {running}")
    if not reads_common(WORLDS[cfg.scenario], name):
        return f"the {cfg.scenario} world does not read it"
    if not procedure_reads(name, cfg):
        return f"the {procedure_of(cfg).name} procedure does not read it"
    if name == "limit_ridge":  # read by the limits where a method trains without decay
        why = ridge_unread(cfg, procedure_of(cfg).name)
        if why is not None:
            return why
    rule = WORLDS[cfg.scenario].reads_if.get(name)
    if rule is not None and not rule[0](cfg):
        return f"the {cfg.scenario} world reads it only {rule[1]}"
    if not shows(name, cfg):
        owners = [w for w, r in WORLDS.items() if name in r.uses]
        return (f"only read by scenario={' or '.join(owners)}, and this run's scenario is "
                f"{cfg.scenario}")
    if name in NEEDS and not shows(name, cfg, SPECS[name]):
        return f"only read with {NEEDS[name]}; leave it out or set that first"
    return None


def refuse_unread(cfg: Config, given: Iterable[str]) -> None:
    """ConfigError naming the first given setting cfg's run would ignore, and why."""
    for name in given:
        reason = unread_reason(name, cfg)
        if reason is not None:
            raise ConfigError(name, getattr(cfg, name), f"a setting this run reads ({reason})")


def read_diff(cfg: Config) -> dict:
    """The settings that differ from the default and that cfg's run reads (links, commands)."""
    return {k: v for k, v in diff(cfg).items() if unread_reason(k, cfg) is None}


def procedure_reads(name: str, cfg: Config) -> bool:
    """False for a common training setting that cfg's procedure does not read (its `reads`)."""
    spec = COMMON.get(name)
    if spec is None or spec.group not in TRAINING_GROUPS or name == "procedure":
        return True
    try:
        reads = procedure_of(cfg).reads
    except ConfigError:  # a procedure the world refuses: validation names it
        return True
    return reads is None or name in reads


def sidebar_shows(name: str, cfg: Config) -> bool:
    """Whether the sidebar shows a control for setting `name` for cfg: a procedure's own where
    it trains the run, a world's own where the world reads it (engine.scenarios.shows), a
    common one where the world and the procedure read it; never a pinned one (fixed text)."""
    if name in pinned(cfg):
        return False
    if owner_of(name) is not None:
        return bool(SPECS[name].shown(cfg))
    return (shows(name, cfg, SPECS[name]) and procedure_reads(name, cfg)
            and (name != "limit_ridge" or ridge_unread(cfg, procedure_of(cfg).name) is None))
