"""Sidebar controls generated from engine.config.SPECS, grouped as in the paper."""

from __future__ import annotations

import dataclasses
from typing import Any

import streamlit as st

from engine.config import SPECS, Config, ConfigError, validate, with_pins
from engine.echo import markdown_plain
from engine.guard import ResourceError
from engine.presets import PRESETS, preset_config
from engine.procedures import PROCEDURE_SETTINGS, procedure_of
from engine.reads import sidebar_shows
from engine.scenarios import pinned
from engine.spec import Spec
from ui import live
from ui.state import AppState, matching_preset

PREFIX = "w_"  # widget keys are "w_<setting>"
PRESET_KEY = "w_preset"  # the Preset box's first key; preset_key() gives the current one
CUSTOM = "(custom)"
# an optional switch: None lets the schedule (or the world) decide. Its box holds words: a
# selectbox whose value is None shows "Choose an option", not "auto"
AUTO_ON_OFF = {"auto": None, "on": True, "off": False}
# Sliders only for short ranges; d, D, k, n and m span thousands, where a 240 px slider cannot
# hit an exact value: those are number inputs.
SLIDERS = {"p_o", "p_a", "noise", "t1", "t2", "sigma_r"}
# Main controls of each group; the rest sit in a collapsed expander below it.
MAIN = {
    "data": ("scenario", "labeling", "d", "D", "k", "p_o", "n", "structure", "seed"),
    "network": ("m", "schedule"),
    "steps": ("T", "batch"),
    "procedure": tuple(PROCEDURE_SETTINGS),  # a procedure's own, shown where it trains the run
}
GROUP_TITLES = {"data": "Data", "network": "Network", "steps": "Steps",
                "procedure": "Procedure settings", "baselines": "Baselines"}
MORE_TITLES = {"data": "More data settings", "network": "Procedure and theory variant",
               "steps": "Step sizes η, λ and noise σ_ξ (empty = schedule)",
               "procedure": "More procedure settings", "baselines": "Baseline classifier"}

# where the run's procedure trains by no schedule (its record's `schedule` False): no words of it
OWN_STEPS_TITLES = {"network": "More network settings", "steps": "Step sizes"}


def more_title(group: str, cfg: Config) -> str:
    """A group's expander title; the schedule's words only where the procedure trains by it."""
    try:
        by_schedule = procedure_of(cfg).schedule
    except ConfigError:  # a setting being edited: the common words
        by_schedule = True
    return MORE_TITLES[group] if by_schedule else OWN_STEPS_TITLES.get(group, MORE_TITLES[group])


def key(name: str) -> str:
    """Widget key of a setting."""
    return PREFIX + name


def sync_widgets(state: AppState, force: bool = False) -> None:
    """Write the current setting into the widgets when it changed outside them (preset, URL)."""
    if not force and state.synced_cfg == state.cfg:
        return
    for name in SPECS:
        st.session_state[key(name)] = to_widget(name, getattr(state.cfg, name))
    show_preset(state)
    state.synced_cfg, state.form_error = state.cfg, None


def preset_key(state: AppState) -> str:
    """The Preset box's widget key: a new one each time the page changed what it shows."""
    return f"{PRESET_KEY}_{state.preset_box}" if state.preset_box else PRESET_KEY


def show_preset(state: AppState) -> None:
    """Show the loaded (or matching) preset in the box. When the page changes the box, it
    becomes a new widget: a request the browser sent before it saw the change still carries
    the old box's value, which Streamlit took for a pick of that preset (on_preset) and
    reverted the setting: two quick slider presses on the landing page ended at
    ?preset=paper-parity (tests/browser/test_landing_url.py). The old widget's value is
    ignored (it is no longer on the page)."""
    shown, k = preset_shown(state), preset_key(state)
    if k in st.session_state and st.session_state[k] != shown:
        del st.session_state[k]
        state.preset_box += 1
    st.session_state[preset_key(state)] = shown


def preset_shown(state: AppState) -> str:
    """The Preset box: the loaded preset, else the paper preset whose setting this is (the
    defaults are paper-parity's), else "(custom)"."""
    if state.preset in PRESETS:
        return state.preset
    return matching_preset(state.cfg) or CUSTOM


