"""Compare page logic: build, advance and summarise the session's comparison stream
(engine/frames/compare.py: the page never holds the runs; no drawing here)."""

from __future__ import annotations

import shlex

import pandas as pd

from engine import guard
from engine.config import ConfigError
from engine.frames.compare import CompareStream
from engine.hub import get_hub, hub_enabled
from engine.hub.compare import HubCompare
from engine.presets import PRESETS, Preset, preset_config
from engine.procedures import RECORDS, ProcedureRecord, offered
from engine.procedures.told import shown_groups, shown_rows, why_not
from engine.reads import read_diff
from engine.report import cell, rows_for, score_key
from ui import limits_view
from ui.sessions import client_id, compare_watcher
from ui.state import CompareState, fmt_value, matching_preset

TICK_BUDGET_S = 0.2  # compute per fragment tick, so the page stays responsive
MAX_SEEDS = 5
# |ours − paper| within this counts as reproduced (✓): 3 accuracy points, 0.05 in cosine
TOLERANCE = {"train_acc": 0.03, "test_acc": 0.03, "cos": 0.05}
# a report without a procedure (made before procedures existed) is the first registered one's
FIRST = next(iter(RECORDS.values()))


def procedure(state) -> ProcedureRecord:
    """The procedure that trains the current setting (engine/procedures): its methods, labels,
    table and words are the page's."""
    return offered(state.cfg)


def ordered(methods, proc: ProcedureRecord | None = None) -> tuple[str, ...]:
    """The methods in the procedure's column order (default: the paper's), duplicates dropped,
    older names (the record's aliases, e.g. a link's network for resnet3) resolved."""
    proc = proc or FIRST
    picked = {proc.aliases.get(m, m) for m in methods}
    return tuple(m for m in proc.names if m in picked)


def for_procedure(methods, proc: ProcedureRecord) -> tuple[str, ...]:
    """The methods to train under proc: some procedure's defaults (the choice nobody made) or
    a choice with none of its names give way to its defaults; else the chosen ones it trains."""
    methods = tuple(methods)
    if any(methods == r.defaults for r in RECORDS.values()):
        return proc.defaults
    names = ordered(methods, proc)
    return names if names or not methods else proc.defaults


def chosen(state) -> tuple[str, ...]:
    """The methods the page trains for the current setting (for_procedure)."""
    return for_procedure(state.compare.methods, procedure(state))


def key_for(state, seeds: int) -> tuple:
    """What a comparison was built for: a change of any part restarts it."""
    return (state.cfg, chosen(state), seeds)


def reset(state) -> None:
    """Forget the comparison, its seeds and its messages (the method list stays); a hub's
    comparison nobody else watches stops."""
    if state.compare.stream is not None:
        state.compare.stream.close()
    state.compare = CompareState(methods=state.compare.methods)


def sync(state, seeds: int) -> None:
    """Restart cleanly when the setting, the methods or the seed count changed."""
    if state.compare.key is not None and state.compare.key != key_for(state, seeds):
        reset(state)


def play(state, seeds: int) -> None:
    """Play button: start (or resume) training."""
    if state.compare.summary is not None:  # finished: Play starts a fresh comparison
        reset(state)
    state.compare.key = key_for(state, seeds)
    state.compare.playing, state.compare.error = True, None


def pause(state) -> None:
    """Pause button."""
    state.compare.playing = False


def _stream(state) -> CompareStream | HubCompare:
    """The session's comparison stream for the current key (created at the first tick): the
    hub's (computed once for every session on the link, by its workers or Ray), or with
    FEX_WORKERS=0 one trained in this session."""
    cs = state.compare
    if cs.stream is None:
        seeds = cs.key[2] if cs.key else 1
        methods = chosen(state)
        if hub_enabled():
            _prepare(cs, state.cfg, methods)  # refused here as in the session; the hub checks too
            cs.stream = HubCompare(state.cfg, methods, seeds, get_hub(), compare_watcher(),
                                   client=client_id())
        else:
            cs.stream = CompareStream(state.cfg, methods, seeds,
                                      prepare=lambda cfg: _prepare(cs, cfg, methods))
    return cs.stream


