"""Which settings a run reads: a setting its world or labeling ignores is refused when a user
gives it (CLI, link, sweep), and left out of the links and commands the pages print."""

from __future__ import annotations

from collections.abc import Iterable

from .config import SPECS, Config, ConfigError, diff
from .procedures import owner_of, procedure_of
from .scenarios import WORLDS, reads_common, shows

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


def sidebar_shows(name: str, cfg: Config) -> bool:
    """Whether the sidebar shows setting `name` for cfg: a procedure's own where it trains the
    run, a world's own where the world reads it (engine.scenarios.shows)."""
    if owner_of(name) is not None:
        return bool(SPECS[name].shown(cfg))
    return shows(name, cfg, SPECS[name])
