"""README pictures of the stored preset sweeps: `python -m ui.sweep_pictures [NAME ...]`
(headless Chromium).

Writes assets/sweep-NAME.png for each stored preset sweep docs/results/sweep-NAME.sqlite
(all of them by default); the figures are the Sweep page's own (ui/figures.py), drawn as each
sweep preset's Picture says (engine/sweep/presets.py), with the theory's marks it states (the
parity threshold, kα²).
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
from engine.sweep.presets import SWEEP_PRESETS, Picture
from scripts.serve import CHROMIUM_ARGS, find_chromium
from ui import sweep_data as sd
from ui.figures import heatmap, level_line, lines

ROOT = Path(__file__).resolve().parents[1]
# every stored preset sweep with a picture (its SweepPreset's, engine/sweep/presets.py)
FIGURES = {name: p.picture for name, p in SWEEP_PRESETS.items() if p.picture is not None}


def _lines(df, axes, metric: str, methods, x: str, title: str, fixed=None):
    """The page's lines figure of `metric` over x (mean ± std over seeds), other axes fixed."""
    parts = [sd.over_seeds(sd.fix_others(sd.per_seed(df, axes, metric, m), fixed or {}), [x])
             .assign(method=m) for m in methods]
    return lines(pd.concat(parts), x, title, sd.METRICS[metric], sd.method_labels(df))


def _split(df, axes, pic: Picture, methods, title: str, cfg):
    """One set of lines per value of pic.split (the first solid, the next dashed), each value's
    mark a dotted vertical line with its words."""
    fig = None
    for j, value in enumerate(sorted(df[pic.split].unique())):
        part = _lines(df, axes, pic.metric, methods, pic.x, title, {pic.split: value})
        for trace in part.data:
            trace.name = f"{trace.name}, {pic.split} = {value}"
            trace.line.dash = "dash" if j else "solid"
        fig = part if fig is None else fig.add_traces(part.data)
        if pic.mark is not None:
            at, words = pic.mark(cfg, value)
            fig.add_vline(x=at, line={"dash": "dot", "color": "#777777"})
            # an annotation on a log axis is placed in log10 units (add_vline's own misplaces it)
            fig.add_annotation(x=math.log10(at) if pic.log_x else at, y=0.02 + 0.08 * j,
                               xref="x", yref="paper", xanchor="left", showarrow=False,
                               text=words)
    return fig


def _gap(fig, df, axes, pic: Picture) -> None:
    """A dotted line of a − b over x (pic.gap's name)."""
    a, b, name = pic.gap
    gap = sd.over_seeds(sd.per_seed(df, axes, pic.metric, a, b), [pic.x])
    fig.add_trace(lines(gap.assign(method=name), pic.x, "", "").data[0])
    fig.data[-1].line.dash = "dot"


def picture(name: str):
    """The README figure of a stored preset sweep, as its SweepPreset's picture describes it."""
    pic, methods = FIGURES[name], SWEEP_PRESETS[name].spec.methods
    df, axes, _ = sd.load_frame(ROOT / f"docs/results/sweep-{name}.sqlite")
    cfg = from_dict(json.loads(df.config.iloc[0]))
    title = pic.title(cfg) if callable(pic.title) else pic.title
    if pic.versus is not None:
        diff = sd.over_seeds(sd.per_seed(df, axes, pic.metric, *pic.versus), [pic.x, pic.y])
        return heatmap(diff, pic.x, pic.y, title, diverging=True)
    if pic.split is not None:
        fig = _split(df, axes, pic, methods, title, cfg)
    else:
        fig = _lines(df, axes, pic.metric, methods, pic.x, title)
    if pic.gap is not None:
        _gap(fig, df, axes, pic)
    if pic.log_x:
        fig.update_xaxes(type="log", title=pic.log_x)
    if pic.log_y:
        fig.update_yaxes(type="log")
    for level, words in sd.levels(df, pic.metric) if pic.levels else ():
        level_line(fig, level, words)
    return fig


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
            fig = picture(name)
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
