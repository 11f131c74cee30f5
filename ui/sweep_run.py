"""Sources of the Sweep page: stored files, uploads, and small sweeps run from the page."""

from __future__ import annotations

import tempfile
from pathlib import Path

import streamlit as st

from engine.config import ConfigError
from engine.methods import METHODS
from engine.presets import PRESETS
from engine.sweep import SweepSpec, run_sweep
from engine.sweep.spec import parse_fixed, parse_methods, parse_pair, parse_values
from ui.state import SweepState

ROOT = Path(__file__).resolve().parents[1]
STORED = ("sweeps/*.sqlite", "docs/results/sweep-*.sqlite")
MAX_PAGE_RUNS = 24  # settings × seeds a page may run (each also within engine/guard.py)


MAX_FORM_TEXT = 2000  # characters of a form field: a grid of a few hundred values
PICK_KEY = "sweep_pick"  # the picker widget's key


def sources(state: SweepState) -> dict[str, Path]:
    """label → path of every sweep this session can open."""
    found = {str(p.relative_to(ROOT)): p for pattern in STORED for p in sorted(ROOT.glob(pattern))}
    return {**state.sources, **found}


def _tmpdir(state: SweepState) -> Path:
    if state.tmpdir is None:
        state.tmpdir = Path(tempfile.mkdtemp(prefix="fex-sweep-"))
    return state.tmpdir


def remember(state: SweepState, label: str, path: Path) -> None:
    """Offer a new source in this session's picker (and select it)."""
    state.sources[label] = path
    st.session_state[PICK_KEY] = label


def upload_box(state: SweepState) -> None:
    """Load a .sqlite store from disk."""
    up = st.file_uploader("Load a stored sweep (.sqlite)", type=["sqlite", "db"],
                          key="sweep_upload")
    if up is not None and state.uploaded != up.file_id:
        path = _tmpdir(state) / Path(up.name).name
        path.write_bytes(up.getvalue())
        state.uploaded = up.file_id
        remember(state, f"upload: {up.name}", path)


def spec_from_form(preset: str, grids: list[str], fixed: str, seeds: int,
                   methods: list[str]) -> SweepSpec:
    """The form's sweep; ConfigError names the field."""
    axes = []
    for text in grids:
        if text.strip():
            name, values = parse_pair(text, "grid")
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
    return spec


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
        methods = st.multiselect("methods", METHODS, ["network", "ntk"])
        go = st.form_submit_button("Run sweep")
    if not go:
        return
    try:
        spec = spec_from_form(preset, [g1, g2], fixed, int(seeds), methods)
        bar = st.progress(0.0, text="checking every cell against the server's limits")
        path = _tmpdir(state) / f"page-{len(state.sources)}.sqlite"

        def tick(i: int, n: int, rows: list[dict]) -> None:
            bar.progress(i / n, text=f"{i} / {n} runs done")

        res = run_sweep(spec, str(path), on_unit=tick)
    except ConfigError as err:
        st.error(f"Cannot run this sweep: {err}", icon=":material/block:")
        return
    axes = " × ".join(n for n, _ in spec.axes)
    remember(state, f"this session: {axes} ({res['rows']} rows)", path)
    st.success(f"{res['written']} rows in {res['seconds']:.1f} s")
