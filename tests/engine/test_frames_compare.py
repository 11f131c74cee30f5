"""CompareStream (engine/frames/compare.py): what the Compare page reads instead of the runs.

Its rows, CSV and report equal what the runs' histories gave (engine.report's history_rows,
history_csv, build_report on a SeedSeries, the page's code before the stream) on the same seed,
played separately; only the wall-clock fields (`elapsed` per step, `timing`) may differ."""

from __future__ import annotations

import csv
import io
import json
import time

import pytest

from engine.frames.compare import CompareStream
from engine.presets import PRESETS, preset_config
from engine.report import build_report, history_csv, history_rows
from engine.seeds import SeedSeries
from tests.engine.frames_settings import GFL_TINY, SETTINGS

TIMING = {"total_s": 1.0, "setup_s": 0.5}
CASES = {  # setting, methods, seeds, preset (the paper's numbers beside ours)
    "paper": (SETTINGS["paper"], ("network", "ntk", "rf", "one_step", "rf_no_structure"), 2,
              PRESETS["paper-parity"]),
    "gfl-xor": (SETTINGS["gfl-xor"], ("network", "ntk", "rf", "one_step"), 1, None),
    "gfl-multi-index": (preset_config("gfl-multi-index").replace(**GFL_TINY),
                        ("network", "rf"), 1, None),
    "azl": (preset_config("azl-resnet").replace(n=400, n_test=600, m=24, T=6, batch=100,
                                                azl_drop_epoch=1),
            ("resnet3", "fc3", "two_layer", "ntk", "last_layer"), 1, None),
}


def wallclock_free(value):
    """A copy without the per-step wall-clock column `elapsed` (the only field two plays of one
    seed may differ in)."""
    if isinstance(value, dict):
        return {k: wallclock_free(v) for k, v in value.items() if k != "elapsed"}
    if isinstance(value, list):
        return [wallclock_free(v) for v in value]
    return value


def csv_rows(text: str) -> list[dict]:
    return wallclock_free(list(csv.DictReader(io.StringIO(text))))


def old_way(cfg, methods, seeds, preset) -> dict:
    """The Compare page before the stream: a SeedSeries, its first seed's runs read directly."""
    series = SeedSeries(cfg, methods, seeds, "cpu", embed=False)
    series.run()
    runs = series.first.runs
    return {"rows": {m: history_rows(r) for m, r in runs.items()},
            "csv": history_csv(runs),
            "report": build_report(series.first.cfg, runs, str(series.first.world.device),
                                   TIMING, series.per_seed, preset, series.diverged),
            "size": (sum(len(r.history) for r in runs.values()),
                     max(len(r.history[-1].scalars()) for r in runs.values()))}


@pytest.fixture(scope="module")
def played() -> dict:
    """Each case played the old way and through a CompareStream ticked like the page."""
    out = {}
    for name, (cfg, methods, seeds, preset) in CASES.items():
        stream = CompareStream(cfg, methods, seeds, device="cpu")
        ticks = 0
        while not stream.done:
            stream.advance(budget_s=0.0)
            ticks += 1
        assert ticks == seeds * cfg.T and stream.error == ""
        out[name] = (stream, old_way(cfg, methods, seeds, preset), preset)
    return out


@pytest.mark.parametrize("name", list(CASES))
def test_rows_csv_and_report_equal_the_runs(played, name) -> None:
    stream, old, preset = played[name]
    assert wallclock_free(stream.rows()) == wallclock_free(old["rows"])
    assert csv_rows(stream.csv()) == csv_rows(old["csv"])
    new = stream.report(preset, timing=TIMING)
    assert json.dumps(wallclock_free(new)) == json.dumps(wallclock_free(old["report"]))
    assert stream.export_size() == old["size"]
    json.dumps(stream.meta(), allow_nan=False)  # JSON-able, no NaN


def test_rows_slice_and_meta(played) -> None:
    stream, _, _ = played["paper"]
    rows = stream.rows()
    assert stream.rows(2, 4) == {m: r[2:4] for m, r in rows.items()}
    meta = stream.meta()
    assert [m["name"] for m in meta["methods"]] == list(rows)
    assert meta["methods"][0] == {"name": "network", "label": "Network", "color": "#0072B2",
                                  "marker": "circle", "structure": True}
    assert meta["regression"] is False and meta["own_panel"] is False
    assert "ICLR 2022" in meta["source"]["citation"] and meta["T"] == 6 and meta["seeds"] == 2
    assert stream.t == 6 and stream.finished == 2 and not stream.running
    assert played["gfl-multi-index"][0].meta()["regression"] is True


def test_azl_meta_charts_and_narration(played) -> None:
    stream, _, _ = played["azl"]
    meta = stream.meta()
    assert meta["own_panel"] and meta["procedure"] == "resnet3"
    (line,) = meta["charts"][0]["lines"]
    cfg = CASES["azl"][0]
    assert line["value"] == pytest.approx(cfg.k * cfg.azl_alpha ** 2) and "kα²" in line["label"]
    lead, text = stream.narration()
    last = stream.rows()["resnet3"][-1]
    assert lead == "resnet3" and text.startswith(f"step {cfg.T} · 3-layer ResNet:")
    assert f"c_F {last['c_F']:.2f}" in text and f"(seed {cfg.seed})" in text
    assert played["paper"][0].narration() is None  # the paper's procedure narrates no Compare


def test_a_divergence_is_an_error_with_every_step_before_it(tiny_cfg) -> None:
    stream = CompareStream(tiny_cfg.replace(eta=1e6, eta_w=1e6), ("network",), 2, device="cpu")
    while not stream.done:
        stream.advance(budget_s=0.0)
    assert stream.error and stream.done
    report = stream.report(timing=TIMING)
    assert report["diverged"] and stream.error in report["diverged"]
    steps = [r["step"] for r in stream.rows()["network"]]
    assert steps == list(range(len(steps))) and steps[-1] < report["diverged_at"]
    assert report["history"]["network"][-1]["step"] == steps[-1]


def test_limits_come_from_the_stream_not_the_runs(played) -> None:
    """The converged limits run in the engine's background thread, keyed by the stream."""
    stream, _, _ = played["gfl-xor"]
    assert stream.limits() == {} and not stream.limits_pending()
    stream.limits_start()
    stream.limits_start()  # once
    for _ in range(2400):  # the λ → 0 path solves several ridges: up to 4 min on 2 loaded cores
        if not stream.limits_pending():
            break
        time.sleep(0.1)
    got = stream.limits()
    assert sorted(got) == ["ntk", "one_step", "rf"]
    assert all(v.get("test_acc") is not None or v.get("refused") for v in got.values())
