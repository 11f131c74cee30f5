"""The AZL charts: the kα² line with its label, one curve per method, c_F and c_G curves."""

from __future__ import annotations

import math

from engine.azl.world import from_engine
from engine.compare import Comparison
from engine.presets import preset_config
from engine.report import history_rows
from ui.azl_figures import THRESHOLD_TEXT, error_figure, projection_figure


def test_charts_show_the_runs_and_the_threshold():
    """Curves equal the runs' per-step numbers; the kα² line is drawn and labelled."""
    cfg = preset_config("azl-resnet").replace(n=400, n_test=1200, m=32, T=8, azl_drop_epoch=1)
    comp = Comparison(cfg, device="cpu")  # the resnet3 procedure's five methods
    comp.run_all()
    history = {m: history_rows(r) for m, r in comp.runs.items()}
    threshold = from_engine(cfg).threshold
    fig = error_figure(history, threshold)
    assert [t.name for t in fig.data][0] == "3-layer ResNet" and len(fig.data) == 5
    assert list(fig.data[0].y) == [s.extra["test_err"] for s in comp.runs["resnet3"].history]
    line = fig.layout.shapes[0]
    assert line.y0 == line.y1 == threshold
    label = fig.layout.annotations[0]
    assert THRESHOLD_TEXT in label.text
    # on the log axis a label's y is log10: it sits at the line, not at 10^kα²
    assert fig.layout.yaxis.type == "log" and label.y == math.log10(threshold)
    proj = projection_figure(history)
    assert [t.name for t in proj.data] == ["c_F · 3-layer ResNet", "c_G · 3-layer ResNet",
                                           "c_F · 2-layer", "c_G · 2-layer"]
    assert list(proj.data[1].y) == [s.extra["c_G"] for s in comp.runs["resnet3"].history]


def test_weights_line_reads_the_probes():
    """Pair purity, relevant share and V's support share as the snapshot has them."""
    from engine.procedures.resnet3 import weights_line

    text = weights_line({"pair_purity": 0.69, "relevant_share": 0.9, "v_support": 0.81}, 8)
    assert "pair purity 0.69" in text and "0.90 (16/30" in text
    assert "out₄ (what G reads) 0.81" in text
    assert "V's" not in weights_line({"pair_purity": 0.1, "relevant_share": 0.5,
                                      "v_support": float("nan")}, 8)


def test_weights_line_says_what_a_row_lacks():
    """A report row holds None where a probe was not measured (clean() turns NaN into None):
    the caption shows '—' there instead of stopping Compare with a TypeError."""
    from engine.procedures.resnet3 import weights_line

    text = weights_line({"pair_purity": None, "relevant_share": float("nan"), "v_support": None}, 8)
    assert "pair purity — (" in text and "x₁…x₂ₖ — (" in text
