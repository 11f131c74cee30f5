"""The one session state object, and the round-trip of the settings through the URL."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import streamlit as st

from engine.config import SPECS, Config, ConfigError, from_dict
from engine.echo import markdown_plain, plain, quoted
from engine.methods import DEFAULT_METHODS, NAMES
from engine.presets import PRESETS, preset_config
from engine.procedures import procedure_of
from engine.reads import read_diff, refuse_unread
from engine.sweep.spec import parse_methods as parse_method_list
from ui import sessions

if TYPE_CHECKING:  # annotations only
    from engine.frames import FrameStream
    from engine.frames.compare import CompareStream

STATE_KEY = "app"
METHODS_PARAM = "methods"  # the Compare page's method list; not a Config field
# The view (not the setting): player speed, map colouring, smoothing, shown step, presentation
# mode and its theme. Read by the pages themselves; never passed to Config.
VIEW_PARAMS = ("speed", "colour", "smooth", "step", "present", "theme", "preset")


@dataclass
class ExploreState:
    """Explore's page: one run's frame stream and the browser player showing it."""

    stream: FrameStream | None = None  # the run's frames (engine.frames): all Explore reads
    run_cfg: Config | None = None
    build_s: float = 0.0
    guard_error: tuple[Config, str] | None = None  # refused setting: server limits or setup
    timer_on: bool = False  # whether the live fragment was created with a run_every timer
    idle_since: float | None = None  # monotonic time the server last ran out of frames to compute
    page_run: bool = False  # the live fragment's next call is part of a full script run
    view: dict = field(default_factory=lambda: {"speed": 20, "colour": "cosine", "smooth": 0.0,
                                                "step": 0})  # the player's view (URL round-trip)
    view_read: bool = False  # the view was taken from the URL (once per session)
    player: dict | None = None  # ui.player_view.session(): frames sent to / wanted by the browser


@dataclass
class CompareState:
    """Compare's page: its methods and one comparison stream (engine/frames/compare.py)."""

    methods: tuple[str, ...] = DEFAULT_METHODS
    stream: CompareStream | None = None  # its seeds one after another: rows, report, limits
    key: tuple | None = None  # (cfg, methods, seeds) the series was built for
    playing: bool = False
    error: str | None = None
    summary: dict | None = None  # final report, built once when done
    estimate: str | None = None  # the guard's cost per seed, shown under the controls

    @property
    def running(self) -> bool:
        """A seed is being trained now (False before the first, between seeds and when done)."""
        return self.stream is not None and self.stream.running


@dataclass
class SweepState:
    """Sweep's page: the sweeps this session added (uploads, runs from the page) and where."""

    sources: dict[str, Path | bytes] = field(default_factory=dict)  # label -> a store file
    # or its bytes (uploads and page runs are kept in memory, not on disk)
    uploaded: str | None = None  # file id of the last upload stored (reruns keep one copy)


@dataclass
class AppState:
    """Everything one browser session holds: the setting every page shares (the sidebar, the
    link) and one state object per page."""

    cfg: Config = field(default_factory=Config)
    preset: str | None = None  # name of the last loaded preset (for the paper's numbers)
    url_read: bool = False
    url_cfg: Config | None = None  # the setting the URL gave; its warnings show while unchanged
    url_warnings: list[str] = field(default_factory=list)
    synced_cfg: Config | None = None  # the setting the sidebar widgets were last written from
    preset_box: int = 0  # the Preset box's widget generation (ui.controls.show_preset)
    form_error: str | None = None  # why the widgets' setting is invalid (the last valid one runs)
    explore: ExploreState = field(default_factory=ExploreState)
    compare: CompareState = field(default_factory=CompareState)
    sweep: SweepState = field(default_factory=SweepState)


def get_state() -> AppState:
    """This session's state object (created on first use)."""
    if STATE_KEY not in st.session_state:
        st.session_state[STATE_KEY] = AppState()
    state = st.session_state[STATE_KEY]
    sessions.register(state)  # so its run is freed once the browser tab is gone
    return state


def parse_params(params: dict[str, str], base: Config | None = None,
                 repeated: list[str] | tuple = ()) -> tuple[Config, tuple[str, ...], list[str]]:
    """URL values over `base` (a link's preset; the defaults) → (Config, methods, warnings); a
    bad value is dropped with its message. `repeated`: keys the link gives more than once,
    dropped as the CLI refuses a setting given twice."""
    values = {k: v for k, v in params.items() if k != METHODS_PARAM and k not in VIEW_PARAMS}
    warnings: list[str] = [f"{plain(k, 40)} is given more than once in the link — using the "
                           f"default {plain(k, 40)} instead." for k in repeated[:5]]
    values = {k: v for k, v in values.items() if k not in repeated}
    methods, bad = parse_methods(params.get(METHODS_PARAM))
    if bad:
        warnings.append(bad)
    unknown = [k for k in values if k not in SPECS]
    if unknown:  # one warning for them all, however many a link carries
        values = {k: v for k, v in values.items() if k in SPECS}
        warnings.append(unknown_keys(unknown))
    cfg = _config(values, base, warnings)
    if params.get(METHODS_PARAM) and not bad:
        warnings += _foreign_methods(params[METHODS_PARAM], methods, cfg)
    return cfg, methods, warnings


