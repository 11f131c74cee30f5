"""Settings are shown only where they change a number. For every world × procedure, the sidebar
(AppTest, FEX_WORKERS=0) shows no control whose value the run ignores or that the world pins
(engine.reads, WorldRecord.pins, ProcedureRecord.reads), and every number or slider control it
shows is live: moved to a neighbouring value, the setting runs with it, and a data setting then
draws different data (the world's make_dataset, compared byte for byte)."""

from __future__ import annotations

import dataclasses
import hashlib

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from engine.config import SPECS, Config, validate, with_pins
from engine.presets import PRESETS, preset_config
from engine.procedures import owner_of, runs_with
from engine.reads import unread_reason
from engine.scenarios import WORLDS, make_dataset, pinned
from tests.engine.test_world_reads import trace
from ui.state import STATE_KEY, AppState

SMALL = {"n": 300, "n_test": 200, "batch": 50, "T": 20, "m": 8}  # a blink to draw, well in range
# the AZL presets' T fits their drop epoch; real digits 0/1 have about 250 + 110 images, and an
# n beyond them reads them all
KEEP = {("azl_hier", "T"): None, ("real", "n"): 200, ("real", "n_test"): 80}


def _app():
    """The sidebar alone, on the session's setting."""
    from ui.controls import sidebar
    from ui.state import get_state

    sidebar(get_state())


def base(world: str, procedure: str) -> Config:
    """The world's first preset (else its defaults with its pins), small, under `procedure`."""
    preset = next((p for p in PRESETS.values() if p.settings.get("scenario") == world), None)
    cfg = preset_config(preset.name) if preset else with_pins(Config(scenario=world))
    small = {k: KEEP.get((world, k), v) for k, v in SMALL.items()}
    small = {k: v for k, v in small.items() if v is not None}
    return validate(dataclasses.replace(cfg, procedure=procedure, **small))


CASES = [(w, p) for w in WORLDS for p in runs_with(Config(scenario=w))
         if not WORLDS[w].download_setting or WORLDS[w].download_setting(base(w, p)) is None]


def fingerprint(cfg: Config) -> str:
    """The bytes of the data the world draws for cfg."""
    ds, digest = make_dataset(cfg), hashlib.sha256()
    for arr in (ds.M, ds.basis, ds.z_train, ds.y_train, ds.z_test, ds.y_test, ds.centres):
        if arr is not None:
            digest.update(np.ascontiguousarray(arr).tobytes())
    return digest.hexdigest()


def candidates(name: str, value):
    """Neighbouring values of a setting, nearest first (one may break a rule, e.g. d odd)."""
    spec = SPECS[name]
    if value is None:  # auto: any value in range
        raw = [0.5, 1.0, 2.0, 0.1]
    elif spec.kind is int:
        raw = [value - 1, value + 1, value - 2, value + 2, value + 4]
    else:
        step = 0.01 if spec.hi is not None and spec.hi <= 10 else max(abs(value) / 10, 0.01)
        raw = [round(value + s * step, 6) for s in (1, -1, 2, -2)]
    return [v for v in raw if (spec.lo is None or v > spec.lo or (v == spec.lo
                                                                  and not spec.open_lo))
            and (spec.hi is None or v < spec.hi or (v == spec.hi and not spec.open_hi))]


def controls(at: AppTest) -> dict:
    """Setting name → its sidebar widget (number inputs and sliders apart)."""
    out = {}
    for kind in ("number_input", "slider", "selectbox", "toggle", "text_input"):
        for e in at.get(kind):
            if (getattr(e, "key", None) or "")[2:] in SPECS and e.key.startswith("w_"):
                out[e.key[2:]] = (kind, e)
    return out


def move(at: AppTest, name: str, kind: str, value) -> Config | None:
    """Set a control and rerun; the running setting if it took the value, else None."""
    getattr(at, kind)(key="w_" + name).set_value(value).run()
    state: AppState = at.session_state[STATE_KEY]
    ok = not at.exception and state.form_error is None and getattr(state.cfg, name) == value
    return state.cfg if ok else None


@pytest.mark.parametrize(("world", "procedure"), CASES, ids=[f"{w}-{p}" for w, p in CASES])
def test_every_shown_control_changes_what_the_run_reads(world, procedure):
    cfg = base(world, procedure)
    at = AppTest.from_function(_app, default_timeout=60)
    at.session_state[STATE_KEY] = AppState(cfg=cfg)
    at.run()
    assert not at.exception
    shown, wrong = controls(at), []
    for name in shown:
        if name in pinned(cfg) or unread_reason(name, cfg) is not None:
            wrong.append(f"{name} is shown, but pinned or unread")
    for name, (kind, widget) in shown.items():
        if kind not in ("number_input", "slider"):
            continue
        if name not in controls(at):  # hidden by a control moved before it (λ > 0 hides the
            at = AppTest.from_function(_app, default_timeout=60)  # ridge): from the start again
            at.session_state[STATE_KEY] = AppState(cfg=cfg)
            at.run()
        widget = controls(at)[name][1]  # this run's widget, not the first run's
        before = at.session_state[STATE_KEY].cfg
        after = next((c for v in candidates(name, widget.value)
                      if (c := move(at, name, kind, v)) is not None), None)
        if after is None:
            wrong.append(f"the {name} control moves nothing")
            move(at, name, kind, getattr(before, name))  # back, so the next control is alone
        elif SPECS[name].group == "data" and owner_of(name) is None \
                and fingerprint(after) == fingerprint(before) and trace(after) == trace(before):
            wrong.append(f"{name} changed, and neither the data nor the first steps did")
    assert not wrong, f"{world}/{procedure}: " + "; ".join(wrong)


def test_an_optional_switch_shows_auto_and_round_trips():
    """An on/off setting left to the schedule or the world reads "auto" (never Streamlit's
    "Choose an option"), and on/off reach the setting (gfl_rebias, the paper's intercept)."""
    at = AppTest.from_function(_app, default_timeout=60)
    at.session_state[STATE_KEY] = AppState(cfg=base("gfl_xor", "gfl"))
    at.run()
    box = at.selectbox(key="w_gfl_rebias")
    assert box.value == "auto" and box.options == ["auto", "on", "off"]
    box.select("on").run()
    assert at.session_state[STATE_KEY].cfg.gfl_rebias is True
    at.selectbox(key="w_gfl_rebias").select("auto").run()
    assert at.session_state[STATE_KEY].cfg.gfl_rebias is None
    at = AppTest.from_function(_app, default_timeout=60)
    at.session_state[STATE_KEY] = AppState(cfg=Config())
    at.run()
    assert at.selectbox(key="w_intercept").value == "auto"


def test_a_value_finer_than_its_step_is_shown_in_full():
    """AZL's weight decay 0.001 reads 0.001, not the two decimals' 0.00."""
    at = AppTest.from_function(_app, default_timeout=60)
    at.session_state[STATE_KEY] = AppState(cfg=preset_config("azl-resnet"))
    at.run()
    box = at.number_input(key="w_azl_wd")
    assert box.value == 0.001 and box.proto.format == "%g"
