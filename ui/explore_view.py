"""The Explore page around the player: the view in the URL, downloads and exports."""

from __future__ import annotations

import json

import streamlit as st

from engine.presets import PRESETS
from engine.report import build_report, history_csv
from ui import player_view
from ui.state import AppState

DEFAULT_VIEW = {"speed": 20, "colour": "cosine", "smooth": 0.0, "step": 0}


def read_view(state: AppState) -> None:
    """Take speed, colouring, smoothing and the shown step from the URL (once per session)."""
    if getattr(state, "view_read", False):
        return
    state.view_read = True
    params = {k: st.query_params.get(k) for k in ("speed", "colour", "smooth", "step")
              if k in st.query_params}
    state.view.update(player_view.clean_view(params))


def view_params(state: AppState) -> dict[str, str]:
    """The view values that differ from the defaults, as URL parameters."""
    return {k: f"{v:g}" if isinstance(v, float) else str(v) for k, v in state.view.items()
            if DEFAULT_VIEW.get(k) != v}


def downloads(state: AppState) -> None:
    """Metrics CSV and report JSON (the CLI's schema) of the run so far."""
    csv, report, t = _export(state)
    cols = st.columns(2)
    cols[0].download_button("Metrics CSV", csv, file_name=f"explore-step{t}.csv",
                            mime="text/csv", icon=":material/download:", width="stretch")
    cols[1].download_button("Report JSON", report, file_name=f"explore-step{t}.json",
                            mime="application/json", icon=":material/download:",
                            width="stretch")


def _export(state: AppState) -> tuple[str, str, int]:
    """(CSV, JSON, last step), built with no st call under way (a rerun interrupts inside
    st.*, and a frame holding the Run there would keep it alive beside the next one)."""
    run = state.run
    report = build_report(state.run_cfg, {"network": run}, str(state.world.device),
                          {"setup_s": state.build_s, "train_s": run.history[-1].elapsed},
                          preset=PRESETS.get(state.preset) if state.preset else None)
    return history_csv({"network": run}), json.dumps(report, indent=1), run.history[-1].step