def _prepare(cs: CompareState, cfg, methods: tuple[str, ...]) -> bool:
    """The guard's check before a seed is built: raises ConfigError, says whether the feature
    cache fits, and keeps the estimate to show."""
    seeds = cs.key[2] if cs.key else 1  # the first seed is kept while the others train
    est = guard.check(cfg, methods, embed=False, load=guard.Load(kept_seeds=seeds))
    cs.estimate = est.describe()
    return est.feature_cache


def advance(state, budget_s: float = TICK_BUDGET_S) -> None:
    """One tick: build the next seed if needed, then step for about budget_s; errors become
    messages, and a finished or diverged series its report."""
    cs = state.compare
    try:
        stream = _stream(state)
        stream.advance(budget_s)
    except ConfigError as err:
        _fail(cs, f"Cannot start this comparison: {err}")
    except (ValueError, RuntimeError, MemoryError) as err:
        _fail(cs, f"The comparison stopped: {type(err).__name__}: {err}")
    else:
        if stream.error:  # a divergence: the report holds every step before it
            _fail(cs, f"{stream.error}.")
            cs.summary = make_report(state)
        elif stream.done:
            cs.summary, cs.playing = make_report(state), False
            stream.limits_start()  # off the critical path: a thread


def _fail(cs: CompareState, message: str) -> None:
    cs.error, cs.playing = message, False


def paper_preset(state) -> Preset | None:
    """The loaded preset when it has the paper's numbers and the setting is still its own;
    with none loaded, the paper preset whose setting this is (the defaults are paper-parity's,
    and the sidebar's preset box already names it)."""
    name = state.preset if state.preset in PRESETS else matching_preset(state.cfg)
    preset = PRESETS.get(name) if name else None
    if preset is None or not preset.paper:
        return None
    try:
        return preset if preset_config(preset.name) == state.cfg else None
    except ConfigError:
        return None


def make_report(state) -> dict:
    """The JSON report (CLI schema) of the finished seeds (with diverged_at after a divergence)."""
    return state.compare.stream.report(paper_preset(state))


def shown(state) -> CompareStream | None:
    """The stream whose curves are drawn (its running seed, else the first), once built."""
    stream = state.compare.stream
    return stream if stream is not None and stream.started else None


def progress(state) -> tuple[int, int, int, int]:
    """(step, T, seed number, seed count) of the run in progress or the last one."""
    cs, stream = state.compare, shown(state)
    seeds = cs.key[2] if cs.key else 1
    seed_no = 0 if cs.stream is None else min(cs.stream.finished + cs.stream.running, seeds)
    if stream is None:
        return 0, state.cfg.T, max(seed_no, 1), seeds
    return stream.t, stream.T, max(seed_no, 1), seeds


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


ACCURACY_ROWS = (("train_acc", "Train %"), ("test_acc", "Test %"), ("cos", "Cos"))


def table_rows(entry: dict, seeds: int, rows=None) -> dict[str, str]:
    """One method's column of the Table-1 layout: ours, and the paper and Δ when known (rows:
    engine.report.rows_for's choice for a regression world, else accuracy)."""
    col = {}
    for key, title in rows or rows_for([entry]) or ACCURACY_ROWS:
        std = entry.get(key + "_std") if seeds > 1 else None
        col[f"{title} · ours"] = _cell(key, entry.get(key), std)
        col.update(limits_view.cells(entry, key, title))  # the converged limit beside it
        if "paper" in entry:
            col[f"{title} · paper"] = _cell(key, entry["paper"].get(key))
            col[f"{title} · Δ (ours − paper)"] = _delta_cell(key, entry["diff"].get(key))
    return col


def cos_note(report: dict) -> str:
    """Why the table has no Cos row (engine.procedures.told.why_not), or ""."""
    proc, methods = RECORDS.get(report.get("procedure") or "", FIRST), report["methods"]
    every = proc.table.rows(list(methods.values()))
    return why_not(every, shown_rows(every, methods.values()), report.get("truth"))


