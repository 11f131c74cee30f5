"""The one error a bad setting raises, with a plain, bounded message."""

from __future__ import annotations

from typing import Any

from .echo import plain, quoted


class ConfigError(ValueError):
    """A setting is out of range; the message names the setting, the value and what is allowed."""

    def __init__(self, name: str, value: Any, allowed: str):
        self.name, self.value, self.allowed = name, value, allowed
        # name and value may be anything a user typed: one plain line of bounded length
        super().__init__(f"{plain(name, 40)}={quoted(value)} is not allowed: {allowed}")
