"""Sweep page: phase diagrams from a stored sweep (heat map, lines, network − NTK), downloads."""

from __future__ import annotations

import io

import pandas as pd
import streamlit as st

from engine.config import ConfigError
from engine.echo import markdown_plain
from engine.methods import LABELS
from engine.presets import preset_config
from engine.procedures import procedure_of
from ui import sweep_data as sd
from ui import sweep_run
from ui.figures import heatmap, lines
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
df, axes, spec = sd.load_frame(choices[pick])
labels = LABELS  # a store without a known preset keeps the paper's labels
try:  # the methods by their procedure's labels (an AZL sweep's network is the 3-layer ResNet)
    labels = procedure_of(preset_config(spec["preset"])).labels()
except (ConfigError, KeyError, TypeError):
    pass
if df.empty or not axes:
    st.warning("This sweep has no rows yet.")
    st.stop()

methods = list(dict.fromkeys(df["method"]))
c1, c2, c3 = st.columns(3)
metric = c1.selectbox("summary", sd.metrics(df), format_func=sd.METRICS.get)
x = c3.selectbox("x axis", axes)
others = sd.free_axes(df, axes, [x])  # a setting tied to x (D = d) is no second axis
y = c3.selectbox("y axis", others) if others else None

fixed = {}
for name in sd.free_axes(df, axes, [a for a in (x, y) if a is not None]):
    values = sorted(df[name].unique())
    fixed[name] = st.selectbox(f"{name} (fixed)", values, index=sd.opening_index(values, name))


def heat_panel(column) -> None:
    """Heat map of one method (or Network − NTK per seed) over x × y; a click gives links."""
    views = [labels.get(m, m) for m in methods]
    if "network" in methods and "ntk" in methods:
        views.append("Network − NTK")
    view = column.selectbox("method", views, help="whose summary the heat map shows")
    minus = "ntk" if view == "Network − NTK" else None
    method = "network" if minus else methods[views.index(view)]
    values = sd.fix_others(sd.per_seed(df, axes, metric, method, minus), fixed)
    title = f"{view}: {sd.METRICS[metric]}" + ("" if not fixed else " at " + ", ".join(
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
    setting = sd.whole_setting(df, axes, {x: xs[str(points[0]["x"])],
                                          y: ys[str(points[0]["y"])], **fixed})
    explore, compare = sd.cell_links(spec, setting, tuple(methods))
    where = ", ".join(f"{k}={v}" for k, v in setting.items())
    st.markdown(f"**{where}**: [Open in Explore]({explore}) · [Open in Compare]({compare})")


# a sweep over one setting has no heat map: its lines below show every method
if y is not None:
    heat_panel(c2)

line_y = None
if y is not None:
    slices = sorted(df[y].unique())
    line_y = st.selectbox(f"lines at {y} =", slices, index=sd.opening_index(slices, y))
line_rows = []
for m in methods:
    part = sd.fix_others(sd.per_seed(df, axes, metric, m), fixed)
    if y is not None:
        part = part[part[y] == line_y]
    line_rows.append(sd.over_seeds(part, [x]).assign(method=m))
st.plotly_chart(lines(pd.concat(line_rows), x, f"{sd.METRICS[metric]} over {x}",
                      sd.METRICS[metric], labels), key="sweep_lines")

st.subheader("Table")
st.dataframe(df.drop(columns=["config"]), hide_index=True, height=260)
d1, d2 = st.columns(2)
d1.download_button("CSV", df.to_csv(index=False), f"{pick.rsplit('/', 1)[-1]}.csv", "text/csv")
buf = io.BytesIO()
df.to_parquet(buf, index=False)
d2.download_button("Parquet", buf.getvalue(), f"{pick.rsplit('/', 1)[-1]}.parquet",
                   "application/octet-stream")