def widget_config(state: AppState) -> Config:
    """The setting the widgets show (validated; raises ConfigError); the world's pinned
    settings follow the others (a new AZL variant sets k), whatever a hidden widget kept."""
    changes = {name: from_widget(name, st.session_state[key(name)]) for name in SPECS
               if key(name) in st.session_state}
    return validate(with_pins(dataclasses.replace(state.cfg, **changes)))


def _switch(spec: Spec) -> bool:
    """An optional on/off setting (None = auto), shown as a box of words."""
    return spec.kind is bool and spec.optional


def to_widget(name: str, value: Any) -> Any:
    """A setting's value as its control holds it (an optional switch: auto, on, off)."""
    if _switch(SPECS[name]):
        return next(w for w, v in AUTO_ON_OFF.items() if v is value)
    return value


def from_widget(name: str, value: Any) -> Any:
    """A control's value as the setting (the inverse of to_widget)."""
    return AUTO_ON_OFF.get(value, value) if _switch(SPECS[name]) else value


def on_widget(state: AppState, name: str) -> None:
    """A control moved: adopt the new setting, or keep the last valid one and say why, naming
    the setting that was changed (the check that fails may name another one)."""
    try:
        cfg = widget_config(state)
        live.guard_check(cfg)
    except ResourceError as err:  # the server's limits: the control goes back to what runs
        state.form_error = refusal(name, st.session_state[key(name)], err, state.cfg)
        st.session_state[key(name)] = to_widget(name, getattr(state.cfg, name))
        return
    except ConfigError as err:  # a rule between settings: the next change may satisfy it
        state.form_error = refusal(name, st.session_state[key(name)], err, state.cfg)
        return
    state.form_error = None
    if state.preset in PRESETS and cfg != preset_config(state.preset):
        state.preset = None
    state.cfg = state.synced_cfg = cfg
    show_preset(state)


def refusal(name: str, value: Any, err: ConfigError, running: Config) -> str:
    """'m=2000 is not allowed with T=600: … m=300 keeps running.' for a change of `name`."""
    label = SPECS[name].label if name in SPECS else name
    why = str(err.allowed).removeprefix("a smaller value: ")
    if err.name == name:
        head = f"{label}={value} is not allowed: {why}"
    else:
        other = SPECS[err.name].label if err.name in SPECS else err.name
        head = (f"{label}={value} is not allowed with {other}={err.value}: {why} "
                f"(change {label} or {other})")
    return f"{head}. Still running {label}={getattr(running, name)}"


def on_preset(state: AppState) -> None:
    """A preset was picked: load its setting into every control."""
    name = st.session_state[preset_key(state)]
    if name == CUSTOM:
        state.preset = None
        return
    state.cfg, state.preset = preset_config(name), name
    sync_widgets(state, force=True)


def _widget(name: str, spec: Spec, state: AppState) -> None:
    k, value = key(name), to_widget(name, getattr(state.cfg, name))
    if k not in st.session_state:  # a control that was hidden comes back with the setting
        st.session_state[k] = value
    short = spec.help and len(spec.help) <= 32 and spec.label != spec.help
    label = f"{spec.label} ({spec.help})" if short else spec.label
    if name == "m":  # the width in the procedure's own neurons: 2m, 4m (gfl) or m (resnet3)
        label = width_label(state.cfg)
    args: dict[str, Any] = {"key": k, "help": spec.help or None, "on_change": on_widget,
                            "args": (state, name)}
    # Each widget's own default is the current setting. A widget that the browser remounts
    # without its stored value sends its default with the next rerun; with Streamlit's
    # defaults (a number's minimum, a list's first entry) a running setting silently became
    # T = 2 under load (CI's load test). The value shown still comes from session state.
    if spec.choices:
        st.selectbox(label, spec.choices, index=spec.choices.index(value), **args)
    elif _switch(spec):  # auto = the schedule (or the world) decides
        words = tuple(AUTO_ON_OFF)
        st.selectbox(label, words, index=words.index(value), **args)
    elif spec.kind is bool:
        st.toggle(label, value=value, **args)
    elif spec.kind is str:
        st.text_input(label, value=value, **args)
    elif name in SLIDERS:
        st.slider(label, value=value, **_bounds(spec), **args)
    else:
        st.number_input(label, value=value, **{**_bounds(spec), **_odd_step(name, state.cfg)},
                        placeholder="auto (schedule)", **args)


