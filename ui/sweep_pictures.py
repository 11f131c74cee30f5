"""README pictures of the stored preset sweeps: `python -m ui.sweep_pictures [NAME ...]`
(headless Chromium).

Writes assets/sweep-NAME.png for each stored preset sweep docs/results/sweep-NAME.sqlite
(all of them by default); the figures are the Sweep page's own (ui/figures.py), with the
theory's marks added where the preset states one (the parity threshold, kα²).
"""

from __future__ import annotations

import json
import math
import sys
import tempfile
from pathlib import Path

import pandas as pd
from playwright.sync_api import sync_playwright

from engine.config import from_dict
from engine.sweep.presets import parity_threshold
from scripts.serve import CHROMIUM_ARGS, find_chromium
from ui import sweep_data as sd
from ui.figures import heatmap, level_line, lines

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str):
    return sd.load_frame(ROOT / f"docs/results/sweep-{name}.sqlite")


def _lines(df, axes, metric: str, methods, x: str, title: str, fixed=None):
    """The page's lines figure of `metric` over x (mean ± std over seeds), other axes fixed."""
    parts = [sd.over_seeds(sd.fix_others(sd.per_seed(df, axes, metric, m), fixed or {}), [x])
             .assign(method=m) for m in methods]
    return lines(pd.concat(parts), x, title, sd.METRICS[metric], sd.method_labels(df))


def separation_vs_k():
    df, axes, _ = _load("separation-vs-k")
    return _lines(df, axes, "test_acc", ("network", "ntk", "rf"), "k",
                  "separation vs k: test accuracy (mean ± std, 3 seeds)")


def structure_strength():
    df, axes, _ = _load("structure-strength")
    diff = sd.over_seeds(sd.per_seed(df, axes, "test_acc", "network", "ntk"),
                         ["p_o", "structure"])
    return heatmap(diff, "p_o", "structure", "structure strength: Network − NTK test "
                   "accuracy (mean over 3 seeds)", diverging=True)


def parity_threshold_figure():
    """Relevant share after step 1 over n, one panel's lines per d (d = 11 solid, the second d
    dashed), each d's (2/ξ₃)² marked."""
    df, axes, _ = _load("gfl-parity-threshold")
    k = from_dict(json.loads(df.config.iloc[0])).k
    fig = None
    for j, d in enumerate(sorted(df.d.unique())):
        part = _lines(df, axes, "share_1", ("one_step", "rf"), "n",
                      f"uniform parity (k = {k}): relevant share after step 1 over n "
                      "(mean ± std, 3 seeds)", {"d": d})
        for trace in part.data:
            trace.name = f"{trace.name}, d = {d}"
            trace.line.dash = "dash" if j else "solid"
        fig = part if fig is None else fig.add_traces(part.data)
        at = parity_threshold(int(d), k)
        fig.add_vline(x=at, line={"dash": "dot", "color": "#777777"})
        # an annotation on a log axis is placed in log10 units (add_vline's own misplaces it)
        fig.add_annotation(x=math.log10(at), y=0.02 + 0.08 * j, xref="x", yref="paper",
                           xanchor="left", showarrow=False,
                           text=f" (2/ξ₃)² ≈ {at:,.0f} at d = {d}")
    fig.update_xaxes(type="log", title="n (training samples, log scale)")
    return fig


def xor_gap_figure():
    df, axes, _ = _load("gfl-xor-gap")
    fig = _lines(df, axes, "test_acc", ("network", "one_step", "rf"), "d",
                 "XOR mixture: test accuracy over d at n = 2 000 (mean ± std, 3 seeds)")
    gap = sd.over_seeds(sd.per_seed(df, axes, "test_acc", "network", "rf"), ["d"])
    fig.add_trace(lines(gap.assign(method="network − RF"), "d", "", "").data[0])
    fig.data[-1].line.dash = "dot"
    fig.update_xaxes(type="log", title="d (input dimension, log scale)")
    return fig


def azl_error_figure():
    """Test error over N, the methods named as the world names them, its kα² level drawn (the
    Sweep page's own figure and level, on a log axis)."""
    df, axes, _ = _load("azl-error-vs-n")
    fig = _lines(df, axes, "test_err", ("resnet3", "two_layer"), "n",
                 "AZL world: test error over N at 900 SGD steps (mean ± std, 3 seeds)")
    fig.update_yaxes(type="log")
    for level, words in sd.levels(df, "test_err"):
        level_line(fig, level, words)
    return fig


FIGURES = {"separation-vs-k": separation_vs_k, "structure-strength": structure_strength,
           "gfl-parity-threshold": parity_threshold_figure, "gfl-xor-gap": xor_gap_figure,
           "azl-error-vs-n": azl_error_figure}


def main(names=None) -> None:
    """Render each named figure (default: all) to assets/sweep-NAME.png."""
    names = names or list(FIGURES)
    unknown = [n for n in names if n not in FIGURES]
    if unknown:
        raise SystemExit(f"error: {unknown[0]} is not a stored preset sweep: one of "
                         + ", ".join(FIGURES))
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=find_chromium(), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 900, "height": 560})
        for name in names:
            fig = FIGURES[name]()
            fig.update_layout(width=880, template="plotly_white")
            html = Path(tmp) / f"{name}.html"
            fig.write_html(html, include_plotlyjs=True, full_html=True)
            page.goto(html.as_uri())
            page.wait_for_selector(".main-svg")
            out = ROOT / "assets" / f"sweep-{name}.png"
            page.locator(".plotly").first.screenshot(path=str(out))
            print(f"assets/sweep-{name}.png")
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1:])
