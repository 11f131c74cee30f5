"""The browser player's code, and the stream's meta and frames as the player reads them
(engine.frames packs them; this only leaves out what the player does not draw)."""

from __future__ import annotations

from pathlib import Path

from engine import exports
from engine.frames.stream import DIRECTION_COLOURS, MARK_STYLES
from ui.state import AppState

# the map's marker styles and group colours, for drawings outside the player (the GIF)
__all__ = ["DIRECTION_COLOURS", "HERE", "MARK_STYLES", "batch", "limits", "meta", "pack",
           "player_css", "player_js"]
HERE = Path(__file__).resolve().parent / "player"
# meta() keys for the page around the player (not sent to the browser)
PAGE_KEYS = ("source", "claim", "probes", "step_sizes", "report")
# frames() keys for the downloads (not sent to the browser)
DOWNLOAD_KEYS = ("rows", "summary")
BATCH = 200  # frames per message while a run is computed (a tick's new frames are fewer)
# A complete run goes out in messages of about this size: a warmed link opens with every frame
# (player_view.unsent keeps the timer on until all are sent), none too large for the browser.
DONE_BATCH_B = 4 * 2**20


def done_batch(run_meta: dict) -> int:
    """Frames per message of a complete run: ~DONE_BATCH_B (exports.html_mb's frame size)."""
    per_frame = exports.HTML_FRAME_B + int(run_meta.get("points", 0)) * exports.HTML_POINT_B
    return max(BATCH, DONE_BATCH_B // per_frame)


def player_js() -> str:
    """The drawing and playback code shared by the component and the export."""
    names = ("player.js", "map.js", "levels.js", "charts.js", "playback.js", "layout.js",
             "speak.js")
    return "\n".join((HERE / name).read_text() for name in names)


def player_css() -> str:
    return (HERE / "player.css").read_text()


def meta(state: AppState, run_id: str | None = None) -> dict:
    """The player's meta of the session's stream (run_id: another player id, e.g. an
    export's)."""
    out = {k: v for k, v in state.explore.stream.meta().items() if k not in PAGE_KEYS}
    return out if run_id is None else {**out, "run": run_id}


def pack(state: AppState, start: int, stop: int) -> dict:
    """Frames start..stop-1 of the stream as the player reads them."""
    frames = state.explore.stream.frames(start, stop)
    return {k: v for k, v in frames.items() if k not in DOWNLOAD_KEYS}


def batch(state: AppState, run_meta: dict, start: int, limit: int | None = None) -> dict:
    """The component's data: the run's meta and the frames from `start` (at most `limit`;
    by default BATCH, or DONE_BATCH of a complete run, which the browser gets at once)."""
    stream = state.explore.stream
    n = len(stream)
    if limit is None:
        limit = done_batch(run_meta) if stream.done and not stream.error else BATCH
    start = min(start, n)
    stop = min(n, start + limit)
    return {"meta": run_meta, "start": start, "frames": pack(state, start, stop),
            # done: every step taken (a stream stopped by an error says so in `error`)
            "done": stream.done and not stream.error and stop == n, "error": stream.error,
            "limits": limits(state)}


def limits(state: AppState) -> dict | None:
    """The converged limits of the chart's fixed-feature curves so far (FrameStream.limits):
    None where the chart draws none; computed off the critical path once the run is done."""
    stream = state.explore.stream
    return None if stream is None else stream.limits()
