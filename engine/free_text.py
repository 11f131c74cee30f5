"""The format of the free-text settings (P, pair), checked in every world: a value a command
line, a link or a sweep carries is then digits and commas only, whoever reads it."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .errors import ConfigError

if TYPE_CHECKING:
    from .settings import Settings as Config  # the Protocol: engine/config.py sits above

# ASCII digits only: \d would take '５' and other scripts' digits
_COUNTS = re.compile(r"[ ]*([0-9]+[ ]*[,;][ ]*)*([0-9]+[ ]*)?")
_PAIR = re.compile(r"[ ]*[0-9]+[ ]*[,;][ ]*[0-9]+[ ]*")


def check_free_text(cfg: Config) -> None:
    """ConfigError unless P is comma-separated integers (or empty) and pair two integers."""
    if not _COUNTS.fullmatch(str(cfg.P)):
        raise ConfigError("P", cfg.P, "comma-separated integers in ASCII digits, e.g. '1,3,5'")
    if not _PAIR.fullmatch(str(cfg.pair)):
        raise ConfigError("pair", cfg.pair, "two class indices in 0..9 in ASCII digits, "
                          "e.g. '0,1'")
