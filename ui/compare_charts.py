"""Compare's charts for a procedure whose record draws its own (it narrates its Compare runs):
one Plotly figure per chart of the record, sent in the comparison stream's meta, with its
reference lines and the lead method's words. Nothing here knows a procedure by name."""

from __future__ import annotations

import math

import plotly.graph_objects as go
import streamlit as st

from ui.figures import MARGIN

DASHES = ("solid", "dash", "dot", "dashdot")  # one per curve of a chart


def _xy(rows: list[dict], key: str) -> tuple[list, list]:
    """(steps, values) of one key, rows without a finite value left out."""
    pairs = [(r["step"], r[key]) for r in rows
             if isinstance(r.get(key), (int, float)) and math.isfinite(r[key])]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def chart_figure(chart: dict, rows: dict, methods: dict, height: int = 400) -> go.Figure:
    """One chart of the record (meta's chart: title, curves, axis, log, lines): a line per
    method and curve, a dashed line per reference line with its words."""
    fig = go.Figure()
    for name, part in rows.items():
        info = methods.get(name, {})
        for j, key in enumerate(chart["curves"]):
            x, y = _xy(part, key)
            if not x:
                continue
            label = info.get("label", name)
            fig.add_trace(go.Scatter(
                x=x, y=y, mode="lines", name=label if len(chart["curves"]) == 1
                else f"{key} · {label}",
                line={"color": info.get("color", "#555555"), "dash": DASHES[j % len(DASHES)]}))
    for line in chart["lines"]:
        fig.add_hline(y=line["value"], line={"dash": "dash", "color": "#444444"})
        at = math.log10(line["value"]) if chart["log"] and line["value"] > 0 else line["value"]
        fig.add_annotation(x=0, xref="paper", y=at, yref="y", xanchor="left", yanchor="top",
                           showarrow=False, text=f"{line['value']:.3g}: {line['label']}")
    fig.update_layout(height=height, margin=MARGIN, title=chart["title"], xaxis_title="step",
                      yaxis_title=chart["axis"], yaxis_type="log" if chart["log"] else None)
    return fig


def charts_panel(stream) -> None:
    """Every chart of the procedure's record over the stream's rows, then the lead method's
    words on the last step (the record's narrate)."""
    meta = stream.meta()
    methods = {m["name"]: m for m in meta["methods"]}
    rows = stream.rows()
    for chart in meta["charts"]:
        st.plotly_chart(chart_figure(chart, rows, methods), key=f"compare_{chart['name']}",
                        config={"displaylogo": False})
    told = stream.narration()  # (lead method, its words on the last step), or None
    if told is not None:
        st.markdown(told[1])
