"""AppTest tests of the Compare page: real lockstep training of every method on a tiny setting."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import plotly.io
import pytest
from streamlit.testing.v1 import AppTest

from engine.config import from_dict
from engine.methods import DEFAULT_METHODS, LABELS, METHODS
from engine.presets import PRESETS

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TINY = {"n": "2000", "n_test": "1000", "T": "20", "m": "40", "batch": "200", "d": "100",
        "D": "20"}


def open_compare(params: dict | None = None) -> AppTest:
    """The app on the Compare page, with the given URL query."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(params or {})
    at.switch_page("pages/compare.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def play_to_end(at: AppTest, max_ticks: int = 400) -> AppTest:
    """Press Play and run fragment ticks until the comparison is summarised."""
    at.button(key="compare_play").click().run()
    for _ in range(max_ticks):
        state = at.session_state["app"]
        if state.compare.summary is not None or state.compare.error or at.exception:
            break
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def ours_rows(frame) -> list[str]:
    """The table's rows without the converged limits' (they arrive after the run)."""
    return [r for r in frame.index if "limit" not in r.lower()]


def table_columns(at: AppTest) -> list[str]:
    return [c for df in at.dataframe for c in df.value.columns]


@pytest.fixture(scope="module")
def finished() -> AppTest:
    """All eight methods trained to the end on the tiny setting (shared by several tests)."""
    return play_to_end(open_compare({**TINY, "methods": ",".join(METHODS)}))


def test_default_page_renders_with_the_six_table_methods() -> None:
    at = open_compare()
    assert at.title[0].value.startswith("Compare")
    assert at.multiselect(key="compare_methods").value == list(DEFAULT_METHODS)
    assert any("step 0 / 600" in m.value for m in at.markdown)
    assert any("Press **Play**" in i.value for i in at.info)
    assert not at.session_state["app"].compare.running  # nothing trains before Play


def test_tiny_comparison_runs_to_the_end_with_every_method(finished: AppTest) -> None:
    state = finished.session_state["app"]
    assert state.compare.error is None
    assert not state.compare.playing
    assert any("step 20 / 20" in m.value for m in finished.markdown)
    assert sorted(table_columns(finished)) == sorted(LABELS[m] for m in METHODS)
    titles = [m.value for m in finished.markdown]
    assert "**With input structure**" in titles and "**Without input structure (A1′)**" in titles
    for df in finished.dataframe:
        for label in df.value.columns:
            test_cell = df.value.loc["Test % · ours", label]
            assert 0.0 <= float(test_cell) <= 100.0
    with_structure = finished.dataframe[0].value
    assert with_structure.loc["Cos · ours", "NTK"] == "NA"
    # the live curves: one legend trace per method (smoothed by default), each over its raw
    # curve drawn faintly without a legend entry
    spec = json.loads(finished.get("plotly_chart")[0].proto.spec)
    curves = [t for t in spec["data"] if t.get("meta") != "converged limit"]
    named = [t for t in curves if t.get("showlegend", True)]
    assert sorted(t["name"] for t in named) == sorted(LABELS[m] for m in METHODS)
    assert len(curves) == 2 * len(METHODS)


def test_report_download_matches_the_table(finished: AppTest) -> None:
    report = finished.session_state["app"].compare.summary
    assert report["config"]["n"] == 2000 and report["config"]["T"] == 20
    assert list(report["methods"]) == list(METHODS)
    assert report["seeds"] == 1
    for m in METHODS:
        assert len(report["history"][m]) == 21  # steps 0..T
    net = report["methods"]["network"]
    cell = finished.dataframe[0].value.loc["Test % · ours", "Network"]
    assert cell == f"{100 * net['test_acc']:.1f}"
    keys = [b.proto.label for b in finished.get("download_button")]
    assert keys == ["Curves (CSV)", "Report (JSON)"]


def test_url_methods_and_bad_values_are_reported() -> None:
    at = open_compare({**TINY, "methods": "network,rf", "k": "999"})
    assert at.multiselect(key="compare_methods").value == ["network", "rf"]
    warnings = " ".join(w.value for w in at.warning)
    # Markdown source: the link's text is escaped (issue 13) and the value quoted (issue 38)
    assert "k\\=\\'999\\' is not allowed" in warnings and "[1, 500\\]" in warnings
    bad = open_compare({"methods": "network,magic"})
    assert bad.multiselect(key="compare_methods").value == list(DEFAULT_METHODS)
    assert "magic" in " ".join(w.value for w in bad.warning)


def test_resource_limit_shows_a_message_not_a_traceback(monkeypatch) -> None:
    monkeypatch.setenv("FEX_MAX_T", "10")
    at = play_to_end(open_compare({**TINY, "methods": "network"}))
    state = at.session_state["app"]
    assert state.compare.summary is None and not state.compare.playing
    text = " ".join(e.value for e in at.error)
    assert "T=20" in text and "FEX_MAX_T" in text


def test_two_seeds_give_mean_and_std() -> None:
    at = open_compare({**TINY, "methods": "network,rf"})
    at.number_input(key="compare_seeds").set_value(2).run()
    play_to_end(at)
    report = at.session_state["app"].compare.summary
    assert report["seeds"] == 2
    per_seed = report["methods"]["rf"]["per_seed"]
    assert len(per_seed) == 2 and per_seed[0] != per_seed[1]  # seeds 0 and 1 differ
    cell = at.dataframe[0].value.loc["Test % · ours", "RF"]
    assert "±" in cell


def test_changing_the_methods_restarts_cleanly() -> None:
    at = open_compare({**TINY, "T": "3000", "methods": "network,rf"})  # a tick takes ~0.2 s
    at.button(key="compare_play").click().run()
    assert at.session_state["app"].compare.playing
    at.multiselect(key="compare_methods").set_value(["network"]).run()
    state = at.session_state["app"]
    assert not state.compare.running and not state.compare.playing
    assert state.compare.methods == ("network",)


def test_paper_numbers_and_difference_beside_ours(finished: AppTest) -> None:
    from ui.compare_view import tables

    stream = finished.session_state["app"].compare.stream
    report = stream.report(PRESETS["paper-parity"], timing={})
    frame = dict(tables(report))["With input structure"]
    assert frame.loc["Test % · paper", "NTK"] == "86.4"
    ours = report["methods"]["ntk"]["test_acc"]
    delta, mark = frame.loc["Test % · Δ (ours − paper)", "NTK"].split()
    assert float(delta) == pytest.approx(100 * ours - 86.4, abs=0.051)
    assert mark == ("✓" if abs(100 * ours - 86.4) <= 3 else "✗")
    # the tiny network is far from the paper's 100 %: flagged as not reproduced
    assert frame.loc["Test % · Δ (ours − paper)", "Network"].endswith("✗")
    assert frame.loc["Cos · paper", "NTK"] == "NA"
    # the page only shows paper numbers while the setting is the preset's own
    assert from_dict(PRESETS["paper-parity"].settings) != stream.cfg


def test_divergence_stops_with_a_message_and_keeps_the_curves() -> None:
    at = play_to_end(open_compare({**TINY, "methods": "network", "eta": "1e6", "eta2": "1e6"}))
    state = at.session_state["app"]
    # issue 13: the table and downloads keep every step before the divergence
    assert state.compare.summary["diverged_at"] >= 1 and not state.compare.playing
    text = " ".join(e.value for e in at.error)
    assert "diverged at step" in text and "η" in text
    assert at.get("plotly_chart"), "the curves up to the divergence stay visible"


def test_a_sidebar_setting_restarts_the_comparison_and_the_url_follows() -> None:
    from ui.controls import key

    at = play_to_end(open_compare({**TINY, "methods": "network"}))
    assert at.session_state["app"].compare.summary is not None
    at.number_input(key=key("m")).set_value(30).run()
    state = at.session_state["app"]
    assert state.cfg.m == 30
    # the old result is gone
    assert not state.compare.running and state.compare.summary is None
    assert not at.dataframe
    assert at.query_params["m"] == "30" and at.query_params["methods"] == "network"


def test_headline_metrics_and_the_command_line(finished: AppTest) -> None:
    report = finished.session_state["app"].compare.summary
    metrics = {m.label: m for m in finished.metric}
    assert set(metrics) == {"Network − NTK", "Network − RF", "Two Step − One Step",
                            "Network: with − without structure"}
    net, rf = report["methods"]["network"]["test_acc"], report["methods"]["rf"]["test_acc"]
    assert metrics["Network − RF"].value == f"{100 * (net - rf):+.1f} points"
    assert f"{100 * net:.1f} %" in metrics["Network − RF"].help
    commands = [c.value for c in finished.code]
    assert any(c.startswith("python -m engine run --set d=100") and "--set n=2000" in c
               and "--seeds 5" in c
               and "--methods " + ",".join(METHODS) in c for c in commands), commands


def test_command_line_for_a_paper_preset() -> None:
    from engine.presets import preset_config
    from ui.compare_view import cli_command, paper_preset
    from ui.state import AppState

    state = AppState(cfg=preset_config("paper-interval"), preset="paper-interval")
    assert cli_command(state) == "python -m engine run --preset paper-interval --seeds 5"
    assert paper_preset(state) is PRESETS["paper-interval"]
    state.cfg = state.cfg.replace(m=99)  # no longer the preset's setting: spelled out
    assert "--preset" not in cli_command(state) and "--set m=99" in cli_command(state)
    assert paper_preset(state) is None  # the paper's numbers no longer apply


def test_the_default_setting_is_known_as_the_paper_preset() -> None:
    """Opened on the default setting the page said "Pick a (paper) preset" while the preset box
    showed paper-parity, and picking it again changed nothing."""
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    assert at.selectbox(key="w_preset").value == "paper-parity"
    texts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    assert not any("Pick a preset of" in t for t in texts), texts
    assert any("preset **paper-parity**" in t for t in texts), texts
    assert any("The paper's numbers" in t for t in texts), texts


def test_a_regression_world_compares_with_its_own_charts_and_table() -> None:
    """The AZL world in Compare: its procedure's five methods offered and trained (a link's
    older names give way to them), test error / c_F / c_G in the table, charts, narration."""
    small = {"preset": "azl-resnet", "T": "6", "n": "300", "m": "32", "n_test": "1100",
             "azl_drop_epoch": "1"}
    old = open_compare({**small, "methods": "network,ntk,rf"})  # a link from before: resolved
    assert old.multiselect(key="compare_methods").value == ["resnet3", "ntk", "last_layer"]
    at = open_compare(small)
    five = ["resnet3", "fc3", "two_layer", "ntk", "last_layer"]
    assert at.multiselect(key="compare_methods").options == [
        "3-layer ResNet", "3-layer FC", "2-layer", "NTK (2-layer)", "last layer (CK)"]
    assert at.multiselect(key="compare_methods").value == five
    at = play_to_end(at)
    state = at.session_state["app"]
    assert state.compare.error is None and state.compare.summary is not None
    assert list(state.compare.summary["methods"]) == five
    frame = at.dataframe[0].value
    # (the converged limits' rows join once their background thread is done: engine/limits)
    assert ours_rows(frame) == ["Test err · ours", "c_F · ours", "c_G · ours"]
    assert list(frame.columns) == ["3-layer ResNet", "3-layer FC", "2-layer", "NTK (2-layer)",
                                   "last layer (CK)"]
    assert float(frame.loc["Test err · ours", "3-layer FC"]) > 0
    assert not any("ICLR 2022" in c.value for c in at.caption)
    assert any("Allen-Zhu & Li" in c.value for c in at.caption)
    assert any("kα² = 0.72" in m.value and "step 6" in m.value for m in at.markdown)
    assert any("c_F and c_G" in h.value for h in at.subheader)


def test_a_gfl_regression_world_shows_test_mse_over_var() -> None:
    """gfl-multi-index (issue 21 item 4): curves, table and headlines read test MSE / Var(y),
    not test_acc (NaN there)."""
    at = play_to_end(open_compare({"preset": "gfl-multi-index", "T": "6", "n": "600", "m": "16",
                                   "n_test": "500", "batch": "100",
                                   "methods": "network,ntk,rf,one_step"}))
    state = at.session_state["app"]
    assert state.compare.error is None and state.compare.summary is not None
    frame = at.dataframe[0].value
    assert ours_rows(frame) == ["Train MSE/Var · ours", "Test MSE/Var · ours", "Coverage · ours"]
    report = state.compare.summary["methods"]
    shown = float(frame.loc["Test MSE/Var · ours", "Network"])
    assert shown == pytest.approx(report["network"]["test_mse_ratio"], abs=1e-3) and shown > 0
    assert any("MSE / Var(y)" in h.value for h in at.subheader)
    # the unit rides in the label; the value is the bare gap, short enough for a quarter column
    assert any(m.label.endswith(" · MSE/Var") for m in at.metric), [m.label for m in at.metric]
    assert all(len(m.value) <= 7 for m in at.metric), [m.value for m in at.metric]
    assert any("test MSE / Var(y)" in c.value for c in at.caption)
    fig = plotly.io.from_json(at.get("plotly_chart")[0].proto.spec)
    assert "MSE / Var(y)" in fig.layout.yaxis.title.text
    at_net = next(i for i, t in enumerate(fig.data) if t.name == LABELS["network"])
    raw = fig.data[at_net - 1].to_plotly_json()["y"]  # the faint raw curve beneath the smoothed
    if isinstance(raw, dict):  # plotly's binary encoding of an array
        raw = np.frombuffer(base64.b64decode(raw["bdata"]), dtype=raw["dtype"])
    want = [r["test_mse_ratio"] for r in state.compare.stream.rows()["network"]]
    assert np.allclose(raw, want, rtol=1e-6)


def test_limits_arrive_after_the_run_as_dashed_lines_and_table_rows() -> None:
    """The converged limits come from a background thread once the run is done: the page keeps
    ticking until they are in, then draws a dashed 'converged limit' line per fixed-feature
    method (in its colour) and adds the limit and its certificate to the table."""
    at = play_to_end(open_compare({**TINY, "methods": "network,ntk,rf,one_step,two_step"}))
    stream = at.session_state["app"].compare.stream
    for _ in range(600):
        if not stream.limits_pending():
            break
        at.run()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    dashed = {t["legendgroup"]: t for t in spec["data"] if t.get("meta") == "converged limit"}
    assert sorted(dashed) == ["ntk", "one_step", "rf", "two_step"]
    for method, trace in dashed.items():
        assert trace["line"]["dash"] == "dash"
        assert trace["line"]["color"] == next(t for t in spec["data"] if t.get("name") ==
                                              LABELS[method])["line"]["color"]
    frame = at.dataframe[0].value
    report = at.session_state["app"].compare.summary
    for method in dashed:
        lim = report["methods"][method]["limit"]
        assert lim["certificate"] <= 1e-4
        shown = frame.loc["Test % · converged limit", LABELS[method]]
        assert shown == f"{100 * lim['test_acc']:.1f}"
    assert frame.loc["Test % · converged limit", "Network"] == "—"
