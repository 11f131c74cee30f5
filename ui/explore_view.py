"""The Explore page around the player: the view in the URL, downloads and exports."""

from __future__ import annotations

import json

import streamlit as st

from engine.config import summary_line
from engine.frames.report import build_report, history_csv
from engine.presets import PRESETS
from ui import export, player_view
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

    Every file is built when its button is pressed (a callable), not on every pause: building
    the report on the server took CPU from the browser beside it and slowed its first scrub.
    """
    t = len(state.explore.stream) - 1  # the last step made (frame i is step i)
    cols = st.columns(4)
    cols[0].download_button("Metrics CSV", lambda: history_csv(_frames(state)["rows"]),
                            file_name=f"explore-step{t}.csv", mime="text/csv",
                            icon=":material/download:", width="stretch")
    cols[1].download_button("Report JSON", lambda: _report(state),
                            file_name=f"explore-step{t}.json", mime="application/json",
                            icon=":material/download:", width="stretch")
    run_cfg = state.explore.run_cfg
    title = f"Feature emergence: {summary_line(run_cfg)} · T={run_cfg.T}"
    cols[2].download_button("Offline player (HTML)", lambda: export.export_html(state, title),
                            file_name=f"explore-step{t}.html", mime="text/html",
                            icon=":material/slideshow:", width="stretch",
                            help="one file with every frame and its own Play/scrub; opens "
                                 "offline from a USB stick or a slide")
    cols[3].download_button("Map animation (GIF)", lambda: export.export_gif(state),
                            file_name=f"explore-map-step{t}.gif", mime="image/gif",
                            icon=":material/animation:", width="stretch",
                            help="the MDS map, one frame per step, the step number burnt in")


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


def step_sizes(table: dict) -> None:
    """The "Step sizes of this run" table of the stream's meta: its note and rows (the
    schedule's; Algorithm 1's η⁽¹⁾ and classifier-stage rule; the AZL world's SGD per method)."""
    with st.expander("Step sizes of this run"):
        st.caption(table["note"])
        rows = table["rows"]
        # 4 significant digits: η⁽¹⁾ ≈ 4e-8 and λ_w⁽¹⁾ ≈ 1e7 in one column style
        sig4 = st.column_config.NumberColumn(format="%.4g")
        st.dataframe(rows, hide_index=True,
                     column_config={name: sig4 for name in ("η", "λ_w", "λ_a", "σ_ξ")})