def _foreign_methods(text: str, methods: tuple[str, ...], cfg: Config) -> list[str]:
    """A warning when none of the link's methods is one of cfg's procedure (Compare would
    silently train its defaults instead: resnet3,fc3 on sparse coding)."""
    proc = procedure_of(cfg)
    if {proc.aliases.get(m, m) for m in methods} & set(proc.names):
        return []
    return [f"methods={quoted(text)} is not allowed: methods of this world's procedure "
            f"({', '.join(proc.names)}) — using its default methods instead."]


def _config(values: dict, base: Config | None, warnings: list[str]) -> Config:
    """The Config of the link's values; each bad one dropped with its warning."""
    # Drop the offending setting and retry: each pass removes one value, so this ends.
    for _ in range(len(values) + 1):
        try:
            cfg = from_dict(values, base)
            refuse_unread(cfg, values)  # a value the run ignores is dropped with its reason
            return cfg
        except ConfigError as err:
            if err.name in values:  # echoed as the link wrote it (not 1e23 read as a float)
                warnings.append(f"{plain(err.name, 40)}={quoted(values[err.name])} is not "
                                f"allowed: {err.allowed} — using the default "
                                f"{plain(err.name, 40)} instead.")
                values.pop(err.name)
            else:  # a rule with a setting the link did not give: say it is the default's
                given = ", ".join(f"{plain(k, 24)}={quoted(v)}" for k, v in
                                  list(values.items())[:5]) or "the link"
                warnings.append(f"{given} cannot run with the default {plain(err.name, 40)} "
                                f"({err.allowed}) — using the default settings instead.")
                break
    return base or Config()


def unknown_keys(names: list[str]) -> str:
    """One bounded line naming a link's unknown keys (the first few, and how many)."""
    shown = ", ".join(plain(n, 24) for n in names[:5])
    more = f" and {len(names) - 5} more" if len(names) > 5 else ""
    return (f"unknown setting{'s' if len(names) > 1 else ''} {shown}{more} — not settings of "
            "this app, ignored.")


def parse_methods(text: str | None) -> tuple[tuple[str, ...], str | None]:
    """'network,ntk' → the methods, or the defaults and a warning."""
    if not text:
        return DEFAULT_METHODS, None
    try:
        return parse_method_list(text), None  # the engine's parser (CLI and sweeps alike)
    except ConfigError:
        return DEFAULT_METHODS, (f"methods={quoted(text)} is not allowed: a comma-separated subset "
                             f"of {', '.join(NAMES)}, each once — using the default methods "
                             "instead.")


def fmt_value(value: Any) -> str:
    """A setting as it appears in the URL."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def url_params(cfg: Config, methods: tuple[str, ...] | None = None) -> dict[str, str]:
    """Only the settings that differ from the paper's default (plus a non-default method list)."""
    out = {k: fmt_value(v) for k, v in read_diff(cfg).items()}
    if methods is not None and tuple(methods) != DEFAULT_METHODS:
        out[METHODS_PARAM] = ",".join(methods)
    return out


def read_url(state: AppState) -> None:
    """Take the setting (and the preset it came from) from the URL once per session."""
    if state.url_read:
        return
    state.url_read = True
    params = {k: st.query_params.get(k) for k in st.query_params}
    if not params:
        return
    repeated = [k for k in params if len(st.query_params.get_all(k)) > 1]
    name, preset_warning = params.get("preset"), []
    if name and name not in PRESETS:
        preset_warning = [f"preset={quoted(name)} is not a known preset — using the settings "
                          "alone."]
    # the preset's whole setting (a value its world does not read, hidden from links, too: the
    # GFL XOR preset's D = 2), then whatever the link overrides
    base = preset_config(name) if name in PRESETS else None
    cfg, methods, warnings = parse_params(params, base, repeated)
    state.cfg, state.compare.methods, state.url_cfg = cfg, methods, cfg
    state.url_warnings = preset_warning + warnings
    state.preset = matching_preset(cfg, name)


def matching_preset(cfg: Config, name: str | None = None) -> str | None:
    """The named preset if cfg is its setting, else the first paper preset with exactly cfg."""
    if name in PRESETS and preset_config(name) == cfg:
        return name
    return next((n for n, p in PRESETS.items() if p.paper and preset_config(n) == cfg), None)


def preset_param(state: AppState) -> dict[str, str]:
    """{'preset': name} while the setting is still the loaded preset's, else {}."""
    name = state.preset
    return {"preset": name} if name in PRESETS and preset_config(name) == state.cfg else {}


def show_url_warnings(state: AppState) -> None:
    """Warn about rejected URL values while the setting is still the one the URL gave."""
    if state.url_warnings and state.cfg == state.url_cfg:
        for text in state.url_warnings:
            # the text quotes the link: shown literally, never as Markdown (images, links)
            st.warning(f"Ignored a value from the link: {markdown_plain(text)}",
                       icon=":material/link_off:")


def write_url(cfg: Config, methods: tuple[str, ...] | None = None,
              extra: dict[str, str] | None = None) -> dict[str, str]:
    """Make the address bar show the setting (a preset by name) and the view; returns them."""
    target = url_params(cfg, methods)
    if extra and "preset" in extra:  # the preset stands for its settings
        target = {k: v for k, v in target.items() if k == METHODS_PARAM}
    target.update(extra or {})
    current = {k: st.query_params.get(k) for k in st.query_params}
    if current != target:
        st.query_params.from_dict(target)
    return target
