"""Standalone exports of a run for slides: one offline HTML player, and an animated GIF map."""

from __future__ import annotations

import html
import json
import threading
import time
from collections.abc import Callable

from engine import exports
from engine.config import ConfigError
from engine.echo import plain
from engine.procedures import source_of
from ui import playback
from ui.gif import Cancelled, export_gif  # noqa: F401  (the page's second export lives here)
from ui.state import AppState

BOOT_JS = """
const data = JSON.parse(document.getElementById("fe-data").textContent);
const store = new FE.Store(data.meta);
store.append(data.frames, 0);
store.done = true;
if (data.limits) store.limits = data.limits;
const player = new FEPlayer(document.getElementById("fe-root"), {});
player.setStore(store, 0);
player.setOptions({theme: document.body.dataset.theme});
"""


def export_html(state: AppState, title: str) -> str:
    """One self-contained file: every frame of the run, the player's code and style inline;
    ResourceError (one line) when its estimate is over the guard's limit."""
    n = len(state.explore.stream)
    run_meta = playback.meta(state, "export")
    exports.check("offline HTML player", "T", state.explore.run_cfg.T,
                  exports.html_mb(n, run_meta["points"]))
    data = {"meta": run_meta, "frames": playback.pack(state, 0, n),
            "limits": playback.limits(state)}
    credit = html.escape(source_of(state.explore.run_cfg or state.cfg).credit())
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>body{{margin:16px;font-family:sans-serif}}"
        f"{playback.player_css()}</style></head><body data-theme='light'>"
        # one main landmark and a first-level heading (axe: landmark-one-main, page-has-heading-one)
        f"<main><h1 style='margin:0 0 4px;font-size:1.5em'>{html.escape(title)}</h1>"
        "<p style='margin:0 0 8px;color:#666'>Offline copy of a run of the feature-emergence "
        f"explorer: {credit}.</p><div id='fe-root'></div>"
        f"<script type='application/json' id='fe-data'>{payload}</script>"
        f"<script>{playback.player_js()}\n{BOOT_JS}</script></main></body></html>")


def sizes(state: AppState) -> dict[str, tuple[str, float]]:
    """Each download's name and peak MB while it is built, counted from the run's length and
    map before anything is built."""
    stream = state.explore.stream
    n = len(stream)
    p = state.explore.player or {}
    points = (p.get("meta") or playback.meta(state, "size"))["points"]
    columns = len(stream.frames(n - 1, n)["rows"][0])
    return {"csv": ("metrics CSV", exports.table_mb(n, columns)),
            "json": ("report JSON", exports.table_mb(n, columns)),
            "html": ("offline HTML player", exports.html_mb(n, points)),
            "gif": ("map GIF", exports.gif_mb(len(exports.gif_frames(n)), points))}


def refusals(state: AppState, sized: dict | None = None) -> dict[str, str]:
    """The downloads this run is too large for, each with the guard's one-line refusal."""
    cfg = state.explore.run_cfg
    out = {}
    for key, (what, mb) in (sized or sizes(state)).items():
        setting = ("m", cfg.m) if key == "gif" else ("T", cfg.T)
        try:
            exports.check(what, *setting, mb)
        except ConfigError as err:
            out[key] = str(err)
    return out


PREPARE_WAIT_S = 1.0  # a page waits this long for its files (small runs: all of them) …
POLL_S = 0.5  # … then the downloads row polls while the rest are prepared


class Prepared:
    """A run's download files built in a background thread, in order, before any button is
    offered: a click fetches bytes already made (a file built on click, by Streamlit's deferred
    download, sometimes never came: "deferredFile … timed out", nothing on the page)."""

    def __init__(self, builders: dict[str, Callable[[], str | bytes]],
                 done: Callable[[int], None] | None = None,
                 alive: Callable[[], bool] | None = None):
        self.files: dict[str, bytes] = {}
        self.errors: dict[str, str] = {}
        # a page whose browser left stops before its next file (the GIF: before its next
        # frame): departed sessions' builds took ~56 s of CPU each and held their lease
        self.alive, self.cancelled = alive, False
        self.thread = threading.Thread(target=self._build, args=(builders, done), daemon=True,
                                       name="fex-downloads")
        self.thread.start()

    def _build(self, builders: dict, done: Callable[[int], None] | None) -> None:
        try:
            self._build_all(builders)
        finally:  # the hub's lease of this build ends with the bytes the files keep
            if done is not None:
                done(sum(len(data) for data in self.files.values()))

    def _build_all(self, builders: dict) -> None:
        for key, build in builders.items():
            if self.alive is not None and not self.alive():
                self.cancelled = True
                return
            try:
                data = build()
                self.files[key] = data.encode() if isinstance(data, str) else bytes(data)
            except ConfigError as err:  # the guard's one-line refusal
                self.errors[key] = str(err)
            except Cancelled:
                self.cancelled = True
                return
            except Exception as err:  # noqa: BLE001 - the page says it, the others go on
                first = str(err).splitlines()[0] if str(err) else ""
                self.errors[key] = plain(f"could not be prepared: {type(err).__name__}: "
                                         f"{first}", 200)

    @property
    def ready(self) -> bool:
        return not self.thread.is_alive()

    def wait(self, seconds: float = PREPARE_WAIT_S) -> None:
        deadline = time.monotonic() + seconds
        while not self.ready and time.monotonic() < deadline:
            self.thread.join(0.05)