def tables(report: dict) -> list[tuple[str, pd.DataFrame]]:
    """The procedure's table per group (the paper's: with / without input structure): rows ×
    method columns, with the procedure's rows and labels."""
    methods, seeds = report["methods"], report.get("seeds", 1)
    proc = RECORDS.get(report.get("procedure") or "", FIRST)
    rows = shown_rows(proc.table.rows(list(methods.values())), methods.values())
    labels, out = proc.labels(), []
    for title, group in shown_groups(proc.table.groups, methods) or (("Methods", tuple(methods)),):
        names = [m for m in group if m in methods]
        if not names:
            continue
        cols = {labels.get(m, m): table_rows(methods[m], seeds, rows) for m in names}
        index = limits_view.order_rows(list(dict.fromkeys(r for c in cols.values() for r in c)))
        frame = pd.DataFrame(cols, index=index).fillna("—")
        out.append((title, frame))
    return out


def cli_command(state, seeds: int = 5) -> str:
    """The command line that computes this table (with `seeds` seeds), each argument quoted."""
    return shlex.join(cli_argv(state, seeds))


def named_preset(state) -> Preset | None:
    """The preset whose setting this is exactly (the loaded one first), with or without the
    paper's numbers: the printed command names it."""
    names = [state.preset] if state.preset in PRESETS else []
    for name in [*names, matching_preset(state.cfg)]:
        try:
            if name and preset_config(name) == state.cfg:
                return PRESETS[name]
        except ConfigError:
            continue
    return None


def cli_argv(state, seeds: int = 5) -> list[str]:
    """The argv of cli_command: the preset (e.g. --preset gfl-xor), or each setting the run
    reads as --set K=V; --methods when not the procedure's defaults."""
    preset = named_preset(state)
    argv = ["python", "-m", "engine", "run"]
    if preset is not None:
        argv += ["--preset", preset.name]
    else:
        for name, value in read_diff(state.cfg).items():
            argv += ["--set", f"{name}={fmt_value(value)}"]
    methods = chosen(state)
    if methods != procedure(state).defaults:
        argv += ["--methods", ",".join(methods)]
    return argv + ["--seeds", str(seeds)]


# the unit of a gap that is not in accuracy points rides in the label: "+0.734 MSE/Var" did not
# fit a quarter-width metric (shown "+0.734 MSE/…")
UNIT = {"test_mse_ratio": " · MSE/Var", "test_err": " · test error"}


def headlines(report: dict) -> list[tuple[str, str, str]]:
    """(label, gap, detail) of the comparisons the procedure's source makes, where both methods
    ran: gaps in test accuracy, or in test MSE / Var(y) or test error (lower is better)."""
    methods, out = report["methods"], []
    proc = RECORDS.get(report.get("procedure") or "", FIRST)
    key, labels = score_key(methods.values()), proc.labels()
    for label, a, b in proc.table.headlines:
        if a in methods and b in methods:
            ta, tb = methods[a].get(key), methods[b].get(key)
            if ta is not None and tb is not None:
                out.append((label + UNIT.get(key, ""), *_gap(key, ta, tb, labels[a], labels[b])))
    best = limits_view.headline(methods, key, labels)  # once the converged limits are in
    return out if best is None else [*out, (best[0] + UNIT.get(key, ""), *best[1:])]



def _gap(key: str, ta: float, tb: float, la: str, lb: str) -> tuple[str, str]:
    """(gap, detail) of two methods' test numbers: accuracy points, MSE / Var(y), test error."""
    if key == "test_mse_ratio":
        return (f"{ta - tb:+.3f}",
                f"test MSE / Var(y) {ta:.3f} ({la}) vs {tb:.3f} ({lb}); lower is better")
    if key == "test_err":
        return (f"{ta - tb:+.3f}",
                f"test error {ta:.3f} ({la}) vs {tb:.3f} ({lb}); lower is better")
    return (limits_view.points(ta - tb),
            f"test accuracy {100 * ta:.1f} % ({la}) vs {100 * tb:.1f} % ({lb})")
