"""Compare's charts of a procedure that draws its own (ui/compare_charts.py), on the AZL world:
the record's kα² line with its label, one curve per method, c_F and c_G curves; the ResNet's
weights line in its narration."""

from __future__ import annotations

import math

from engine.frames.compare import CompareStream
from engine.presets import preset_config
from engine.procedures import RECORDS
from engine.procedures.resnet3 import weights_line
from engine.scenarios.azl.convert import from_engine
from ui.compare_charts import chart_figure


def test_charts_show_the_runs_and_the_threshold():
    """Curves equal the runs' per-step numbers; the kα² line is drawn and labelled."""
    cfg = preset_config("azl-resnet").replace(n=400, n_test=1200, m=32, T=8, azl_drop_epoch=1)
    stream = CompareStream(cfg, RECORDS["resnet3"].defaults, device="cpu")
    while not stream.done:
        stream.advance()
    meta, rows = stream.meta(), stream.rows()
    methods = {m["name"]: m for m in meta["methods"]}
    error, projection = meta["charts"]
    fig = chart_figure(error, rows, methods)
    assert [t.name for t in fig.data][0] == "3-layer ResNet" and len(fig.data) == 5
    assert list(fig.data[0].y) == [r["test_err"] for r in rows["resnet3"]]
    threshold = from_engine(cfg).threshold
    line = fig.layout.shapes[0]
    assert line.y0 == line.y1 == threshold
    label = fig.layout.annotations[0]
    assert "above this line G is not learned at all" in label.text
    # on the log axis a label's y is log10: it sits at the line, not at 10^kα²
    assert fig.layout.yaxis.type == "log" and label.y == math.log10(threshold)
    proj = chart_figure(projection, {m: rows[m] for m in ("resnet3", "two_layer")}, methods)
    assert [t.name for t in proj.data] == ["c_F · 3-layer ResNet", "c_G · 3-layer ResNet",
                                           "c_F · 2-layer", "c_G · 2-layer"]
    assert list(proj.data[1].y) == [r["c_G"] for r in rows["resnet3"]]
    words = stream.narration()[1]
    assert "pair purity" in words  # the record's narration carries where the weights sit

def test_weights_line_reads_the_probes():
    """Pair purity, relevant share and V's support share as the snapshot has them."""

    text = weights_line({"pair_purity": 0.69, "relevant_share": 0.9, "v_support": 0.81}, 8)
    assert "pair purity 0.69" in text and "0.90 (16/30" in text
    assert "out₄ (what G reads) 0.81" in text
    assert "V's" not in weights_line({"pair_purity": 0.1, "relevant_share": 0.5,
                                      "v_support": float("nan")}, 8)


def test_weights_line_says_what_a_row_lacks():
    """A report row holds None where a probe was not measured (clean() turns NaN into None):
    the caption shows '—' there instead of stopping Compare with a TypeError."""

    text = weights_line({"pair_purity": None, "relevant_share": float("nan"), "v_support": None}, 8)
    assert "pair purity — (" in text and "x₁…x₂ₖ — (" in text
