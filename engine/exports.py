"""Sizes of a run's exports, for the guard: each file is estimated before it is built and refused
in one line when the estimate is over FEX_MAX_MEMORY_MB (engine/guard.py).

The coefficients are measured by `python -m bench.exports` (server RSS growth while a file is
built; docs/hosting.md, "Exports"). Every estimate is at least the measured growth.
"""

from __future__ import annotations

from .guard import ResourceError, limit

# The GIF holds at most this many frames (steps 0, 1 and 2 always, then evenly spaced steps to
# the last): 601 keeps every step of the paper's T = 600; a longer run shows every k-th step
# and says so on each frame. Without a budget a T = 5000 GIF was 5001 frames (~100 MB).
GIF_MAX_FRAMES = 601
KEEP_FIRST = 3  # steps 0, 1, 2: the lecture's moment, always in the GIF
GIF_BASE_MB = 16.0  # the frame being drawn (RGB and palette copies), fonts, the encoder
GIF_FRAME_KB = 24.0  # one encoded 480×480 frame (measured 6-7 KB), kept in the output
GIF_POINT_B = 64  # a map point of a chosen frame: decoded position, colour, its fan slot
HTML_BASE_MB = 8.0
HTML_FRAME_B = 2000  # a frame's scalars and narration (the file: ~1 KB a frame at m = 20)
HTML_POINT_B = 8  # a map point: int16 x, y, int8 cosine and sign, base64 (×4/3)
HTML_COPIES = 6  # pack's lists, the joined base64, json.dumps, the escaped and the page string
TABLE_CELL_B = 40  # CSV/JSON: a number as text, the row dicts and the joined string
TABLE_COPIES = 3


def gif_frames(n: int, budget: int | None = None) -> list[int]:
    """History indices the GIF shows: all when they fit in the budget (GIF_MAX_FRAMES), else
    steps 0-2, evenly spaced ones, and the last."""
    budget = GIF_MAX_FRAMES if budget is None else budget
    if n <= budget:
        return list(range(n))
    first = list(range(min(KEEP_FIRST, n)))
    rest = budget - len(first)
    picked = {first[-1] + round(j * (n - 1 - first[-1]) / rest) for j in range(1, rest + 1)}
    return first + sorted(picked)


def every(frames: list[int]) -> int:
    """The typical gap between shown steps after steps 0-2 (1: every step)."""
    tail = frames[KEEP_FIRST - 1:] if len(frames) > KEEP_FIRST else frames
    return max(1, round((tail[-1] - tail[0]) / max(1, len(tail) - 1))) if tail else 1


def gif_mb(frames: int, points: int) -> float:
    """Peak MB of building a GIF of `frames` frames of `points` map points each."""
    return GIF_BASE_MB + frames * (GIF_FRAME_KB * 1024 + points * GIF_POINT_B) / 2**20


def html_mb(frames: int, points: int) -> float:
    """Peak MB of building the offline HTML player of `frames` frames."""
    per_frame = HTML_FRAME_B + points * HTML_POINT_B * 4 / 3
    return HTML_BASE_MB + HTML_COPIES * frames * per_frame / 2**20


def table_mb(rows: int, columns: int) -> float:
    """Peak MB of a CSV or JSON download of rows × columns numbers."""
    return 4.0 + TABLE_COPIES * rows * columns * TABLE_CELL_B / 2**20


def check(what: str, setting: str, value, mb: float) -> float:
    """mb, or a one-line ResourceError naming the export, the setting to reduce and the cap."""
    cap = limit("FEX_MAX_MEMORY_MB")
    if mb > cap:
        raise ResourceError(setting, value, f"a smaller value for the {what}: it would need "
                            f"about {mb:.0f} MB, more than the {cap:g} MB allowed on this "
                            f"server (FEX_MAX_MEMORY_MB)")
    return mb
