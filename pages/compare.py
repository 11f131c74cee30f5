"""Compare page: learned vs fixed features on the same data and initialisation, live."""

from __future__ import annotations

import contextlib
import json

import streamlit as st

from engine import exports
from engine.config import ConfigError
from engine.echo import markdown_plain
from engine.limits import show as limit_show
from engine.methods import LABELS
from engine.presets import PRESETS
from engine.procedures import source_of
from engine.procedures.told import said
from engine.report import cell, credited
from ui import compare_view as cv
from ui import controls, limits_view
from ui.compare_charts import charts_panel
from ui.explore_text import header
from ui.figures import accuracy_figure
from ui.router import ensure_router
from ui.state import (
    get_state,
    preset_param,
    read_url,
    show_url_warnings,
    write_url,
)

ensure_router()

SMOOTHING_KEY, SMOOTHING_DEFAULT = "compare_smoothing", 0.6
LIMITS_SHOWN = "compare_limits_shown"  # session key: id(stream) whose limits forced one redraw
TICK_S = 0.3  # seconds between live updates (2–5 redraws a second stay smooth)

state = get_state()
read_url(state)
controls.sidebar(state)

st.title("Compare: learned features vs fixed features")
PROC = cv.procedure(state)  # its methods, labels, table and words (engine/procedures)
st.caption(f"{said(PROC.table.intro, state.cfg)} Source: {source_of(state.cfg).citation}.")
show_url_warnings(state)


def setting_row() -> None:
    """The current setting (changed in the sidebar, shared with Explore)."""
    preset, named = cv.paper_preset(state), cv.named_preset(state)
    tag = f" · preset **{named.name}**" if named else ""
    st.markdown(f"Setting: {header(state.cfg)}{tag}")
    if preset is not None:
        paper_numbers(preset)
    elif state.preset is None and PROC.table.claims_note:  # a source with numbers to show
        st.caption(f"Pick a preset of {source_of(state.cfg).citation} in the sidebar to see "
                   "its published numbers beside ours.")


def paper_numbers(preset) -> None:
    """The paper's row of numbers for this preset, shown at once (ours join them when done)."""
    rows = ["| paper | " + " | ".join(LABELS.get(m, m) for m in preset.paper) + " |",
            "|---|" + "---|" * len(preset.paper)]
    for key, name in (("train_acc", "train %"), ("test_acc", "test %"), ("cos", "cos")):
        cells = [entry.get(key) for entry in preset.paper.values()]
        rows.append(f"| {name} | " + " | ".join("—" if v is None else cell(key, v) for v in cells)
                    + " |")
    st.markdown(f"**The paper's numbers** ({preset.source}):\n\n" + "\n".join(rows))


def _methods_changed() -> None:
    state.compare.methods = cv.ordered(st.session_state["compare_methods"], PROC)


def play_controls() -> int:
    """Method choice, seed count, Play / Pause / Reset; returns the seed count."""
    c1, c2 = st.columns([4, 1])
    labels = PROC.labels()
    c1.multiselect("Methods", PROC.names, default=list(cv.chosen(state)),
                   key="compare_methods", format_func=labels.get, on_change=_methods_changed,
                   help=f"The methods of the {PROC.name} procedure ({PROC.source.citation}); "
                        "default: " + ", ".join(labels[m] for m in PROC.defaults) + ".")
    # the widget's default is its current value: a remount must not reset it to 1
    seeds = int(c2.number_input("Seeds", 1, cv.MAX_SEEDS, st.session_state.get("compare_seeds", 1),
                                key="compare_seeds",
                                help="Mean ± std over seeds seed, seed+1, … (the paper used 5)."))
    b1, b2, b3, _ = st.columns([1, 1, 1, 4])
    ok = bool(cv.chosen(state))
    b1.button("Play", icon=":material/play_arrow:", type="primary", key="compare_play",
              disabled=not ok or state.compare.playing, on_click=cv.play, args=(state, seeds))
    b2.button("Pause", icon=":material/pause:", key="compare_pause",
              disabled=not state.compare.playing, on_click=cv.pause, args=(state,))
    b3.button("Reset", icon=":material/restart_alt:", key="compare_reset",
              on_click=cv.reset, args=(state,))
    if not ok:
        st.info("Choose at least one method to compare.")
    return seeds


def downloads(state, report: dict) -> None:
    """CSV of the per-step curves and the JSON report (same schema as the CLI)."""
    stream = state.compare.stream
    try:  # sized before anything is built (engine/exports.py); built when pressed
        exports.check("curves CSV and report", "T", state.cfg.T,
                      exports.table_mb(*stream.export_size()))
    except ConfigError as err:
        st.caption(f"No download on this server: {markdown_plain(str(err))}")
        return
    d1, d2, _ = st.columns([1, 1, 3])
    credit = source_of(stream.cfg).credit()
    d1.download_button("Curves (CSV)", lambda: credited(stream.csv(), credit),
                       "compare_history.csv", "text/csv", icon=":material/download:",
                       key="compare_csv")
    d2.download_button("Report (JSON)", lambda: json.dumps(report, indent=1),
                       "compare_report.json", "application/json", icon=":material/download:",
                       key="compare_json")


