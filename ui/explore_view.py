"""Drawing the Explore page: player buttons, counter, metrics, charts, scrubber, downloads."""

from __future__ import annotations

import json
import math

import streamlit as st

from engine.presets import PRESETS
from engine.report import build_report, history_csv
from ui import explore_text, figures, live
from ui.state import AppState

SCRUB_KEY = "scrub_step"
COLOUR_KEY = "w_colour_by"
SPEED_KEY = "w_speed"
SMOOTHING_KEY = "acc_smoothing"


def play(state: AppState) -> None:
    if state.run is not None and state.run.done:
        live.reset(state)  # Play at the end starts over
    state.playing, state.scrub = True, None


def pause(state: AppState) -> None:
    state.playing = False


def step(state: AppState) -> None:
    state.playing, state.scrub = False, None
    state.pending += 1


def reset(state: AppState) -> None:
    state.playing = False
    if state.world is not None:
        live.reset(state)


def on_speed(state: AppState) -> None:
    state.speed = st.session_state[SPEED_KEY]


def on_scrub(state: AppState) -> None:
    """Looking back pauses the run; the newest step resumes following it."""
    value = st.session_state[SCRUB_KEY]
    last = len(state.run.history) - 1
    state.scrub = None if value >= last else value
    if state.scrub is not None:
        state.playing = False


def player(state: AppState) -> None:
    """Play / Pause / Step / Reset and the speed control (full reruns: they toggle the timer)."""
    done = state.run is None or state.run.done or bool(state.error)
    cols = st.columns([1, 1, 1, 1, 3], vertical_alignment="bottom")
    cols[0].button("Play", icon=":material/play_arrow:", on_click=play, args=(state,),
                   disabled=state.playing or bool(state.error) or state.run is None,
                   width="stretch", type="primary")
    cols[1].button("Pause", icon=":material/pause:", on_click=pause, args=(state,),
                   disabled=not state.playing, width="stretch")
    cols[2].button("Step", icon=":material/skip_next:", on_click=step, args=(state,),
                   disabled=done, width="stretch")
    cols[3].button("Reset", icon=":material/replay:", on_click=reset, args=(state,),
                   disabled=state.run is None, width="stretch")
    if SPEED_KEY not in st.session_state:
        st.session_state[SPEED_KEY] = state.speed
    cols[4].select_slider("Speed (steps per update)", live.SPEEDS, key=SPEED_KEY,
                          on_change=on_speed, args=(state,))


def counter(state: AppState, i: int) -> None:
    """`step t / T` (and the step on screen when scrubbing back)."""
    st.markdown(_counter_text(state, i))


def _counter_text(state: AppState, i: int) -> str:
    # Built apart from the st call: a rerun interrupts inside st.*, and a frame holding the
    # Run there would keep it alive beside the next one.
    run = state.run
    extra = f" · showing step {run.history[i].step}" if i != len(run.history) - 1 else ""
    status = " · playing" if state.playing else " · finished" if run.done else ""
    newest = run.history[-1].step  # the last recorded step (a diverged one is not recorded)
    return f"#### step {newest} / {run.T}{extra}{status}"


def metrics(state: AppState, i: int) -> None:
    snap = state.run.history[i]
    ratio = snap.grad.get("grad_ratio", math.nan) if snap.grad else math.nan
    cols = st.columns(4)
    cols[0].metric("max cosine with Σ_A M", f"{snap.cos_max:.3f}",
                   help="max over neurons of cos(w_i, Σ_A M)")
    cols[1].metric("test accuracy", f"{100 * snap.test_acc:.1f}%")
    cols[2].metric("train accuracy", f"{100 * snap.train_acc:.1f}%")
    cols[3].metric("gradient ratio relevant/background",
                   "—" if not math.isfinite(ratio) else f"{ratio:.3g}",
                   help="‖relevant part‖ / ‖background part‖ of ∂L/∂w_i (RMS over neurons)")


def charts(state: AppState, i: int) -> None:
    """The map on the left, gradient components and accuracy on the right."""
    snap, truth = state.run.history[i], live.has_truth(state)
    left, right = st.columns([1.1, 1])
    with left:
        points, cos, marks = live.map_data(state, i)
        fig = figures.map_figure(points, cos, snap.a, snap.b, state.colour_by, marks, snap.step)
        st.plotly_chart(fig, width="stretch", key="map")
        if COLOUR_KEY not in st.session_state:
            st.session_state[COLOUR_KEY] = state.colour_by
        st.segmented_control("Colour neurons by", ["cosine", "sign of a_i"], key=COLOUR_KEY,
                             on_change=_on_colour, args=(state,))
    with right:
        if truth:
            st.plotly_chart(figures.gradient_figure(state.run.history, i), width="stretch",
                            key="grad")
            if snap.step > 0 and not snap.grad:  # the engine records no split of a zero gradient
                st.caption("At this step the loss gradient on w is exactly zero: every sample of "
                           "the batch has margin y·g(x) ≥ 1, so the hinge loss is flat and the "
                           "log-scale curves leave a gap.")
        else:
            st.info("This data has no single planted Σ_A M, so the gradient has no "
                    "relevant/background split to show.")
        smoothing = st.session_state.get(SMOOTHING_KEY, 0.0)
        st.plotly_chart(figures.accuracy_figure(state.run.history, i, smoothing),
                        width="stretch", key="acc")
        st.slider("Accuracy smoothing", 0.0, 0.95, 0.0, 0.05, key=SMOOTHING_KEY,
                  help="exponential moving average of the accuracy curves (as in TensorBoard); "
                       "the raw curves stay drawn faintly; the metrics above are raw")


def _on_colour(state: AppState) -> None:
    state.colour_by = st.session_state[COLOUR_KEY] or "cosine"


def scrubber(state: AppState, i: int) -> None:
    """A slider over the recorded steps."""
    hist = state.run.history
    if len(hist) < 2:
        return
    st.session_state[SCRUB_KEY] = i
    st.slider("Recorded step to show (drag back in time)", 0, len(hist) - 1, key=SCRUB_KEY,
              on_change=on_scrub, args=(state,),
              help="every step is kept; the newest step follows the run")


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
    """(CSV, JSON, last step), built with no st call under way (see _counter_text)."""
    run = state.run
    report = build_report(state.run_cfg, {"network": run}, str(state.world.device),
                          {"setup_s": state.build_s, "train_s": run.history[-1].elapsed},
                          preset=PRESETS.get(state.preset) if state.preset else None)
    return history_csv({"network": run}), json.dumps(report, indent=1), run.history[-1].step


def stage_text(state: AppState, i: int) -> None:
    snap = state.run.history[i]
    st.info(explore_text.look_for(snap.stage, live.has_truth(state)),
            icon=":material/visibility:")
