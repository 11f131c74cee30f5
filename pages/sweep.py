"""Sweep page: phase diagrams from a stored sweep (heat map, lines, network − NTK), downloads."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from engine.echo import markdown_plain
from ui import sweep_data as sd
from ui import sweep_run
from ui.figures import heatmap, level_line, lines
from ui.router import ensure_router
from ui.state import get_state

ensure_router()
st.title("Sweeps")
st.caption("Settings × seeds × methods from `python -m engine sweep`: where does feature "
           "learning beat fixed features? Means over seeds; the spread is on hover.")

state = get_state().sweep
sweep_run.upload_box(state)
sweep_run.run_form(state)
choices = sweep_run.sources(state)
if not choices:
    load_one = "load a .sqlite file above, " if sweep_run.uploads_allowed() else ""
    st.info("No stored sweep yet: run `python -m engine sweep ... --out sweeps/NAME`, "
            f"{load_one}or run a small sweep here.")
    st.stop()
pick = st.selectbox("sweep", list(choices), key=sweep_run.PICK_KEY,
                    format_func=lambda label: label + (" — cannot be opened" if
                                                       sweep_run.note(choices[label]) else ""))
broken = sweep_run.note(choices[pick])
if broken:  # listed, never opened: one line instead of Streamlit's error box
    st.warning(markdown_plain(f"{pick} cannot be opened: {broken}"), icon=":material/block:")
    st.stop()
store = sd.stored(choices[pick])  # read and aggregated once per content, not per click
df, axes, spec = store.df, store.axes, store.spec
if df.empty or not axes:
    st.warning("This sweep has no rows yet.")
    st.stop()
if not sd.metrics(df):  # refused on open (engine/sweep/values.py); one line, not a KeyError
    st.warning("This sweep holds no summary values.")
    st.stop()

methods = list(dict.fromkeys(df["method"]))
labels = sd.method_labels(df)  # the world's names (the AZL world's network is the ResNet)
c1, c2, c3 = st.columns(3)
metric = c1.selectbox("summary", sd.metrics(df), format_func=sd.METRICS.get)
basis = sd.BASES[0]  # a store with converged limits (engine sweep) offers them instead
if sd.has_limits(df, metric):
    basis = c1.radio("value", sd.BASES, horizontal=True, key="sweep_basis",
                     help="T-step: each method after the sweep's T steps; converged limit: "
                          "each fixed-feature method's readout solved to convergence "
                          "(docs/limits.md), the network at T")
x = c3.selectbox("x axis", axes)
others = store.free_axes([x])  # a setting tied to x (D = d) is no second axis
y = c3.selectbox("y axis", others) if others else None

suffix = sd.basis_words(df, metric, None, basis)

fixed = {}
for name in store.free_axes([a for a in (x, y) if a is not None]):
    values = sorted(df[name].unique())
    fixed[name] = st.selectbox(f"{name} (fixed)", values, index=sd.opening_index(values, name))


def open_links(setting: dict) -> None:
    """The setting in bold and the links that open it in Explore and in Compare, or in one
    line why it cannot open."""
    st.markdown(sd.cell_line(spec, setting, tuple(methods)))


def heat_panel(column) -> None:
    """Heat map of one method (or network − NTK per seed) over x × y; a click gives links."""
    views, pair = [labels[m] for m in methods], sd.claim_pair(methods)  # e.g. network − NTK
    difference = f"{labels[pair[0]]} − {labels[pair[1]]}" if pair else None
    if pair:
        views.append(difference)
    view = column.selectbox("method", views, help="whose summary the heat map shows")
    minus = pair[1] if pair and view == difference else None
    method = pair[0] if minus else methods[views.index(view)]
    values = sd.fix_others(store.per_seed(metric, method, minus, basis), fixed)
    words = sd.basis_words(df, metric, minus or method, basis)  # the NTK's limit, if a difference
    title = f"{view}: {sd.METRICS[metric]}{words}" + ("" if not fixed else " at " + ", ".join(
        f"{k}={v}" for k, v in fixed.items()))
    agg = sd.over_seeds(values, [x, y])
    event = st.plotly_chart(heatmap(agg, x, y, title, minus is not None), key="sweep_heat",
                            on_select="rerun", selection_mode="points")
    points = event.selection.points if event and event.selection else []
    if not points:
        st.caption("Click a cell to open that setting in Explore or Compare.")
        return
    xs = {f"{v:g}" if isinstance(v, float) else str(v): v for v in agg[x].unique()}
    ys = {f"{v:g}" if isinstance(v, float) else str(v): v for v in agg[y].unique()}
    open_links(sd.whole_setting(df, axes, {x: xs[str(points[0]["x"])],
                                           y: ys[str(points[0]["y"])], **fixed}))


def point_panel(event) -> None:
    """A sweep over one setting: a clicked point of the lines (or the picker) opens it."""
    values = sorted(df[x].unique().tolist())
    points = event.selection.points if event and event.selection else []
    clicked = next((v for v in values if points and float(v) == float(points[0]["x"])), None)
    picked = st.selectbox(f"open the setting at {x} =", values, index=None, key="sweep_open",
                          placeholder="click a point above or pick a value")
    value = picked if picked is not None else clicked
    if value is None:
        st.caption("Click a point to open that setting in Explore or Compare.")
        return
    open_links(sd.point_setting(df, axes, x, value, fixed))


# a sweep over one setting has no heat map: its lines below show every method
if y is not None:
    heat_panel(c2)

line_y = None
if y is not None:
    slices = sorted(df[y].unique())
    line_y = st.selectbox(f"lines at {y} =", slices, index=sd.opening_index(slices, y))
line_rows = []
for m in methods:
    part = sd.fix_others(store.per_seed(metric, m, basis=basis), fixed)
    if y is not None:
        part = part[part[y] == line_y]
    line_rows.append(sd.over_seeds(part, [x]).assign(method=m))
figure = lines(pd.concat(line_rows), x, f"{sd.METRICS[metric]}{suffix} over {x}",
               sd.METRICS[metric], labels)
for level, words in sd.levels(df, metric):  # the world's reference level (the AZL world's kα²)
    level_line(figure, level, words)
if y is None:  # no heat map: the lines' points open their settings
    point_panel(st.plotly_chart(figure, key="sweep_lines", on_select="rerun",
                                selection_mode="points"))
else:
    st.plotly_chart(figure, key="sweep_lines")

st.header("Table")
st.dataframe(store.table(), hide_index=True, height=260)
d1, d2 = st.columns(2)
if store.refused():  # sized before anything is built (engine/exports.py)
    st.caption(markdown_plain(f"No download on this server: {store.refused()}"))
else:  # built when pressed (and once per store), not on every click of the page
    d1.download_button("CSV", store.csv, f"{pick.rsplit('/', 1)[-1]}.csv", "text/csv")
    d2.download_button("Parquet", store.parquet, f"{pick.rsplit('/', 1)[-1]}.parquet",
                       "application/octet-stream")
