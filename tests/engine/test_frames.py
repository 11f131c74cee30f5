"""FrameStream (engine/frames): the frame contract on tiny settings of each run type, and the
numbers its frames agreed on with the old UI code (tests/engine/test_frames_vs_old_ui.py)."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from engine.config import Config, ConfigError
from engine.frames import MAKERS, FrameStream
from engine.frames.procedure import credit, frame_name
from engine.frames.report import build_report, history_csv
from engine.procedures import RECORDS
from engine.report import build_report as run_report
from engine.report import history_csv as run_csv
from engine.scenarios import WORLDS
from tests.engine.frames_settings import SETTINGS

# per setting after its T steps: the first neuron's and the last star's map position, the
# last frame's per-group counts, its (+, −) star counts, test score (AZL: the ResNet's test
# error) and the narration's start; the old ui/playback.pack gave the same on the same seed
NUMBERS = {
    "paper": ((0.866, -0.5), (-0.965, 0.262), None, [20, 20], 0.514,
              "<b>Classifier stage, step 6</b> (t &gt; 2): test accuracy 51 %, train 52 %; 100 %"),
    "paper-mog": ((0.003, 0.146), (0.359, -0.001), None, [0, 0], 0.5125,
                  "<b>Step 6</b> (classifier): test accuracy 51 %, train 48 %."),
    # fcb's four named centres ±µ₁, ±µ₂ are stars with their counts (issue 35), and its
    # narration quotes the correlation with the own cluster mean (its one-step jump)
    "fcb-xor": ((0.264, -0.939), (-0.819, -0.073), [0, 0, 0, 7], [0, 0], 0.8533,
                "<b>Step 6</b> (gradient descent): mean correlation with the own cluster mean"),
    "gfl-xor": ((-0.137, -0.293), (0.141, 0.351), [3, 3, 2, 2], [0, 0], 0.474,
                "<b>Step 6</b> (classifier stage): coverage 0.94 — every feature direction"),
    "gfl-mog": ((0.403, -0.838), (0.63, -0.405), [2, 3, 0, 2, 0, 4], [0, 0], 0.998,
                "<b>Step 6</b> (classifier stage): coverage 0.88 — every feature direction"),
    "gfl-multi-index": ((0.529, 0.266), (0.0, -1.0), [0, 0], [0, 0], 2.8525,
                        "<b>Step 6</b> (classifier stage): coverage 0.66 — every feature"),
    "azl": ((-0.716, 0.189), (-0.312, -0.206), [2, 2, 0, 0, 0, 1, 1, 0], [0, 0], 6.2691,
            "<b>Step 40 · 3-layer ResNet:</b> F not yet (c_F 0.33) — G not yet (c_G -0.02)"),
}


@pytest.fixture(scope="module")
def played() -> dict:
    """Every setting's stream after all its steps."""
    out = {}
    for name, cfg in SETTINGS.items():
        stream = FrameStream(cfg)
        stream.advance()
        out[name] = stream
    return out


def positions(stream: FrameStream, packed: dict) -> np.ndarray:
    """The packed map positions, frames × points × 2, in map units."""
    pos = np.frombuffer(base64.b64decode(packed["pos"]), "<i2")
    pos = pos.reshape(len(packed["step"]), stream.meta()["points"], 2) / 32767
    return pos * np.asarray(packed["scale"])[:, None, None]


@pytest.mark.parametrize("name", list(NUMBERS))
def test_frames_keep_the_numbers_the_old_ui_showed(played: dict, name: str) -> None:
    stream = played[name]
    first, star, counts, pm, score, text = NUMBERS[name]
    packed = stream.frames(0, len(stream))
    assert len(stream) == stream.T + 1 and stream.done and not stream.error
    last = positions(stream, packed)[-1]
    assert last[0] == pytest.approx(first, abs=2e-3) and last[-1] == pytest.approx(star, abs=2e-3)
    assert packed["counts"][-1] == counts and [packed["plus"][-1], packed["minus"][-1]] == pm
    test = packed["errs"][-1][0] if name == "azl" else packed["test"][-1]
    assert test == pytest.approx(score, abs=1e-4)
    assert packed["text"][-1].startswith(text)


@pytest.mark.parametrize("name", list(SETTINGS))
def test_meta_and_frames_are_json_and_the_same_seed_gives_the_same_frames(played: dict,
                                                                         name: str) -> None:
    stream, again = played[name], FrameStream(SETTINGS[name])
    again.advance()
    one, two = stream.frames(0, len(stream)), again.frames(0, len(again))
    json.dumps(stream.meta(), allow_nan=False)
    json.dumps(one, allow_nan=False)
    for key in one:
        if key not in ("rows", "summary"):  # the rows hold each step's wall-clock time
            assert one[key] == two[key], key
    meta = {k: v for k, v in stream.meta().items() if k != "run"}
    assert meta == {k: v for k, v in again.meta().items() if k != "run"}
    assert stream.meta()["run"] != again.meta()["run"]  # a new stream is a new player run


