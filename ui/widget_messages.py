"""The player widget's messages (want, have, view) as the server accepts them.

They come from the browser, so anyone can send anything: `want.n = "abc"`, Infinity, `[1]`, a
deep nest. Each field is taken only when it has the expected type and range; otherwise the
message (or the field) is ignored with one log line, never a traceback or an error box
(issue 38, Low 9). Used by ui/player_view.py.
"""

from __future__ import annotations

import logging
import math

MAX_FRAMES = 1_000_000  # more than any run's frames (FEX_MAX_T is at most 5000 by default)
MAX_STEP = 100_000
log = logging.getLogger(__name__)


def message(raw, name: str) -> dict:
    """raw when it is a dict, else {} (with one log line when it was something)."""
    if isinstance(raw, dict):
        return raw
    if raw not in (None, ""):
        ignored(name, f"a {type(raw).__name__}, not an object")
    return {}


def number(value):
    """value as a finite int or float (a number, or its ASCII text: the URL's view values are
    text), else None."""
    if isinstance(value, str) and len(value) <= 24 and value.isascii():
        try:
            value = float(value) if any(c in value for c in ".eE") else int(value)
        except ValueError:
            return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value if math.isfinite(value) else None


def whole(value, lo: int, hi: int):
    """value as an int in [lo, hi] (an integral finite number or its text), else None."""
    value = number(value)
    if value is None or (isinstance(value, float) and not value.is_integer()):
        return None
    return int(value) if lo <= value <= hi else None


def count(value, name: str, default: int | None = None):
    """A frame count from the browser, or `default` (with one log line) when it is not one."""
    if value is None:
        return default
    got = whole(value, 0, MAX_FRAMES)
    if got is None:
        ignored(name, f"{_shown(value)} is not a whole number of frames in [0, {MAX_FRAMES}]")
        return default
    return got


def text(value) -> str:
    """A run id: a short string, else ''."""
    return value if isinstance(value, str) and len(value) <= 64 else ""


def view(value, speeds, colours, smoothings) -> dict:
    """Only known view values within their ranges (they come from the browser or the URL)."""
    value = message(value, "view")
    out: dict = {}
    speed, smooth = value.get("speed"), value.get("smooth")
    if whole(speed, 0, max(speeds)) in speeds:
        out["speed"] = int(speed)
    if isinstance(value.get("colour"), str) and value["colour"] in colours:
        out["colour"] = value["colour"]
    if number(smooth) is not None and number(smooth) in smoothings:
        out["smooth"] = float(number(smooth))
    step = whole(value.get("step"), 0, MAX_STEP)
    if step is not None:
        out["step"] = step
    return out


def ignored(name: str, why: str) -> None:
    log.warning("player message %s ignored: %s", name, why)


def _shown(value) -> str:
    """A short, plain rendering of a bad value for the log line."""
    text_ = repr(value) if not isinstance(value, (list, dict)) else type(value).__name__
    return text_[:40]
