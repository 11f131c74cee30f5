"""Compare page logic: build, advance and summarise the session's Comparison (no drawing here)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import streamlit as st

from engine.compare import Comparison
from engine.config import ConfigError, diff
from engine.methods import DEFAULT_METHODS, LABELS, METHODS
from engine.presets import PRESETS, Preset
from engine.report import build_report, cell
from engine.run import DivergenceError

try:  # the resource guard is optional: without it every valid setting may start
    from engine import guard
except ImportError:  # pragma: no cover - depends on the checkout
    guard = None

SEEDS_KEY = "compare_seed_runs"
TICK_BUDGET_S = 0.2  # compute per fragment tick, so the page stays responsive
MAX_SEEDS = 5
WITH = tuple(m for m in METHODS if not m.endswith("_no_structure"))
WITHOUT = tuple(m for m in METHODS if m.endswith("_no_structure"))
# |ours − paper| within this counts as reproduced (✓): 3 accuracy points, 0.05 in cosine
TOLERANCE = {"train_acc": 0.03, "test_acc": 0.03, "cos": 0.05}
GROUPS = (("With input structure", WITH), ("Without input structure (A1′)", WITHOUT))


@dataclass
class SeedRuns:
    """The finished seeds of one comparison: their summaries and the first seed's runs."""

    per_seed: list = field(default_factory=list)
    first: Any = None  # Comparison of the first seed: its curves and history go into the report
    t0: float = 0.0
    estimate: str | None = None


def seed_runs() -> SeedRuns:
    """This session's record of finished seeds."""
    if SEEDS_KEY not in st.session_state:
        st.session_state[SEEDS_KEY] = SeedRuns()
    return st.session_state[SEEDS_KEY]


def ordered(methods) -> tuple[str, ...]:
    """The methods in the paper's column order, duplicates dropped."""
    return tuple(m for m in METHODS if m in set(methods))


def key_for(state, seeds: int) -> tuple:
    """What a comparison was built for: a change of any part restarts it."""
    return (state.cfg, ordered(state.methods), seeds)


def reset(state) -> None:
    """Forget the comparison, its seeds and its messages."""
    state.comparison, state.comp_key, state.comp_summary = None, None, None
    state.comp_playing, state.comp_error = False, None
    st.session_state[SEEDS_KEY] = SeedRuns()


def sync(state, seeds: int) -> None:
    """Restart cleanly when the setting, the methods or the seed count changed."""
    if state.comp_key is not None and state.comp_key != key_for(state, seeds):
        reset(state)


def play(state, seeds: int) -> None:
    """Play button: start (or resume) training."""
    if state.comp_summary is not None:  # finished: Play starts a fresh comparison
        reset(state)
    state.comp_key = key_for(state, seeds)
    state.comp_playing, state.comp_error = True, None


def pause(state) -> None:
    """Pause button."""
    state.comp_playing = False


def _build(state) -> None:
    """Draw the data and the initial network for the next seed (raises ConfigError)."""
    sr, methods = seed_runs(), ordered(state.methods)
    cfg = state.cfg.replace(seed=state.cfg.seed + len(sr.per_seed))
    cache = True
    if guard is not None:
        est = guard.check(cfg, methods, embed=False)
        sr.estimate, cache = est.describe(), est.feature_cache
    if not sr.per_seed:
        sr.t0 = time.perf_counter()
    state.comparison = Comparison(cfg, methods, embed=False, feature_cache=cache)


def advance(state, budget_s: float = TICK_BUDGET_S) -> None:
    """One tick: build if needed, then step for about budget_s; errors become messages."""
    try:
        if state.comparison is None:
            _build(state)
        comp, t0 = state.comparison, time.perf_counter()
        while not comp.done:
            comp.step()
            if time.perf_counter() - t0 >= budget_s:
                break
        if comp.done:
            _finish_seed(state)
    except ConfigError as err:
        _fail(state, f"Cannot start this comparison: {err}")
    except DivergenceError as err:
        _fail(state, f"{err}.")
        _keep_diverged(state, err)
    except (ValueError, RuntimeError, MemoryError) as err:
        _fail(state, f"The comparison stopped: {type(err).__name__}: {err}")


def _fail(state, message: str) -> None:
    state.comp_error, state.comp_playing = message, False


def _keep_diverged(state, err: DivergenceError) -> None:
    """Keep every step before a divergence: the table and the downloads stop there."""
    sr, comp = seed_runs(), state.comparison
    if comp is None:
        return
    sr.per_seed.append({m: r.summary() for m, r in comp.runs.items()})
    if sr.first is None:
        sr.first = comp
    state.comp_summary = make_report(state, err)


def _finish_seed(state) -> None:
    """Record a finished seed; after the last one build the report and stop."""
    sr, comp = seed_runs(), state.comparison
    sr.per_seed.append(comp.summary())
    if sr.first is None:
        sr.first = comp
    seeds = state.comp_key[2] if state.comp_key else 1
    if len(sr.per_seed) < seeds:
        state.comparison = None  # the next tick builds the next seed
        return
    state.comp_summary = make_report(state)
    state.comp_playing = False


