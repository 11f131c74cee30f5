"""Explore page through streamlit.testing.v1.AppTest: real script runs, real (small) training."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine.config import Config
from engine.presets import preset_config

APP = str(Path(__file__).resolve().parents[2] / "app.py")
SMALL = {"n": "2000", "n_test": "1000", "T": "40", "m": "50", "batch": "200"}


def open_app(**params: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for name, value in {**SMALL, **params}.items():
        at.query_params[name] = value
    return at.run()


def counter(at: AppTest) -> tuple[int, int]:
    """(t, T) from the `step t / T` line."""
    for md in at.markdown:
        found = re.search(r"step (\d+) / (\d+)", md.value)
        if found:
            return int(found.group(1)), int(found.group(2))
    raise AssertionError("no `step t / T` counter on the page")


def summary(at: AppTest) -> str:
    return next(md.value for md in at.markdown if "d=" in md.value and "· k=" in md.value)


def click(at: AppTest, label: str) -> AppTest:
    return next(b for b in at.button if b.label == label).click().run()


def state(at: AppTest):
    return at.session_state["app"]


def charts(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def test_default_render_has_no_exception():
    at = AppTest.from_file(APP, default_timeout=180).run()
    assert not at.exception
    assert not at.error
    assert counter(at) == (0, Config().T)
    assert "d=500 · D=100 · k=5 · p_o=0.5 · m=300" in summary(at)
    assert len(charts(at)) == 3
    assert any("Initialisation" in i.value for i in at.info)


def test_url_params_set_widgets_and_summary():
    at = open_app(k="7", p_o="0.3")
    assert not at.exception and not at.warning
    assert at.slider(key="w_k").value == 7
    assert at.slider(key="w_p_o").value == pytest.approx(0.3)
    assert at.number_input(key="w_n").value == 2000
    assert "k=7 · p_o=0.3" in summary(at)
    assert state(at).run.world.cfg == Config(k=7, p_o=0.3, n=2000, n_test=1000, T=40, m=50,
                                             batch=200)
    assert counter(at) == (0, 40)


def test_bad_url_value_warns_and_falls_back():
    at = open_app(k="abc", m="50")
    assert not at.exception
    assert any("k\\=\\'abc\\'" in w.value for w in at.warning)  # escaped Markdown
    assert at.slider(key="w_k").value == Config().k
    assert at.number_input(key="w_m").value == 50  # the good values are kept


def test_step_advances_counter_and_snapshot():
    at = open_app()
    before = charts(at)
    at = click(at, "Step")
    assert counter(at) == (1, 40)
    at = click(at, "Step")
    assert counter(at) == (2, 40)
    after = charts(at)
    assert after[0]["layout"]["title"]["text"].endswith("step 2")
    assert before[0]["layout"]["title"]["text"].endswith("step 0")
    # step 1 measures a gradient whose relevant part dominates the background (the paper's point)
    snap = state(at).run.history[1]
    assert snap.grad["grad_ratio"] > 1.0
    assert state(at).run.history[2].cos_max > state(at).run.history[0].cos_max


def test_changing_k_restarts_and_bad_relation_keeps_last_run():
    at = open_app()
    at = click(at, "Step")
    run_before = state(at).run
    at.slider(key="w_k").set_value(6).run()  # even k is not allowed for parity
    assert any("k\\=6" in e.value for e in at.error)  # the message is escaped Markdown
    assert state(at).run is run_before and counter(at) == (1, 40)
    at.slider(key="w_k").set_value(7).run()
    assert not at.error
    assert counter(at) == (0, 40)
    assert "k=7" in summary(at) and state(at).run is not run_before
    assert state(at).run.world.cfg.k == 7


def test_preset_set_by_another_page_loads_into_widgets():
    at = open_app()
    state(at).cfg = preset_config("quick-parity").replace(n=2000, n_test=1000, T=30)
    state(at).preset = None
    at.run()
    assert counter(at) == (0, 30)
    assert at.slider(key="w_d").value == 100 and at.slider(key="w_D").value == 50
    assert "d=100 · D=50" in summary(at)


def test_play_streams_and_divergence_stops_with_history_kept():
    at = open_app()
    at = click(at, "Play")  # one script run = one tick of the live fragment
    t1, _ = counter(at)
    assert t1 >= 1 and state(at).playing
    state(at).run.params.a.fill_(math.nan)  # poison the weights: the next step must stop
    at = click(at, "Step") if not state(at).playing else at.run()
    assert not state(at).playing
    assert any("diverged" in e.value for e in at.error)
    assert counter(at)[0] == t1  # the failed step is not recorded
    assert [b.label for b in at.get("download_button")] == ["Metrics CSV", "Report JSON"]


def test_server_limit_refuses_a_setting_and_keeps_the_run():
    at = open_app()
    at = click(at, "Step")
    run_before = state(at).run
    at.number_input(key="w_m").set_value(5000).run()  # within m's range, beyond FEX_MAX_M
    assert not at.exception
    assert any("m=5000" in e.value and "FEX_MAX_M" in e.value for e in at.error)
    assert state(at).run is run_before and counter(at) == (1, 40)
    assert "m=50" in summary(at)  # the summary shows what still runs
    fresh = open_app(m="5000")  # refused from a link: a message, no run, no exception
    assert not fresh.exception and state(fresh).run is None
    assert any("FEX_MAX_M" in e.value for e in fresh.error)


def test_scrubber_shows_an_earlier_step_and_colour_toggle():
    at = open_app()
    for _ in range(3):
        at = click(at, "Step")
    assert counter(at) == (3, 40)
    at.slider(key="scrub_step").set_value(1).run()
    assert "showing step 1" in next(md.value for md in at.markdown if "step 3 / 40" in md.value)
    hist = state(at).run.history
    spec = charts(at)[0]
    assert spec["layout"]["title"]["text"].endswith("step 1")
    neurons = next(t for t in spec["data"] if t["name"] == "neurons")
    assert len(neurons["customdata"]["bdata"]) > 0 and len(hist) == 4
    assert at.metric[0].value == f"{hist[1].cos_max:.3f}"  # the numbers of step 1, not 3
    at.segmented_control(key="w_colour_by").set_value("sign of a_i").run()
    names = [t["name"] for t in charts(at)[0]["data"]]
    assert names == ["+Σ_A M", "−Σ_A M", "a_i > 0", "a_i < 0"]
    at = click(at, "Step")  # stepping follows the newest step again
    assert counter(at) == (4, 40) and charts(at)[0]["layout"]["title"]["text"].endswith("step 4")


def test_mixture_without_truth_shows_centres_not_stars():
    at = open_app(scenario="mog", T="20")
    at = click(at, "Step")
    assert not at.exception and not at.error
    specs = charts(at)
    assert len(specs) == 2  # map and accuracy; no gradient split without a planted Σ_A M
    names = [t["name"] for t in specs[0]["data"]]
    assert "centres, label +1" in names and "centres, label −1" in names
    assert "+Σ_A M" not in names
    k = state(at).cfg.k
    centres = [t for t in specs[0]["data"] if t["name"].startswith("centres")]
    assert sum(len(t["x"]["bdata"]) for t in centres) > 0 and 2 ** k == len(
        state(at).world.ds.centres)
    assert any("no single planted" in i.value for i in at.info)


OFFLINE_SCENARIO_PRESETS = {  # preset -> (planted Σ_A M: gradient split shown, map marks)
    "paper-hidden-repr": (True, "centres, label +1"),  # the 2×50 labelled hidden vectors
    "dm-sparse-parity": (True, "+Σ_A M"), "paper-mog-1": (False, "centres, label +1"),
    "real-digits-01": (False, None), "fcb-xor": (False, "centres, label +1"),
    "digits-teacher-student": (False, None),
}


@pytest.mark.parametrize("name", list(OFFLINE_SCENARIO_PRESETS))
def test_every_offline_scenario_is_selectable_and_steps(name):
    """Issue 8: each world is picked from the sidebar's preset list and trains in Explore."""
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.selectbox(key="w_preset").set_value(name).run()
    assert state(at).cfg == preset_config(name)
    at = click(at, "Step")
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert counter(at) == (1, preset_config(name).T)
    names = [t.get("name") for t in charts(at)[0]["data"]]
    has_truth, mark = OFFLINE_SCENARIO_PRESETS[name]
    assert len(charts(at)) == (3 if has_truth else 2)
    assert state(at).world.ds.has_truth == has_truth
    assert "neurons" in names or "a_i > 0" in names, names
    if mark is not None:
        assert mark in names, names
    assert ("+Σ_A M" in names) == (mark == "+Σ_A M"), names
