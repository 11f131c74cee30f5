"""The Explore page around the player: the view in the URL, downloads and exports."""

from __future__ import annotations

import json

import streamlit as st

from engine import exports
from engine.config import ConfigError, summary_line
from engine.frames.report import build_report, history_csv
from engine.hub import hub_enabled, peek_hub
from engine.presets import PRESETS
from engine.procedures import source_of
from engine.report import credited
from ui import export, player_view
from ui.sessions import connected, watcher_id
from ui.state import AppState

DEFAULT_VIEW = {"speed": 20, "colour": "cosine", "smooth": 0.0, "step": 0}


def read_view(state: AppState) -> None:
    """Take speed, colouring, smoothing and the shown step from the URL (once per session)."""
    if state.explore.view_read:
        return
    state.explore.view_read = True
    params = {k: st.query_params.get(k) for k in ("speed", "colour", "smooth", "step")
              if k in st.query_params}
    state.explore.view.update(player_view.clean_view(params))


def view_params(state: AppState) -> dict[str, str]:
    """The view values that differ from the defaults, as URL parameters."""
    return {k: f"{v:g}" if isinstance(v, float) else str(v) for k, v in state.explore.view.items()
            if DEFAULT_VIEW.get(k) != v}


def downloads(state: AppState) -> None:
    """Metrics CSV and report JSON (the CLI's schema) of the run so far, and the exports.

    Each is sized first (engine.exports): one too large for this server is a disabled button
    and its one-line reason under the row. The others are built once per run and length, off
    the script thread (building the report on every pause took CPU from the browser beside it),
    and a button is offered only with its file made: a click always delivers it, and a file
    that could not be made says why under the row.
    """
    n = len(state.explore.stream)
    p = state.explore.player if state.explore.player is not None else {}
    sized = export.sizes(state)
    refused = export.refusals(state, sized)
    sid = watcher_id()
    files = _files(state, lambda: connected(sid))
    prepared = p.get("files")
    if prepared is None or prepared[0] != n or prepared[1].cancelled:
        builders = {k: v[1] for k, v in files.items() if k not in refused}
        try:
            done = _lease(state, sum(sized[k][1] for k in builders))
        except ConfigError:  # not stored: the page's next full run asks again
            st.caption("The downloads are not prepared now: the server is full. Reload the "
                       "page in a minute.")
            return
        prepared = p["files"] = (n, export.Prepared(builders, done, lambda: connected(sid)))
    prepared[1].wait()
    # while files are still being made, the row alone reruns on a timer until they are
    every = None if prepared[1].ready else export.POLL_S
    st.fragment(run_every=every)(_download_row)(files, refused, prepared[1], every)


def _lease(state: AppState, mb: float):
    """The hub admits the build's peak (mb) before any of it is made, or ConfigError: the
    callback that ends the lease. Each session built ~200 MB of downloads of an m = 2 000,
    T = 600 run that nothing counted (issue 38 High 2). None without a hub."""
    hub = peek_hub() if hub_enabled() else None
    if hub is None or mb <= 0:
        return None
    token, watcher = hub.lease(state.explore.run_cfg, mb), watcher_id()
    # the files stay in the page's state and, once offered, in Streamlit's media store
    return lambda kept: hub.unlease(token, watcher, 2 * kept)


def _download_row(files: dict, refused: dict, prepared, every: float | None) -> None:
    """The row of buttons: a file made, its download; otherwise why not (or "being
    prepared")."""
    if every is not None and prepared.ready:
        # all made: the buttons are offered by one full run without the timer, not by a tick
        # that the rerun would redraw again under a click (that click was lost)
        st.rerun()
    for col, (key, (label, _, name, mime, icon, tip)) in zip(st.columns(4), files.items(),
                                                             strict=True):
        if key in prepared.files and every is None:
            col.download_button(label, prepared.files[key], file_name=name, mime=mime,
                                icon=icon, width="stretch", help=tip, key=f"dl-{key}")
        else:
            why = refused.get(key) or prepared.errors.get(key) or "being prepared…"
            col.button(label, key=f"refused-{key}", icon=icon, width="stretch", disabled=True,
                       help=why)
    for msg in refused.values():
        st.caption(f"Not offered on this server: {msg}")
    for key, msg in prepared.errors.items():
        st.caption(f"{files[key][0]} not available: {msg}")
    if not prepared.ready:
        st.caption("Preparing the downloads…")


def _files(state: AppState, alive=None) -> dict:
    """key -> label, builder, file name, mime, icon, help (the GIF's stops when not alive())."""
    t = len(state.explore.stream) - 1  # the last step made (frame i is step i)
    run_cfg = state.explore.run_cfg
    title = f"Feature emergence: {summary_line(run_cfg)} · T={run_cfg.T}"
    gif_note = _gif_note(len(state.explore.stream))
    return {
        "csv": ("Metrics CSV", lambda: credited(history_csv(_frames(state)["rows"]),
                                                source_of(run_cfg).credit()),
                f"explore-step{t}.csv", "text/csv", ":material/download:", None),
        "json": ("Report JSON", lambda: _report(state), f"explore-step{t}.json",
                 "application/json", ":material/download:", None),
        "html": ("Offline player (HTML)", lambda: export.export_html(state, title),
                 f"explore-step{t}.html", "text/html", ":material/slideshow:",
                 "one file with every frame and its own Play/scrub; opens offline from a USB "
                 "stick or a slide"),
        "gif": ("Map animation (GIF)", lambda: export.export_gif(state, alive),
                f"explore-map-step{t}.gif", "image/gif", ":material/animation:",
                f"the MDS map with each star's count, the step number burnt in; {gif_note}"),
    }


def _gif_note(frames: int) -> str:
    """How many steps the GIF shows (all up to its frame budget, else every k-th)."""
    picked = exports.gif_frames(frames)
    if len(picked) == frames:
        return "one frame per step"
    return (f"{len(picked)} frames: steps 0, 1, 2, then one per about {exports.every(picked)} "
            f"steps (at most {exports.GIF_MAX_FRAMES} frames)")


def _frames(state: AppState) -> dict:
    """Every frame of the stream so far, with the rows and summaries the downloads read."""
    stream = state.explore.stream
    return stream.frames(0, len(stream))


def _report(state: AppState) -> str:
    """The JSON report of the run so far (the CLI's schema), from the stream's meta and frames."""
    stream, frames = state.explore.stream, _frames(state)
    timing = {"setup_s": state.explore.build_s, "train_s": frames["rows"][-1].get("elapsed")}
    report = build_report(stream.meta(), frames, timing,
                          preset=PRESETS.get(state.preset) if state.preset else None)
    return json.dumps(report, indent=1)


def step_sizes(table: dict | None) -> None:
    """The "Step sizes of this run" table of the stream's meta, as the procedure's record
    declares it (its note and rows); nothing where it declares none."""
    if table is None:
        return
    with st.expander("Step sizes of this run"):
        st.caption(table["note"])
        rows = table["rows"]
        # 4 significant digits: η⁽¹⁾ ≈ 4e-8 and λ_w⁽¹⁾ ≈ 1e7 in one column style
        sig4 = st.column_config.NumberColumn(format="%.4g")
        st.dataframe(rows, hide_index=True,
                     column_config={name: sig4 for name in ("η", "λ_w", "λ_a", "σ_ξ")})
