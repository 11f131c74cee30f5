"""Which settings a run reads: a setting its world or labeling ignores is refused when a user
gives it (CLI, link, sweep), and left out of the links and commands the pages print."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .config import Config, ConfigError, diff
from .scenarios import WORLDS, shows

# settings one labeling or schedule reads (the others ignore them); the settings of one data
# world alone are declared by that world (engine.scenarios.shows)
READ_IF: dict[str, tuple[Callable[[Config], bool], str]] = {
    "P": (lambda c: c.labeling == "custom", "labeling=custom"),
    "t1": (lambda c: c.labeling == "interval", "labeling=interval"),
    "t2": (lambda c: c.labeling == "interval", "labeling=interval"),
    "p_a": (lambda c: c.labeling != "parity", "a labeling other than parity"),
    "theory": (lambda c: c.schedule == "theory", "schedule=theory"),
}


def unread_reason(name: str, cfg: Config) -> str | None:
    """Why cfg's run ignores setting `name`, or None when it reads it."""
    if not shows(name, cfg):
        owners = [w for w, m in WORLDS.items() if name in m.SETTINGS]
        return (f"only read by scenario={' or '.join(owners)}, and this run's scenario is "
                f"{cfg.scenario}")
    rule = READ_IF.get(name)
    if rule is not None and not rule[0](cfg):
        return f"only read with {rule[1]}; leave it out or set that first"
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
