"""The AZL charts: the kα² line with its label, one curve per method, c_F and c_G curves."""

from __future__ import annotations

from engine.azl.compare import AZLComparison
from engine.azl.config import AZLConfig
from engine.report import history_rows
from ui.azl_figures import THRESHOLD_TEXT, error_figure, projection_figure


def test_charts_show_the_runs_and_the_threshold():
    """Curves equal the runs' per-step numbers; the kα² line is drawn and labelled."""
    comp = AZLComparison(AZLConfig(n=400, n_test=1200, m=32, epochs=2, drop_epoch=1))
    comp.run_all()
    history = {m: history_rows(r) for m, r in comp.runs.items()}
    fig = error_figure(history, comp.cfg.threshold)
    assert [t.name for t in fig.data][0] == "3-layer ResNet" and len(fig.data) == 5
    assert list(fig.data[0].y) == [s.extra["test_err"] for s in comp.runs["resnet3"].history]
    line = fig.layout.shapes[0]
    assert line.y0 == line.y1 == comp.cfg.threshold
    assert THRESHOLD_TEXT in fig.layout.annotations[0].text
    proj = projection_figure(history)
    assert [t.name for t in proj.data] == ["c_F · 3-layer ResNet", "c_G · 3-layer ResNet",
                                           "c_F · 2-layer", "c_G · 2-layer"]
    assert list(proj.data[1].y) == [s.extra["c_G"] for s in comp.runs["resnet3"].history]
