"""The sidebar's limit_ridge control (Baselines): a link's value is shown as 1.0e-06, not as the
0.00 a two-decimal number box would show, and a value set there reaches the run's setting."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def test_the_ridge_control_shows_and_sets_the_setting():
    at = AppTest.from_file(APP, default_timeout=120)
    for name, value in {"preset": "gfl-xor", "n": "300", "n_test": "300", "m": "10", "T": "4",
                        "limit_ridge": "1e-06"}.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    box = at.number_input(key="w_limit_ridge")
    assert box.value == 1e-6 and box.proto.format == "%.1e" and box.proto.min == 0.0
    box.set_value(1e-3).run()
    assert not at.exception and at.session_state["app"].cfg.limit_ridge == 1e-3