def paper_preset(state) -> Preset | None:
    """The loaded preset when it has the paper's numbers and the setting is still its own."""
    preset = PRESETS.get(state.preset) if state.preset else None
    if preset is None or not preset.paper:
        return None
    try:
        return preset if preset.config() == state.cfg else None
    except ConfigError:
        return None


def make_report(state, diverged: DivergenceError | None = None) -> dict:
    """The JSON report (CLI schema) of the finished seeds (with diverged_at after a divergence)."""
    sr = seed_runs()
    first = sr.first
    timing = {"total_s": time.perf_counter() - sr.t0, "setup_s": first.setup_s}
    return build_report(first.cfg, first.runs, str(first.world.device), timing, sr.per_seed,
                        paper_preset(state), diverged)


def shown(state):
    """The comparison whose curves are drawn: the running one, else the first finished seed."""
    return state.comparison if state.comparison is not None else seed_runs().first


def progress(state) -> tuple[int, int, int, int]:
    """(step, T, seed number, seed count) of the run in progress or the last one."""
    sr, comp = seed_runs(), shown(state)
    seeds = state.comp_key[2] if state.comp_key else 1
    seed_no = min(len(sr.per_seed) + (state.comparison is not None), seeds)
    if comp is None:
        return 0, state.cfg.T, max(seed_no, 1), seeds
    return comp.t, comp.cfg.T, max(seed_no, 1), seeds


def _cell(key: str, value, std: float | None = None, signed: bool = False) -> str:
    """A table cell (engine.report.cell, the CLI's format), with ± std over seeds if given."""
    text = cell(key, value, signed)
    if std and value is not None:
        text += f" ± {cell(key, std)}"
    return text


def _delta_cell(key: str, delta) -> str:
    """Signed difference with ✓ (within TOLERANCE) or ✗."""
    if delta is None:
        return "NA"
    return _cell(key, delta, signed=True) + (" ✓" if abs(delta) <= TOLERANCE[key] else " ✗")


def table_rows(entry: dict, seeds: int) -> dict[str, str]:
    """One method's column of the Table-1 layout: ours, and the paper and Δ when known."""
    col = {}
    for key, title in (("train_acc", "Train %"), ("test_acc", "Test %"), ("cos", "Cos")):
        std = entry.get(key + "_std") if seeds > 1 else None
        col[f"{title} · ours"] = _cell(key, entry.get(key), std)
        if "paper" in entry:
            col[f"{title} · paper"] = _cell(key, entry["paper"].get(key))
            col[f"{title} · Δ (ours − paper)"] = _delta_cell(key, entry["diff"].get(key))
    return col


def tables(report: dict) -> list[tuple[str, pd.DataFrame]]:
    """Table 1's layout per group (with / without input structure): rows × method columns."""
    methods, seeds = report["methods"], report.get("seeds", 1)
    out = []
    for title, group in GROUPS:
        names = [m for m in group if m in methods]
        if not names:
            continue
        cols = {LABELS[m]: table_rows(methods[m], seeds) for m in names}
        index = list(dict.fromkeys(r for c in cols.values() for r in c))
        frame = pd.DataFrame(cols, index=index).fillna("—")
        out.append((title, frame))
    return out


def cli_command(state, seeds: int = 5) -> str:
    """The command line that computes this table (with `seeds` seeds)."""
    preset = paper_preset(state)
    parts = ["python -m engine run"]
    if preset is not None:
        parts.append(f"--preset {preset.name}")
    else:
        parts += [f"--set {k}={v}" for k, v in diff(state.cfg).items()]
    methods = ordered(state.methods)
    if methods != DEFAULT_METHODS:
        parts.append("--methods " + ",".join(methods))
    parts.append(f"--seeds {seeds}")
    return " ".join(parts)


HEADLINES = (  # (label, method, baseline): the paper's claims as differences of test accuracy
    ("Network − NTK", "network", "ntk"),
    ("Network − RF", "network", "rf"),
    ("Two Step − One Step", "two_step", "one_step"),
    ("Network: with − without structure", "network", "network_no_structure"),
)


def headlines(report: dict) -> list[tuple[str, str, str]]:
    """(label, gap, detail) of the comparisons the paper makes, where both methods ran."""
    methods, out = report["methods"], []
    for label, a, b in HEADLINES:
        if a in methods and b in methods:
            ta, tb = methods[a]["test_acc"], methods[b]["test_acc"]
            if ta is not None and tb is not None:
                detail = (f"test accuracy {100 * ta:.1f} % ({LABELS[a]}) vs {100 * tb:.1f} % "
                          f"({LABELS[b]})")
                out.append((label, f"{100 * (ta - tb):+.1f} points", detail))
    return out
