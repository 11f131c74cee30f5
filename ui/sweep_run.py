"""Sources of the Sweep page: stored files, uploads, and small sweeps run from the page.

An upload or a page run is kept in memory (its bytes), never on disk: an upload is checked
(size, PRAGMA quick_check, schema, a step limit on every query) straight from its bytes, and a
page run's temporary folder is removed as soon as its store is read back. Folders that a killed
server left behind are removed by age when this module is first imported.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import streamlit as st

from engine import guard
from engine.config import ConfigError
from engine.echo import markdown_plain, plain
from engine.hub import hub_enabled
from engine.methods import METHODS
from engine.presets import PRESETS
from engine.sweep import SweepSpec, load, run_sweep
from engine.sweep.spec import check, parse_fixed, parse_methods, parse_pair, parse_values
from ui.state import SweepState
from ui.sweep_data import claim_pair
from ui.sweep_hub import TMP_PREFIX, run_hub

ROOT = Path(__file__).resolve().parents[1]
STORED = ("sweeps/*.sqlite", "docs/results/sweep-*.sqlite")
MAX_PAGE_RUNS = 24  # settings × seeds a page may run (each also within engine/guard.py)
MAX_FORM_TEXT = 2000  # characters of a form field: a grid of a few hundred values
TMP_MAX_AGE_S = 3600  # a page run takes minutes: an older folder is a killed server's
PICK_KEY = "sweep_pick"  # the picker widget's key
# page sweeps running at once on the server (each holds a core for up to FEX_MAX_SECONDS):
# at most one per session, and this many in all, so that a few tabs cannot take every core
MAX_RUNNING = 2
_running: dict[int, float] = {}  # id(the session's SweepState) -> when its sweep started
_running_lock = threading.Lock()
_notes: dict[tuple, str | None] = {}  # (path, mtime, size) -> why the store cannot be opened


def uploads_allowed() -> bool:
    """FEX_ALLOW_UPLOADS=0 (the image's default: docs/hosting.md) hides the uploader."""
    return os.environ.get("FEX_ALLOW_UPLOADS", "1").strip().lower() not in ("0", "false", "no")


def max_upload_bytes() -> int:
    """FEX_MAX_UPLOAD_MB (default 5, Streamlit's own cap in .streamlit/config.toml), in
    decimal MB as Streamlit's uploader counts them (it refused 5 MiB - 1 byte as too big)."""
    try:
        return int(float(os.environ.get("FEX_MAX_UPLOAD_MB", "5")) * 1_000_000)
    except ValueError:
        return 5_000_000


def remove_stale_tmp(now: float | None = None, root: str | None = None) -> int:
    """Delete fex-sweep-* folders older than TMP_MAX_AGE_S; returns how many."""
    now, removed = now or time.time(), 0
    for path in Path(root or tempfile.gettempdir()).glob(TMP_PREFIX + "*"):
        try:
            if path.is_dir() and now - path.stat().st_mtime > TMP_MAX_AGE_S:
                shutil.rmtree(path, ignore_errors=True)
                removed += 1
        except OSError:  # another server removed it meanwhile
            pass
    return removed


remove_stale_tmp()


def note(source) -> str | None:
    """Why a stored file cannot be opened (checked once per file version), or None."""
    if isinstance(source, bytes):
        return None
    try:
        stat = source.stat()
    except OSError as err:
        return plain(err.strerror or err, 80)
    key = (str(source), stat.st_mtime_ns, stat.st_size)
    if key not in _notes:
        try:
            load(source)
            _notes[key] = None
        except ConfigError as err:
            _notes[key] = err.allowed
    return _notes[key]


def sources(state: SweepState) -> dict[str, Path | bytes]:
    """label → path (or bytes) of every sweep this session can open; sound ones first."""
    found = {str(p.relative_to(ROOT)): p for pattern in STORED for p in sorted(ROOT.glob(pattern))}
    every = {**state.sources, **found}
    return dict(sorted(every.items(), key=lambda item: note(item[1]) is not None))


def remember(state: SweepState, label: str, data: bytes) -> None:
    """Offer a new source in this session's picker (and select it)."""
    state.sources[label] = data
    st.session_state[PICK_KEY] = label


def upload_box(state: SweepState) -> None:
    """Load a .sqlite store from the visitor's disk (only where uploads are allowed)."""
    if not uploads_allowed():
        return
    up = st.file_uploader("Load a stored sweep (.sqlite)", type=["sqlite", "db"],
                          key="sweep_upload")
    if up is None or state.uploaded == up.file_id:
        return
    state.uploaded = up.file_id
    name = plain(Path(up.name).name, 60)
    if up.size > max_upload_bytes():
        st.error(markdown_plain(f"{name}: {up.size / 1e6:.1f} MB, more than the "
                                f"{max_upload_bytes() / 1e6:g} MB allowed here"))
        return
    data = up.getvalue()
    try:
        load(data)  # checked from memory: quick_check, schema, step limit
    except ConfigError as err:
        st.error(markdown_plain(f"{name}: not opened: {err.allowed}"), icon=":material/block:")
        return
    remember(state, f"upload: {name}", data)


def spec_from_form(preset: str, grids: list[str], fixed: str, seeds: int,
                   methods: list[str]) -> SweepSpec:
    """The form's sweep; ConfigError names the field."""
    axes = []
    for text in grids:
        if text.strip():
            name, values = parse_pair(text, "grid")
            if any(name == n for n, _ in axes):
                raise ConfigError("grid", name, "each setting swept once")
            axes.append((name, parse_values(name, values)))
    if not axes:
        raise ConfigError("grid", "", "at least one KEY=V1,V2,... line")
    fix = parse_fixed(fixed.split(), "fixed")
    spec = SweepSpec(preset, fix, tuple(axes), (), seeds, 0,
                     parse_methods(",".join(methods)), "cpu")
    if spec.count() * seeds > MAX_PAGE_RUNS:  # counted from the axis lengths, nothing built
        raise ConfigError("grid", f"{spec.count()} settings × {seeds} seeds",
                          f"at most {MAX_PAGE_RUNS} runs from the page (use the command line "
                          "for more: python -m engine sweep)")
    check_budget(spec)
    return spec


def grid_seconds(spec: SweepSpec) -> float:
    """The guard's CPU-time estimate of the whole sweep: every cell (each checked by the
    guard first), seed and method."""
    cells = check(spec)
    return spec.seeds * sum(guard.estimate(cfg, spec.methods, embed=False).seconds
                            for _, cfg in cells)


def check_budget(spec: SweepSpec) -> None:
    """A page sweep gets FEX_MAX_SECONDS for the whole grid (one run's allowance), not per
    cell and method: 24 runs × 5 methods at T = 5000 were 1-2 CPU-hours per click."""
    cap, need = guard.limit("FEX_MAX_SECONDS"), grid_seconds(spec)
    if need > cap:
        raise ConfigError("grid", f"{spec.count()} settings × {spec.seeds} seeds × "
                          f"{len(spec.methods)} methods",
                          f"a smaller sweep: about {need:.0f} s of CPU in all, more than the "
                          f"{cap:g} s a page sweep may take on this server (FEX_MAX_SECONDS; "
                          "the command line runs larger ones: python -m engine sweep)")


@contextmanager
def page_slot(state: SweepState):
    """Hold this session's one page sweep (and one of the server's MAX_RUNNING) while it
    runs; ConfigError (one line) when the session already runs one or the server is full."""
    key = id(state)
    with _running_lock:
        if key in _running:
            since = time.strftime("%H:%M:%S", time.localtime(_running[key]))
            raise ConfigError("sweep", "a second one", f"one running page sweep per session "
                              f"(yours started at {since}; wait for it to finish)")
        if len(_running) >= MAX_RUNNING:
            raise ConfigError("sweep", "one more", f"at most {MAX_RUNNING} page sweeps at "
                              "once on this server (try again in a minute)")
        _running[key] = time.time()
    try:
        yield
    finally:
        with _running_lock:
            _running.pop(key, None)


def run_in_tmp(spec: SweepSpec, on_unit) -> tuple[dict, bytes]:
    """Run the sweep into a temporary store; (its result, the store's bytes), folder removed."""
    with tempfile.TemporaryDirectory(prefix=TMP_PREFIX) as tmp:
        res = run_sweep(spec, str(Path(tmp) / "page.sqlite"), on_unit=on_unit)
        return res, Path(res["path"]).read_bytes()


def run_spec(state: SweepState, spec: SweepSpec) -> tuple[dict, bytes]:
    """Run the sweep on the hub (shared, within its budget) or, with FEX_WORKERS=0, in this
    session (one at a time, MAX_RUNNING on the server); (result, store bytes)."""
    if hub_enabled():
        return run_hub(spec, progress())
    with page_slot(state):
        return run_in_tmp(spec, progress())


def progress():
    """A progress bar and its tick(units done, units[, rows])."""
    bar = st.progress(0.0, text="checking every cell against the server's limits")

    def tick(i: int, n: int, rows=None) -> None:
        bar.progress(i / max(1, n), text=f"{i} / {n} runs done")

    return tick


def run_form(state: SweepState) -> None:
    """A small grid run here, with a progress bar (every cell within the server's guard)."""
    with st.expander("Run a small sweep here", expanded=False), st.form("sweep_form"):
        names = list(PRESETS)
        preset = st.selectbox("base preset", names, index=names.index("quick-parity"))
        text = {"max_chars": MAX_FORM_TEXT}
        g1 = st.text_input("grid 1", "k=1,3,5", help="a setting and its values", **text)
        g2 = st.text_input("grid 2 (optional)", "p_o=0.2,0.4", **text)
        fixed = st.text_input("fixed settings (optional)", "T=100 n=4000 n_test=2000", **text)
        seeds = st.number_input("seeds", 1, 5, 2)
        methods = st.multiselect("methods", METHODS, list(claim_pair(METHODS) or ()))
        go = st.form_submit_button("Run sweep")
    if not go:
        return
    try:
        spec = spec_from_form(preset, [g1, g2], fixed, int(seeds), methods)
        res, data = run_spec(state, spec)
    except ConfigError as err:
        st.error(f"Cannot run this sweep: {markdown_plain(str(err))}", icon=":material/block:")
        return
    axes = " × ".join(n for n, _ in spec.axes)
    remember(state, f"this session: {axes} ({res['rows']} rows)", data)
    st.success(f"{res['written']} rows in {res['seconds']:.1f} s")
