"""Reports: the JSON schema shared by the CLI and the dashboard, CSV history, the summary table."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import os
import statistics
import tempfile

import numpy as np

from .config import ConfigError
from .out_path import refuse_special
from .procedures import RECORDS, procedure_of, source_of
from .procedures.rows import ERROR, MSE
from .procedures.told import report_truth, shown_rows, why_not

SCHEMA_VERSION = 1
ROWS = (("train_acc", "Train %"), ("test_acc", "Test %"), ("cos", "Cos"))
# numbers some procedures' summaries add (gfl's): averaged like ROWS where a run reports them
EXTRA_ROWS = (("test_mse_ratio", "MSE/Var"), ("train_mse_ratio", "Train MSE/Var"),
              ("coverage", "Coverage"), ("relevant_share", "Rel. share"))
# a regression world's summary numbers (AZL: test error E‖out − y‖², the F and G projections),
# averaged over seeds like ROWS when a method's summary has them
REGRESSION_KEYS = ("test_err", "train_err", "c_F", "c_G")
REGRESSION_ROWS = ERROR
MSE_ROWS = MSE  # a regression world trained by the GFL procedure (engine/procedures/rows.py)


def rows_for(entries) -> tuple[tuple[str, str], ...] | None:
    """The table rows for these method summaries: AZL's, MSE / Var(y)'s, or None (accuracy)."""
    entries = list(entries)
    if any(e.get("test_err") is not None for e in entries):
        return REGRESSION_ROWS
    if any(e.get("test_mse_ratio") is not None for e in entries):
        return MSE_ROWS
    return None


def score_key(entries) -> str:
    """The per-method number that ranks methods: test error, test MSE / Var(y) or accuracy."""
    rows = rows_for(entries)
    return "test_acc" if rows is None else ("test_err" if rows is REGRESSION_ROWS
                                            else "test_mse_ratio")


def clean(value):
    """JSON-safe copy: NaN/Inf → None, numpy → Python, arrays dropped."""
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items() if not isinstance(v, np.ndarray)}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def history_rows(run) -> list[dict]:
    """Per-step scalars of one run."""
    return [clean(s.scalars()) for s in run.history]


def aggregate(per_seed: list[dict]) -> dict:
    """Mean and standard deviation over seeds of train_acc, test_acc and cos per method (and of
    the EXTRA_ROWS and regression numbers a method's summary carries)."""
    out = {}
    for method in per_seed[0]:
        entry = {}
        extra = [k for k in (*dict(EXTRA_ROWS), *REGRESSION_KEYS) if k in per_seed[0][method]]
        for key in [k for k, _ in ROWS] + extra:
            # a regression world's accuracy is nan: no mean or spread of it
            vals = [s[method][key] for s in per_seed
                    if s[method].get(key) is not None and math.isfinite(s[method][key])]
            entry[key] = statistics.fmean(vals) if vals else None
            entry[key + "_std"] = statistics.pstdev(vals) if len(vals) > 1 else 0.0
        entry["per_seed"] = [s[method] for s in per_seed]
        out[method] = entry
    return out


def with_paper(methods: dict, paper: dict | None) -> dict:
    """Add the paper's numbers and our difference (ours − paper) beside each method."""
    if not paper:
        return methods
    for method, entry in methods.items():
        ref = paper.get(method)
        if ref is None:
            continue
        entry["paper"] = ref
        entry["diff"] = {k: (None if entry.get(k) is None or ref.get(k) is None
                             else entry[k] - ref[k]) for k, _ in ROWS}
    return methods


def build_report(cfg, runs: dict, device: str, timing: dict, per_seed: list[dict] | None = None,
                 preset=None, diverged=None) -> dict:
    """The report: config, methods (train/test/cos, paper beside), history, timing, device.

    diverged: the DivergenceError that stopped the run; the report then holds every step up to
    it, and `diverged_at` (its step) and `diverged` (its message) say so.
    """
    per_seed = per_seed or [{m: r.summary() for m, r in runs.items()}]
    methods = with_paper(aggregate(per_seed), preset.paper if preset else None)
    extra = {} if diverged is None else {"diverged_at": diverged.step, "diverged": str(diverged)}
    return clean({
        "schema": SCHEMA_VERSION,
        "preset": preset.name if preset else None,
        "procedure": procedure_of(cfg).name,
        **own_words(cfg),
        "config": cfg.to_dict(),
        "schedule": _schedule(runs) if procedure_of(cfg).schedule else None,
        "truth": report_truth(runs),  # whether the world plants Σ_A M (the Cos row's target)
        "seeds": len(per_seed),
        "methods": methods,
        "history": {m: history_rows(r) for m, r in runs.items()},
        "timing": timing,
        "device": device,
        **extra,
    })


def own_words(cfg) -> dict:
    """Whose run it is and how it trains, in its procedure's words (its record's credit, loss
    and step rule): a report read alone says what it is a report of."""
    proc, credit = procedure_of(cfg), source_of(cfg)
    return {"source": {"citation": credit.citation, "claim": credit.claim},
            "loss": proc.loss, "step_rule": proc.step_rule(cfg)}


def _schedule(runs: dict) -> dict | None:
    """The step sizes the run really used (every η, λ, σ_ξ, ν⁽¹⁾ share, optimizer per stage);
    asked only for a procedure that trains by engine.schedule (its record's `schedule`)."""
    for run in runs.values():
        world = getattr(run, "world", None)
        if world is not None and getattr(world, "schedule", None) is not None:
            return world.schedule.to_dict()
    return None


def check_out(path: str) -> None:
    """Refuse an output path that cannot be written (before any training): ConfigError.

    The directory is probed by really creating (and removing) a file in it, which also catches
    read-only mounts and /proc, where permission bits say nothing.
    """
    if not path or not path.strip():
        raise ConfigError("--out", path, "a file path (it is empty)")
    if os.path.isdir(path):
        raise ConfigError("--out", path, "a file path, not a directory")
    refuse_special(path)  # a device, FIFO or link: one line, nothing replaced
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise ConfigError("--out", path, "a file in an existing directory")
    try:
        fd, probe = tempfile.mkstemp(dir=parent, prefix=".report-probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError as err:
        raise ConfigError("--out", path, f"a file in a writable directory ({err.strerror})") \
            from None


def _mode(path: str) -> int:
    """The existing file's permission bits, else 0666 less the umask."""
    try:
        return os.stat(path).st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_json(path: str, report: dict) -> None:
    """Write the report atomically: a temporary file in the same directory, then a rename.

    An existing file is replaced only once the new one is complete; on any failure (a full
    disk) the temporary file is removed and the old file stays as it was.
    """
    text = json.dumps(report, indent=1, allow_nan=False)
    refuse_special(path)  # again: training took minutes, the path may be another thing now
    parent = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=parent, prefix=".report-", suffix=".tmp")
    try:
        os.chmod(tmp, _mode(path))  # mkstemp makes 0600; keep what a plain open() would give
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def history_csv(runs: dict) -> str:
    """All methods' per-step scalars as one long CSV (a `method` column first)."""
    return rows_csv([{"method": m, **row} for m, r in runs.items() for row in history_rows(r)])


def credited(text: str, credit: str) -> str:
    """A CSV led by one comment line naming whose run it is (read it with comment="#")."""
    return f"# source: {credit}\n{text}"


def rows_csv(rows: list[dict]) -> str:
    """Rows as CSV, the columns in order of first appearance."""
    keys: list[str] = []
    for row in rows:
        keys += [k for k in row if k not in keys]
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=keys, extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


def cell(key: str, value, signed: bool = False) -> str:
    """A Table-1 cell: cosine to 3 decimals, accuracy in % to 1 decimal, 'NA' for None."""
    if value is None:
        return "NA"
    if key == "cos" or key in dict(EXTRA_ROWS) or key in REGRESSION_KEYS:
        return f"{value:+.3f}" if signed else f"{value:.3f}"
    return f"{100 * value:+.1f}" if signed else f"{100 * value:.1f}"


def summary_table(report: dict) -> str:
    """The procedure's table (engine/procedures: its rows, labels and footer line); the paper's
    procedure: Table 1's layout, rows train %, test %, cos; ours, the paper's, the difference."""
    proc = RECORDS[report.get("procedure") or "shi2022"]
    methods, labels = report["methods"], proc.labels()
    names = list(methods)
    width = max(10, *(len(labels.get(m, m)) + 2 for m in names))
    every = proc.table.rows([methods[m] for m in names])
    row_titles = shown_rows(every, [methods[m] for m in names])
    title_w = max(9, *(len(title) + 1 for _, title in row_titles))  # "Train MSE/Var" is 13
    lines = [" " * (title_w + 7) + "".join(f"{labels.get(m, m):>{width}}" for m in names)]
    has_paper = any("paper" in methods[m] for m in names)
    for key, title in row_titles:
        rows = [("ours", lambda m, k=key: cell(k, methods[m].get(k)))]
        if report.get("seeds", 1) > 1:
            rows.append(("± std", lambda m, k=key: _std_cell(k, methods[m])))
        if has_paper:
            rows.append(("paper", lambda m, k=key: cell(k, methods[m].get("paper", {}).get(k))))
            rows.append(("diff", lambda m, k=key: cell(k, methods[m].get("diff", {}).get(k),
                                                       True)))
        for i, (label, fn) in enumerate(rows):
            head = f"{title if i == 0 else '':<{title_w}}{label:<7}"
            lines.append(head + "".join(f"{fn(m):>{width}}" for m in names))
    footer = proc.table.footer
    note = why_not(every, row_titles, report.get("truth"))
    why = [f"  ({note})"] if note else []
    return "\n".join(lines + why + ([footer(report["config"])] if footer else []))


def _std_cell(key: str, entry: dict) -> str:
    if entry.get(key) is None:
        return "NA"
    return cell(key, entry.get(key + "_std", 0.0))
