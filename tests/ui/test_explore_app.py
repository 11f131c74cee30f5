"""Explore page through streamlit.testing.v1.AppTest: real script runs, real (small) training.

The player lives in the browser (tests/browser); here the server side is checked: what the
component is sent (only new frames, compact, with the snapshot's numbers) and when it computes.
The browser's requests are made as the component makes them, by setting the frames it wants.
"""

from __future__ import annotations

import base64
import json
import math
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from engine.config import Config
from engine.presets import preset_config
from ui import live, player_view

APP = str(Path(__file__).resolve().parents[2] / "app.py")
SMALL = {"n": "2000", "n_test": "1000", "T": "40", "m": "50", "batch": "200"}


def open_app(**params: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for name, value in {**SMALL, **params}.items():
        at.query_params[name] = value
    return at.run()


def player(at: AppTest) -> dict:
    """The data the player component was sent in the last script run."""
    found = [e for e in at.get("bidi_component") if e.proto.component_name.endswith("player")]
    assert found, "no player component on the page"
    return json.loads(found[-1].proto.json)


def want(at: AppTest, frames: int) -> AppTest:
    """What the browser does on Play/Step: ask for frames, then the fragment computes them."""
    state(at).explore.player["want"] = frames
    for _ in range(20):
        at.run()
        if len(state(at).explore.stream) >= frames or state(at).explore.stream.error:
            break
    # A full run sends the player before it computes (pages/explore.py): the frames it
    # computed go out with the next run, as they go out with the next tick in a browser.
    return at.run()


def summary(at: AppTest) -> str:
    return next(md.value for md in at.markdown if "d=" in md.value and "· k=" in md.value)


def plain(markdown: str) -> str:
    """A message as the user reads it (without the Markdown escapes)."""
    return markdown.replace("\\", "").replace("\u200b", "")


def state(at: AppTest):
    return at.session_state["app"]


def test_default_render_has_no_exception():
    at = AppTest.from_file(APP, default_timeout=180).run()
    assert not at.exception
    assert not at.error
    data = player(at)
    assert data["meta"]["T"] == Config().T and data["frames"]["step"] == [0]
    assert data["meta"]["neurons"] == 2 * Config().m and data["meta"]["truth"]
    assert "d=500 · D=100 · k=5 · p_o=0.5 · m=300" in summary(at)
    assert "Initialisation" in data["frames"]["text"][0]
    assert "of the 600 neurons within cos 0.9 of a star" in data["frames"]["text"][0]


def test_url_params_set_widgets_and_summary():
    at = open_app(k="7", p_o="0.3")
    assert not at.exception and not at.warning
    assert at.number_input(key="w_k").value == 7
    assert at.slider(key="w_p_o").value == pytest.approx(0.3)
    assert at.number_input(key="w_n").value == 2000
    assert "k=7 · p_o=0.3" in summary(at)
    trained = state(at).explore.stream.world.cfg  # the setting the run really trains
    assert trained == Config(k=7, p_o=0.3, n=2000, n_test=1000, T=40, m=50, batch=200)
    assert player(at)["meta"]["T"] == 40


def test_bad_url_value_warns_and_falls_back():
    at = open_app(k="abc", m="50")
    assert not at.exception
    assert any("k\\=\\'abc\\'" in w.value for w in at.warning)  # escaped Markdown
    assert at.number_input(key="w_k").value == Config().k
    assert at.number_input(key="w_m").value == 50  # the good values are kept


def test_only_new_frames_are_sent_compactly_with_the_snapshots_numbers(monkeypatch):
    """Steps 1 and 2 are computed before the browser asks (Play shows them at once). (A batch
    goes again inside the next messages for OVERLAP_S, in case it was cleared unsent:
    tests/ui/test_player_acks.py; here every earlier message counts as delivered.)"""
    monkeypatch.setattr(player_view, "OVERLAP_S", 0.0)
    at = open_app()
    first = player(at)
    assert first["start"] == 0 and first["frames"]["step"] == [0]
    assert state(at).explore.player["want"] == 1  # nobody asked for more
    assert state(at).explore.timer_on  # yet the fragment ticks, and a tick computes them:
    while len(state(at).explore.stream) < 3:  # (AppTest runs no fragment timer; a loaded
        live.compute(state(at), state(at).explore.player)  # machine takes more than one tick)
    at.run()  # the frames computed after the first one go out
    data, hist = player(at), state(at).explore.stream.run.history
    assert data["meta"]["run"] == first["meta"]["run"]
    assert data["start"] == 1 and data["frames"]["step"] == [1, 2]  # frame 0 is not re-sent
    frames, pts = data["frames"], data["meta"]["points"]
    pos = np.frombuffer(base64.b64decode(frames["pos"]), "<i2").reshape(2, pts, 2)
    for j, i in enumerate((1, 2)):
        xy = pos[j] / 32767 * frames["scale"][j]
        assert np.abs(xy - hist[i].embedding).max() < 1e-3 * frames["scale"][j]
        cos = np.frombuffer(base64.b64decode(frames["cos"]), np.int8).reshape(2, -1)[j] / 127
        assert np.abs(cos - hist[i].cos).max() <= 0.5 / 127 + 1e-9
        assert frames["frac"][j] == pytest.approx(hist[i].frac_aligned, abs=1e-5)
        assert frames["cosmax"][j] == pytest.approx(hist[i].cos_max, abs=1e-5)
        rel, bg = hist[i].grad["grad_rel"], hist[i].grad["grad_bg"]
        assert frames["share"][j] == pytest.approx(rel / (rel + bg))
        assert f"{100 * hist[i].frac_aligned:.0f} % of the 100 neurons" in frames["text"][j]
        assert f"max cos {hist[i].cos_max:.2f}" in frames["text"][j]
        # the map's "N on ±Σ_A M" labels: exact counts, the narration's (not from int8 colours)
        exact = np.asarray(hist[i].cos, dtype=np.float64)
        plus, minus = int((exact > 0.9).sum()), int((exact < -0.9).sum())
        assert (frames["plus"][j], frames["minus"][j]) == (plus, minus)
        assert f"({plus} on +Σ_A M, {minus} on −Σ_A M)" in frames["text"][j]
    assert "After step 1" in frames["text"][0] and "After step 2" in frames["text"][1]
    at.run()  # nothing new computed: nothing re-sent
    assert player(at)["start"] == 3 and player(at)["frames"]["step"] == []


def test_a_missing_batch_is_sent_again_from_what_the_browser_holds():
    at = want(open_app(), 4)
    player_view._resend_from(state(at).explore.player, 1)  # the component's "have" message
    at.run()
    assert player(at)["start"] == 1 and player(at)["frames"]["step"] == [1, 2, 3]


def test_changing_k_restarts_and_bad_relation_keeps_last_run():
    at = want(open_app(), 2)
    run_before, id_before = state(at).explore.stream.run, player(at)["meta"]["run"]
    at.number_input(key="w_k").set_value(6).run()  # even k is not allowed for parity
    assert any("k\\=6" in e.value for e in at.error)  # the message is escaped Markdown
    assert state(at).explore.stream.run is run_before and len(run_before.history) >= 2
    at.number_input(key="w_k").set_value(7).run()
    assert not at.error
    data = player(at)
    assert data["meta"]["run"] != id_before and data["start"] == 0
    assert data["frames"]["step"] == [0]
    assert "k=7" in summary(at) and state(at).explore.stream.run is not run_before
    assert state(at).explore.stream.run.world.cfg.k == 7


def test_preset_set_by_another_page_loads_into_widgets():
    at = open_app()
    state(at).cfg = preset_config("quick-parity").replace(n=2000, n_test=1000, T=30)
    state(at).preset = None
    at.run()
    assert player(at)["meta"]["T"] == 30
    assert at.number_input(key="w_d").value == 100 and at.number_input(key="w_D").value == 50
    assert "d=100 · D=50" in summary(at)


def test_divergence_stops_with_a_message_and_the_history_kept():
    at = want(open_app(), 3)
    # poison the weights: the next step must stop
    state(at).explore.stream.run.params.a.fill_(math.nan)
    at = want(at, 10)
    assert "diverged" in player(at)["error"] and len(state(at).explore.stream) == 3
    assert [b.label for b in at.get("download_button")] == [
        "Metrics CSV", "Report JSON", "Offline player (HTML)", "Map animation (GIF)"]


def test_server_limit_refuses_a_setting_and_keeps_the_run():
    at = want(open_app(), 2)
    run_before = state(at).explore.stream.run
    at.number_input(key="w_m").set_value(5000).run()  # within m's range, beyond FEX_MAX_M
    assert not at.exception
    assert any("m=5000 is not allowed" in plain(e.value) and "FEX_MAX_M" in plain(e.value)
               for e in at.error)
    assert at.number_input(key="w_m").value == 50  # the control shows what runs
    assert state(at).explore.stream.run is run_before and len(run_before.history) >= 2
    assert "m=50" in summary(at)  # the summary shows what still runs
    fresh = open_app(m="5000")  # refused from a link: a message, no run, no exception
    assert not fresh.exception and state(fresh).explore.stream is None
    assert any("FEX_MAX_M" in e.value for e in fresh.error)


def test_the_view_comes_from_the_url_and_the_shown_step_is_computed():
    at = open_app(speed="50", colour="sign", smooth="0.6", step="3")
    for _ in range(10):
        if len(state(at).explore.stream) >= 4:
            break
        at.run()
    assert player(at)["view"] == {"speed": 50, "colour": "sign", "smooth": 0.6, "step": 3}
    assert len(state(at).explore.stream) == 4  # up to the shown step, no further
    assert at.query_params["speed"] == "50"
    assert at.query_params["step"] == "3" and at.query_params["colour"] == "sign"


def test_mixture_without_truth_shows_centres_not_stars():
    at = open_app(scenario="mog", T="20")
    first = player(at)
    at = want(at, 2)
    assert not at.exception and not at.error
    meta = first["meta"]
    assert not meta["truth"]
    names = [m["name"] for m in meta["marks"]]
    assert "centres, label +1" in names and "centres, label −1" in names
    assert "+Σ_A M" not in names
    assert first["frames"]["share"] == [None]  # no relevant/background split
    assert "Σ_A M" not in first["frames"]["text"][0]  # no words on what the world lacks
    probes = state(at).explore.stream.meta()["probes"]  # "What is measured"
    assert "centres" in probes and "Σ_A M" not in probes


OFFLINE_SCENARIO_PRESETS = {  # preset -> (planted Σ_A M: gradient split shown, map marks)
    "paper-hidden-repr": (True, "centres, label +1"),  # the 2×50 labelled hidden vectors
    "dm-sparse-parity": (True, "+Σ_A M"), "paper-mog-1": (False, "centres, label +1"),
    "real-digits-01": (False, None), "fcb-xor": (False, "+µ₁"),  # its named centres
    "digits-teacher-student": (False, None),
    # the GFL procedure's worlds (issue 21): its own run in the same player, a star per
    # feature direction D_j (a centre: D_j alone; a feature or subspace direction: ±D_j)
    "gfl-xor": (False, "D1"), "gfl-multi-index": (False, "±D1"),
    "gfl-uniform-parity": (True, "±D1"),
}


def test_the_multi_output_azl_world_plays_from_the_sidebar():
    """The AZL world (y ∈ ℝ⁸) plays in Explore at its preset's own sizes (its own run: the
    ResNet with the other methods beside it; tests/ui/test_explore_azl.py checks the frames)."""
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.selectbox(key="w_preset").set_value("azl-resnet").run()
    at = want(at, 3)
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    error = player(at)["meta"]["charts"][0]  # the test error of every method, on a log axis
    assert error["log"] and len(error["series"]) == 5 and len(state(at).explore.stream) >= 3


@pytest.mark.parametrize("name", list(OFFLINE_SCENARIO_PRESETS))
def test_every_offline_scenario_is_selectable_and_steps(name):
    """Issue 8: each world is picked from the sidebar's preset list and trains in Explore."""
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.selectbox(key="w_preset").set_value(name).run()
    assert state(at).cfg == preset_config(name)
    at = want(at, 2)
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    meta = player(at)["meta"]
    assert meta["T"] == preset_config(name).T and len(state(at).explore.stream) >= 2
    has_truth, mark = OFFLINE_SCENARIO_PRESETS[name]
    assert meta["truth"] == has_truth and state(at).explore.stream.world.ds.has_truth == has_truth
    names = [m["name"] for m in meta["marks"]]
    if mark is not None:
        assert mark in names, names
    assert ("+Σ_A M" in names) == (mark == "+Σ_A M"), names


def test_the_computed_step_sizes_are_shown():
    at = open_app(preset="quick-parity")
    assert not at.exception
    sch = state(at).explore.stream.world.schedule
    shown = [e for e in at.expander if e.label == "Step sizes of this run"]
    assert len(shown) == 1
    table = shown[0].dataframe[0].value
    assert list(table["stage"]) == ["step 1", "step 2", f"steps 3-{sch.T}"]
    assert table["η"][1] == sch.step2.eta > 1  # the automatic η⁽²⁾
    assert "ν = 0.0817" in table["rule"][0]


def test_a_refusal_names_the_changed_setting_and_the_sidebar_shows_what_runs(monkeypatch):
    """m = 2000 was refused as "T=600 is not allowed" while the sidebar kept showing m = 2000
    and m = 50 kept running."""
    from engine import guard

    cfg = Config(**{k: int(v) for k, v in SMALL.items()}).replace(T=600)
    fits, too_long = (guard.estimate(c).seconds for c in (cfg, cfg.replace(m=2000)))
    monkeypatch.setenv("FEX_MAX_SECONDS", f"{(fits + too_long) / 2:.3f}")
    at = open_app(T="600")
    run_before = state(at).explore.stream.run
    at.number_input(key="w_m").set_value(2000).run()
    errors = [plain(e.value) for e in at.error]
    assert any(e.startswith("m=2000 is not allowed with T=600: each method needs about")
               and "FEX_MAX_SECONDS" in e and "Still running m=50." in e for e in errors), errors
    assert at.number_input(key="w_m").value == 50  # the control shows what runs
    assert state(at).explore.stream.run is run_before and "m=50" in summary(at)


def test_k_steps_by_two_where_it_must_be_odd():
    at = open_app()
    k = at.number_input(key="w_k")
    assert k.proto.step == 2 and k.value == 5
    k.increment().run()
    assert not at.error and state(at).cfg.k == 7  # never k=6 on the way
    other = open_app(labeling="interval", t1="1", t2="3")
    assert state(other).cfg.labeling == "interval" and other.number_input(key="w_k").proto.step == 1