def width_label(cfg: Config) -> str:
    """The width control's label with the true neuron count, e.g. "m — 400 neurons"."""
    try:
        return procedure_of(cfg).width_text(cfg.m)
    except ConfigError:  # a procedure the world refuses: validation says so elsewhere
        return SPECS["m"].label


def _odd_step(name: str, cfg: Config) -> dict:
    """k must be odd for the parity labeling: its control steps by 2 (5 → 7, never k=6)."""
    return {"step": 2} if name == "k" and cfg.labeling == "parity" else {}


def _bounds(spec: Spec) -> dict:
    """min/max/step for a numeric widget; open ends move inwards by one step."""
    if spec.kind is int:
        lo = None if spec.lo is None else int(spec.lo)
        hi = None if spec.hi is None else int(spec.hi)
        return {"min_value": lo, "max_value": hi, "step": 1}
    if (spec.lo is not None and spec.lo >= 0 and spec.default is not None and spec.default < 0.01
            and spec.hi is not None and spec.hi <= 0.1):
        # values below the 0.01 step (limit_ridge's 1e-6) would show as 0.00: typed, 1.0e-06
        return {"min_value": float(spec.lo), "max_value": float(spec.hi), "format": "%.1e",
                "step": float(spec.lo) or 1e-8}
    step = 0.01 if spec.hi is not None and spec.hi <= 10 else None
    lo = spec.lo if spec.lo is None or not spec.open_lo else spec.lo + (step or 1e-9)
    hi = spec.hi if spec.hi is None or not spec.open_hi else spec.hi - (step or 1e-9)
    out: dict[str, Any] = {"min_value": float(lo) if lo is not None else None,
                           "max_value": float(hi) if hi is not None else None}
    if step:
        out["step"] = step
    # a default finer than the step (AZL's weight decay 0.001) would read "0.00" at two decimals
    if not step or (spec.default and abs(spec.default / step - round(spec.default / step)) > 1e-9):
        out["format"] = "%g"
    return out


def _visible(name: str, cfg: Config) -> bool:
    # hidden, not reset: each setting's own `shown` rule, its world's and its procedure's
    return sidebar_shows(name, cfg)


def _pinned_text(group: str, cfg: Config) -> None:
    """The settings of a group that the world fixes, as text: a slider there would move
    nothing (the AZL world: d = 30, k = the variant's outputs)."""
    fixed = [f"{SPECS[n].label} = {v} ({why})" for n, (v, why) in pinned(cfg).items()
             if SPECS[n].group == group]
    if fixed:
        st.caption("Fixed by the world: " + "; ".join(fixed), help="not a control: the "
                   "world's rules allow one value, and another setting decides it")


def sidebar(state: AppState) -> None:
    """Preset picker and every setting, grouped: data, network, steps, baselines."""
    sync_widgets(state)
    with st.sidebar:
        choices = [CUSTOM, *PRESETS]
        st.selectbox("Preset", choices, index=choices.index(preset_shown(state)),
                     key=preset_key(state), on_change=on_preset, args=(state,),
                     help="load a named setting (the paper's experiments)",
                     format_func=lambda n: n if n == CUSTOM else f"{n} — {PRESETS[n].title}")
        if state.form_error:
            st.error(f"{markdown_plain(state.form_error)}.", icon=":material/error:")
        shown = state.cfg
        for group, title in GROUP_TITLES.items():
            names = [n for n, s in SPECS.items() if s.group == group and _visible(n, shown)]
            main = [n for n in MAIN.get(group, ()) if n in names]
            more = [n for n in names if n not in main]
            if not names:  # e.g. no baselines setting in a world that does not read one
                continue
            st.subheader(title)
            for name in main:
                _widget(name, SPECS[name], state)
            _pinned_text(group, shown)
            if more:
                with st.expander(more_title(group, shown)):
                    for name in more:
                        _widget(name, SPECS[name], state)