def headline(report: dict) -> None:
    """The paper's comparisons at a glance: gaps in test accuracy."""
    items = cv.headlines(report)
    for col, (label, gap, detail) in zip(st.columns(max(len(items), 1)), items, strict=False):
        col.metric(label, gap, help=detail)


def table(report: dict) -> None:
    """Table 1's layout, with and without structure side by side."""
    headline(report)
    st.subheader(said(PROC.table.title, state.cfg, report.get("truth")))
    if PROC.table.footer is not None:
        st.caption(PROC.table.footer(report["config"]))
    if note := cv.cos_note(report):
        st.caption(note[0].upper() + note[1:] + ".")
    if report.get("diverged_at") is not None:
        st.caption(f"The run diverged at step {report['diverged_at']}: the table, the curves and "
                   "the downloads show every step before it.")
    for title, frame in cv.tables(report):
        st.markdown(f"**{title}**")
        st.dataframe(frame.rename_axis("measure"), width="stretch")  # no empty header
    preset = report.get("preset")
    if preset:
        st.caption(f"Paper numbers: {PRESETS[preset].source} ({PROC.table.claims_note}). "
                   "Δ is ours − paper, in points (cosine: absolute); ✓ marks a difference "
                   "within 3 points (0.05 in cosine), ✗ a larger one.")
    st.caption("The same table from the command line (mean ± std over 5 seeds):")
    st.code(cv.cli_command(state), language="bash")
    if state.cfg.classifier == "logreg":
        st.caption("RF, One Step and Two Step: a tuned logistic regression on the frozen "
                   "features (classifier=logreg).")


def limits_pending() -> bool:
    """True while the finished comparison's converged limits are still being computed."""
    stream = state.compare.stream
    return stream is not None and stream.limits_pending()


@st.fragment(run_every=TICK_S if state.compare.playing or limits_pending() else None)
def live() -> None:
    """One tick: advance the comparison, then draw the counter, curves, table and downloads."""
    if state.compare.playing:
        building = not state.compare.running
        wait = st.spinner("Drawing the data and the initial network…", show_time=True)
        with wait if building else contextlib.nullcontext():
            cv.advance(state)
        if not state.compare.playing:
            st.rerun()  # the timer stops with a full rerun
    if state.compare.error:
        st.error(state.compare.error, icon=":material/error:")
    step, T, seed, seeds = cv.progress(state)
    seed_txt = f" · seed {seed} / {seeds}" if seeds > 1 else ""
    st.container(key="fe_step").markdown(f"## step {step} / {T}{seed_txt}")  # size: ui/a11y
    st.progress(min(step / max(T, 1), 1.0))
    if state.compare.estimate:
        st.caption(f"Estimated cost per seed: {state.compare.estimate}.")
    stream = cv.shown(state)  # the comparison stream once built: rows, meta, limits
    meta = None if stream is None else stream.meta()
    limits = {}
    if state.compare.summary is not None and stream is not None:
        waiting = stream.limits_pending()
        limits = stream.limits()
        limit_show.attach(state.compare.summary, limits)
        if waiting:
            st.caption("Computing each fixed-feature method's converged limit (engine/limits)…")
        elif limits and st.session_state.get(LIMITS_SHOWN) != id(stream):
            st.session_state[LIMITS_SHOWN] = id(stream)
            st.rerun()  # the last limit is in: redraw the table and stop the timer
    if meta is not None and meta["own_panel"]:
        charts_panel(stream)
    elif meta is not None:
        smoothing = st.session_state.get(SMOOTHING_KEY, SMOOTHING_DEFAULT)
        fig = limits_view.add_lines(accuracy_figure(stream.rows(), stream.T,
                                                    smoothing=smoothing, proc=PROC),
                                    limits, stream.T)
        st.plotly_chart(fig, key="compare_curves", config={"displaylogo": False})
        if limits and not limits_pending():
            st.caption("Dashed: each fixed-feature method's converged limit — the same loss and "
                       "decay solved to a certificate (duality gap or gradient norm ≤ 1e-4; λ → 0 "
                       "where the method trains without decay), "
                       "beside its T-step curve.")
            path = limits_view.path_figure(limits)  # where a limit is λ → 0: its ridge path
            if path is not None:
                st.plotly_chart(path, key="compare_limit_path", config={"displaylogo": False})
        if meta["regression"]:
            st.caption("A regression world: each curve is the test MSE / Var(y) — 1 is no better "
                       "than predicting the mean, 0 is a perfect fit; lower is better.")
        st.slider("Curve smoothing", 0.0, 0.95, smoothing, 0.05, key=SMOOTHING_KEY,
                  help="exponential moving average of each curve (as in TensorBoard); the raw "
                       "per-step curves stay drawn faintly. The table always shows raw numbers.")
    elif not state.compare.error:
        st.info("Press **Play** to train the chosen methods side by side.")
    if state.compare.summary is not None:
        table(state.compare.summary)
        downloads(state, state.compare.summary)


setting_row()
seeds = play_controls()
cv.sync(state, seeds)
write_url(state.cfg, state.compare.methods, preset_param(state))  # "Copy link" at the top shares it
try:
    live()
except ConfigError as err:  # a setting the engine refuses while drawing: one line, no traceback
    st.error(str(err))