def test_advance_stops_at_until_and_at_the_budget() -> None:
    stream = FrameStream(SETTINGS["paper"])
    assert len(stream) == 1 and not stream.done and stream.advance(until=1) == 0
    assert stream.advance(until=3) == 2 and len(stream) == 3
    assert stream.advance(budget_s=0.0) == 1  # a spent budget still takes one step
    assert stream.frames(0, 99)["step"] == [0, 1, 2, 3]  # clamped to the frames made
    assert stream.frames(5, 9)["step"] == []
    assert stream.advance() == stream.T - 3 and stream.done and stream.advance() == 0


def test_a_divergence_stops_the_stream_with_one_line() -> None:
    stream = FrameStream(SETTINGS["paper"])
    stream.advance(until=2)
    stream.run.params.a.fill_(float("nan"))  # poison the weights: the next step must stop
    assert stream.advance() == 0
    assert stream.done and "diverged" in stream.error and "\n" not in stream.error
    assert len(stream) == 2


def test_a_procedure_the_world_lacks_is_refused_naming_the_field() -> None:
    with pytest.raises(ConfigError, match="^procedure="):
        FrameStream(SETTINGS["paper"].replace(procedure="resnet3"))


def test_every_procedure_has_one_frame_maker_and_a_credit() -> None:
    for name in RECORDS:
        world = next(w for w in WORLDS.values() if name in w.procedures)
        cfg = Config(scenario=world.name, procedure=name)
        assert frame_name(cfg) in MAKERS, name
        assert credit(cfg)["source"] and credit(cfg)["claim"], name


@pytest.mark.parametrize("name", ["paper", "gfl-xor", "azl"])
def test_downloads_from_meta_and_frames_equal_the_run_reports(played: dict, name: str) -> None:
    stream = played[name]
    meta, packed = stream.meta(), stream.frames(0, len(stream))
    assert history_csv(packed["rows"]) == run_csv({"network": stream.run})
    timing = {"setup_s": 1.0, "train_s": 2.0}
    mine = build_report(meta, packed, timing)
    theirs = run_report(stream.cfg, {"network": stream.run}, str(stream.world.device), timing)
    assert json.dumps(mine) == json.dumps(theirs)  # the same keys in the same order


@pytest.mark.parametrize("name", ["paper-mog", "fcb-xor"])
def test_what_is_measured_names_the_centres_where_there_is_no_sigma_a_m(played: dict,
                                                                        name: str) -> None:
    """Data without a planted Σ_A M colours the neurons by their cosine with its centres and
    has no gradient split: "What is measured" says so (it described Σ_A M and the split)."""
    words = played[name].meta()["probes"]
    assert "data's centres" in words  # no words on the Σ_A M and the split it does not have
    assert "Σ_A M" not in words and "relevant/background" not in words
    paper = played["paper"].meta()["probes"]
    assert "with Σ_A M, the relevant/background split of the loss gradient" in paper


def test_the_count_rule_is_in_the_meta(played: dict) -> None:
    """What a star's count counts is the engine's word (meta["count_note"]); the map's legend and
    the GIF read it instead of guessing it from the marks' names or the run's kind."""
    notes = {name: s.meta()["count_note"] for name, s in played.items()}
    assert notes["paper"] == "counts: neurons with |cos(w_i, Σ_A M)| > 0.9"
    assert notes["gfl-xor"].startswith("counts: neurons with") and "D_j" in notes["gfl-xor"]
    assert notes["azl"] == "counts: neurons with cos(w_i, a star of the pair) > 0.9"
    assert notes["paper-mog"] is None  # the centres are not counted


def test_the_meta_sends_the_charts_the_player_draws(played: dict) -> None:
    """The player draws the chart specs of the meta (issue 35): every curve reads a column the
    frames carry, the keys are the canvases', and the meta names no run kind for it to branch
    on (the old meta's azl / gfl / plane)."""
    keys = {}
    for name, stream in played.items():
        meta, packed = stream.meta(), stream.frames(0, len(stream))
        assert not {"azl", "gfl", "plane"} & set(meta), name
        assert set(meta["map"]) == {"title", "axes", "sign"}, name
        keys[name] = [c["key"] for c in meta["charts"]]
        for chart in meta["charts"]:  # never colour alone: each curve its own dash pattern
            dashes = {str(se["dash"] if isinstance(se["dash"], list)
                          else {True: [6, 4], False: []}[se["dash"]])
                      for se in chart["series"]}  # true: the player's plain dash, [6, 4]
            assert len(dashes) == len(chart["series"]), chart
            for se in chart["series"]:
                col = packed[se["col"]]
                assert len(col) == len(stream), (name, se)
                values = [v[se["index"]] if "index" in se else v for v in col if v is not None]
                assert any(v is not None for v in values), (name, chart["key"], se["name"])
    assert keys["paper"] == ["acc", "align", "grad"]  # Σ_A M: its stars and gradient split
    assert keys["fcb-xor"] == keys["paper-mog"] == ["acc"]  # no planted Σ_A M: no split
    assert keys["gfl-xor"] == ["acc", "align"] and keys["azl"] == ["acc", "align", "grad", "pairs"]
    pairs = played["azl"].meta()["charts"][-1]["series"]
    assert len(pairs) == 8 and len({str(se["dash"]) for se in pairs}) == 8  # not colour alone
