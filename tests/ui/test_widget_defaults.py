"""Every sidebar control's own default is the setting it shows.

The browser sends a widget's *default* when it remounts the widget without a stored value, and
Python then takes that as a change. With Streamlit's defaults (a number's minimum, a list's first
entry) a running setting silently became T = 2 in CI's load test. So each control is created
with the current setting as its default: a remount sends the value already running.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine.presets import preset_config

APP = str(Path(__file__).resolve().parents[2] / "app.py")
SETTING = {"n": "2000", "n_test": "1000", "T": "40", "m": "50", "batch": "200", "k": "5",
           "p_o": "0.3", "eta2": "0.5", "structure": "false"}


def _default(e):
    """The default a widget element was created with, in the terms of its value."""
    p = e.proto
    kind = type(p).__name__
    if kind == "NumberInput":
        return p.default if p.HasField("default") else None
    if kind == "Slider":
        return p.default[0]
    if kind == "Selectbox":
        return e.options[p.default] if p.HasField("default") else None
    return p.default  # toggle, text input


def _shown(e):
    kind = type(e.proto).__name__
    if kind == "Selectbox":
        return e.options[e.index] if e.index is not None else None
    return e.value


def sidebar_widgets(at: AppTest) -> list:
    found = [e for kind in ("number_input", "slider", "selectbox", "toggle", "text_input")
             for e in at.get(kind) if (getattr(e, "key", None) or "").startswith("w_")]
    assert len(found) > 10, [e.key for e in found]  # fcb-xor shows 13: what its run reads
    return found


def mismatches(at: AppTest) -> list:
    return [(e.key, _default(e), _shown(e)) for e in sidebar_widgets(at)
            if _default(e) != _shown(e)]


def test_every_control_defaults_to_the_setting_it_shows():
    at = AppTest.from_file(APP, default_timeout=120)
    for name, value in SETTING.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception
    assert at.number_input(key="w_T").value == 40 and at.number_input(key="w_eta2").value == 0.5
    assert at.toggle(key="w_structure").value is False
    assert mismatches(at) == []


def test_defaults_follow_a_moved_control_and_a_loaded_preset():
    at = AppTest.from_file(APP, default_timeout=120)
    for name, value in SETTING.items():
        at.query_params[name] = value
    at.run()
    at.number_input(key="w_T").set_value(50).run()
    assert at.number_input(key="w_T").value == 50 and mismatches(at) == []
    at.selectbox(key="w_preset").select("quick-parity").run()
    assert at.number_input(key="w_T").value == preset_config("quick-parity").T
    assert _default(at.selectbox(key="w_preset")).startswith("quick-parity ")
    assert mismatches(at) == []


@pytest.mark.parametrize("preset", ["paper-interval", "dm-sparse-parity", "paper-mog-1",
                                    "real-digits-01", "fcb-xor", "theory-parity"])
def test_each_worlds_controls_default_to_its_setting(preset):
    """The controls one world or labeling alone shows (interval thresholds, mixture widths,
    the real data's class pair, the theory variant) follow the same rule."""
    at = AppTest.from_file(APP, default_timeout=300)
    for name, value in {"preset": preset, "n": "2000", "n_test": "1000", "T": "5"}.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception
    assert mismatches(at) == []
