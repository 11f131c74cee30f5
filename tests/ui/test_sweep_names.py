"""The Sweep page speaks its world's language (issue 28 item 3): the AZL world's stored sweep names
its methods as that world does (the 3-layer ResNet, not "Network") and draws its kα² level, in
the page and in the README picture; a sweep over one setting opens a point's setting in Explore
and Compare, as a heat-map cell does."""

from __future__ import annotations

import json
import math
from pathlib import Path
from urllib.parse import parse_qs, urlparse

from tests.ui.test_sweep_page_apptest import page_with
from ui import sweep_pictures

ROOT = Path(__file__).resolve().parents[2]
AZL = ROOT / "docs" / "results" / "sweep-azl-error-vs-n.sqlite"  # axis n (drop epoch tied)
SEP = ROOT / "docs" / "results" / "sweep-separation-vs-k.sqlite"  # axis k


def figure(chart) -> dict:
    return json.loads(chart.proto.spec)


def test_the_azl_sweep_names_the_resnet_and_draws_kalpha2(tmp_path):
    at = page_with(AZL)
    metric = at.selectbox[[s.label for s in at.selectbox].index("summary")]
    assert metric.value == "test_err", metric.options  # the world's headline score first
    lines = figure(at.get("plotly_chart")[-1])
    assert [t["name"] for t in lines["data"]] == ["3-layer ResNet", "2-layer"]
    assert [s["y0"] for s in lines["layout"]["shapes"]] == [0.72]
    assert any("kα² = 0.72" in a["text"] for a in lines["layout"]["annotations"])


def test_the_readme_picture_uses_the_same_names_and_level():
    fig = sweep_pictures.picture("azl-error-vs-n")
    assert [t.name for t in fig.data] == ["3-layer ResNet", "2-layer"]
    assert fig.layout.yaxis.type == "log" and fig.layout.shapes[0].y0 == 0.72
    words = [a for a in fig.layout.annotations if "kα²" in a.text]
    assert len(words) == 1 and math.isclose(words[0].y, math.log10(0.72))  # log10 units


def test_a_one_axis_sweep_opens_a_points_setting(tmp_path):
    at = page_with(AZL)
    assert "Click a point" in " ".join(c.value for c in at.caption)
    pick = at.selectbox[[s.label for s in at.selectbox].index("open the setting at n =")]
    pick.select(2000).run()
    assert not at.exception, at.exception
    text = " ".join(m.value for m in at.markdown)
    # the setting is echoed as plain Markdown (engine.echo escapes '=' and '_')
    assert "**n=2000, azl_drop_epoch=22**" in text.replace("\\", ""), text
    explore = text.split("[Open in Explore](")[1].split(")")[0]
    query = parse_qs(urlparse(explore).query)
    assert query["n"] == ["2000"] and query["azl_drop_epoch"] == ["22"], explore
    compare = text.split("[Open in Compare](")[1].split(")")[0]
    assert compare.startswith("/compare?") and "n=2000" in compare, compare


def test_the_paper_worlds_sweep_keeps_the_engine_names(tmp_path):
    at = page_with(SEP)
    lines = figure(at.get("plotly_chart")[-1])
    assert [t["name"] for t in lines["data"]] == ["Network", "NTK", "RF"]
    assert not lines["layout"].get("shapes")  # no level drawn where the world has none
    pick = at.selectbox[[s.label for s in at.selectbox].index("open the setting at k =")]
    pick.select(7).run()
    text = " ".join(m.value for m in at.markdown)
    shown = text.replace("\\", "")  # the echo escapes '='
    assert "**k=7**" in shown and "k=7" in text.split("[Open in Explore](")[1], text


def test_every_sweep_presets_picture_is_drawn_as_it_declares():
    """Each stored preset sweep's Picture (engine/sweep/presets.py) draws, from the data alone:
    its title (the sweep's own k in a callable one), one line per method (per value of its split
    axis), a log x axis where it asks for one, its difference line."""
    from engine.sweep.presets import SWEEP_PRESETS

    assert set(sweep_pictures.FIGURES) == {n for n, p in SWEEP_PRESETS.items() if p.picture}
    for name, pic in sweep_pictures.FIGURES.items():
        fig = sweep_pictures.picture(name)
        methods = SWEEP_PRESETS[name].spec.methods
        title = fig.layout.title.text
        assert title == pic.title or title.startswith("uniform parity (k = 4)"), (name, title)
        splits = 2 if pic.split else 1  # the parity threshold sweep: d = 11 and d = 15
        lines = 1 if pic.versus else len(methods) * splits + bool(pic.gap)
        assert len(fig.data) == lines, (name, [t.name for t in fig.data])
        assert (fig.layout.xaxis.type == "log") == bool(pic.log_x), name
    marks = [a.text for a in sweep_pictures.picture("gfl-parity-threshold").layout.annotations]
    assert marks == [" (2/ξ₃)² ≈ 5,350 at d = 11", " (2/ξ₃)² ≈ 15,406 at d = 15"], marks
