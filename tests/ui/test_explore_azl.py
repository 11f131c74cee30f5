"""AppTest of Explore on the AZL world (issue 24 item 3): the player gets the ResNet's map with the
32 pair stars and their counts, every method's test error with the kα² line, c_F / c_G, and a
narration that quotes the snapshot; the offline HTML carries the same. Main refused this world."""

from __future__ import annotations

import json
import re

import pytest

from engine.config import Config, ConfigError
from engine.procedures.resnet3.explore import ExploreRun
from engine.reads import refuse_unread
from tests.ui.test_explore_app import open_app, plain, player, state
from ui.export import export_html

# the preset at a size that steps in a blink (no step-size drop within 3 epochs)
TINY = {"preset": "azl-resnet", "n": "1000", "n_test": "600", "m": "40", "T": "30",
        "batch": "100", "azl_drop_epoch": "0"}


@pytest.fixture(scope="module")
def played():
    """The app after 12 frames of the tiny AZL run: (AppTest, every frame the player got)."""
    at = open_app(**TINY)
    sent = [player(at)]
    # every script run's batch is kept: on a loaded machine the 12 frames take several ticks,
    # and each batch carries only the frames new since the last one
    state(at).explore.player["want"] = 12
    for _ in range(30):
        at.run()
        sent.append(player(at))
        if len(state(at).explore.stream) >= 12:
            break
    at.run()
    sent.append(player(at))
    assert not at.exception and not at.error, [e.value for e in (*at.exception, *at.error)]
    return at, sent


def frames(sent: list[dict]) -> dict:
    """The frames of several batches joined by step (a batch may repeat none: only new ones)."""
    out: dict = {}
    for data in sent:
        fr = data["frames"]
        for j, step in enumerate(fr["step"]):
            out[step] = {key: value[j] for key, value in fr.items() if isinstance(value, list)}
    return out


def test_the_map_has_the_32_pair_stars_with_the_snapshot_counts(played):
    at, sent = played
    run = state(at).explore.stream.run
    assert isinstance(run, ExploreRun)
    meta = sent[-1]["meta"]
    marks = meta["marks"]
    assert [m["name"] for m in marks][:2] == ["x₁x₂", "x₃x₄"] and len(marks) == 8
    assert sum(m["rows"] for m in marks) == 32 and all(m["style"] == "star" for m in marks)
    assert len({m["colour"] for m in marks}) == 8  # one colour per pair r
    assert meta["points"] == 40 + 32
    got = frames(sent)
    assert len(got) >= 12
    for step, frame in got.items():
        assert frame["counts"] == run.history[step].extra["pair_counts"]


def test_the_error_chart_has_every_method_and_the_threshold_line(played):
    at, sent = played
    meta, run = sent[-1]["meta"], state(at).explore.stream.run
    error = meta["charts"][0]  # the chart in the accuracy chart's place, on a log axis
    assert error["log"] and error["limits"] and error["lines"][0]["y"] == pytest.approx(0.72)
    assert error["lines"][0]["text"] == "kα² = 0.72: above this line G is not learned at all"
    assert [se["name"] for se in error["series"]] == list(run.labels.values())
    assert [se["index"] for se in error["series"]] == list(range(5))
    assert meta["map"]["sign"] is False  # no single output weight a_i to colour by
    assert len(run.labels) == 5
    for step, frame in frames(sent).items():
        snap = run.history[step]
        assert frame["errs"] == pytest.approx(run.test_errors(snap), abs=1e-5)
        assert frame["cf"] == pytest.approx(snap.extra["c_F"], abs=1e-5)
        assert frame["cg"] == pytest.approx(snap.extra["c_G"], abs=1e-5)
        assert frame["vsup"] == pytest.approx(snap.extra["v_support"], abs=1e-5)
        assert frame["zero"] is False  # no hinge-gradient note on the AZL frames


def test_the_narration_quotes_the_snapshot_c_f_and_c_g(played):
    at, sent = played
    history = state(at).explore.stream.run.history
    for step, frame in frames(sent).items():
        text = plain(frame["text"])
        snap = history[step]
        c_f = float(re.search(r"c_F (-?\d\.\d\d)", text).group(1))
        c_g = float(re.search(r"c_G (-?\d\.\d\d)", text).group(1))
        assert c_f == pytest.approx(snap.extra["c_F"], abs=0.006), text
        assert c_g == pytest.approx(snap.extra["c_G"], abs=0.006), text
        assert f"Step {step} · 3-layer ResNet" in text and "kα² = 0.72" in text
    head = next(md.value for md in at.markdown if "AZL world" in md.value)
    assert "k=8 outputs" in head and "p_o" not in head and "schedule" not in head
    measured = next(e for e in at.expander if e.label == "What is measured")
    assert "pair stars" in measured.markdown[0].value
    sizes = next(e for e in at.expander if e.label == "Step sizes of this run")
    table = sizes.dataframe[0].value  # SGD per method, not the paper's schedule
    assert list(table["method"]) == list(state(at).explore.stream.run.labels.values())
    assert "momentum" in sizes.caption[0].value


def test_the_offline_html_carries_the_azl_player(played):
    at, _ = played
    page = export_html(state(at), "azl")
    payload = json.loads(re.search(r"id='fe-data'>(.*?)</script>", page, re.S).group(1))
    line = payload["meta"]["charts"][0]["lines"][0]
    assert "above this line G is not learned at all" in line["text"]
    assert len(payload["meta"]["marks"]) == 8 and payload["frames"]["counts"][0] is not None
    n = len(state(at).explore.stream)
    assert len(payload["frames"]["errs"]) == n and "c_F" in payload["frames"]["text"][-1]
    assert "seriesSpecs" in page and "fillTable" in page  # the chart code travels in the file


def test_the_sidebar_shows_only_the_settings_the_world_reads(played):
    """The AZL world reads n, m, T, batch, seed, d, D, k and its own settings: labeling, p_o,
    input structure, the paper schedule's step sizes are hidden (they were shown and ignored),
    and a link or command that gives one is refused with the reason."""
    at, _ = played
    labels = {w.label for kind in ("number_input", "slider", "selectbox", "toggle")
              for w in at.get(kind) if getattr(w, "label", None)}
    for shown in ("n (training samples)", "m (neuron pairs (width 2m))"):
        assert any(lbl.startswith(shown.split(" (")[0]) for lbl in labels), (shown, labels)
    for hidden in ("labeling", "p_o", "input structure", "schedule"):
        assert not any(lbl.startswith(hidden) for lbl in labels), (hidden, labels)
    cfg = state(at).cfg
    assert cfg.scenario == "azl_hier"
    with pytest.raises(ConfigError, match="the azl_hier world does not read it"):
        refuse_unread(cfg.replace(p_o=0.3), ["p_o"])
    refuse_unread(cfg, ["n", "m", "azl_lr"])  # what it reads passes
    assert Config().scenario != "azl_hier"  # the default world still shows every setting
