"""`python -m engine sweep`: settings × seeds × methods into a results store."""

from __future__ import annotations

import sqlite3
import sys

from ..config import ConfigError
from ..echo import plain
from . import presets as sweep_presets
from .driver import run_sweep
from .executors import EXECUTORS
from .spec import (
    MAX_SEEDS,
    SweepSpec,
    check_cells,
    check_size,
    parse_cell,
    parse_fixed,
    parse_int,
    parse_methods,
    parse_pair,
    parse_values,
)
from .store import store_path


def spec_from_args(args) -> SweepSpec:
    """The validated-as-parsed SweepSpec (cells are validated later, before any work)."""
    fixed = parse_fixed(args.set)
    axes = []
    for g in args.grid:
        name, text = parse_pair(g, "--grid")
        if any(name == n for n, _ in axes) or name in fixed:
            raise ConfigError("--grid", name, "each setting swept once and not also fixed")
        axes.append((name, parse_values(name, text)))
    cells = tuple(parse_cell(c) for c in args.cell)
    if axes and cells:
        raise ConfigError("--cell", args.cell[0], "either --grid or --cell, not both")
    if args.executor not in EXECUTORS:
        raise ConfigError("--executor", args.executor, "one of " + ", ".join(EXECUTORS))
    base = sweep_presets.get(args.sweep_preset).spec if args.sweep_preset else SweepSpec()
    if not (axes or cells):
        axes, cells = list(base.axes), base.cells
    spec = SweepSpec(args.preset or base.preset, {**base.fixed, **fixed}, tuple(axes), cells,
                     parse_int("--seeds", base.seeds if args.seeds is None else args.seeds, 1,
                               MAX_SEEDS),
                     parse_int("--seed", args.seed, 0, 2**31 - 1 - MAX_SEEDS),
                     parse_methods(args.methods) if args.methods is not None else base.methods,
                     args.device)
    check_size(spec)  # counted from the axis lengths, before any cell is built
    check_cells(spec.cells)
    return spec


def score(row: dict) -> str:
    """A row's headline number: test accuracy, or the regression world's test error (AZL) or
    test MSE / Var(y)."""
    for key, label in (("test_acc", ""), ("test_err", "error "), ("test_mse_ratio", "MSE/Var ")):
        if row.get(key) is not None:
            return f"{label}{row[key]:.3f}"
    return "NA"


def cmd_sweep(args) -> int:
    """Run the sweep; print one line per finished unit and a final summary."""
    spec = spec_from_args(args)
    workers = parse_int("--workers", args.workers, 1, 64)

    def progress(i: int, n: int, rows: list[dict]) -> None:
        if args.quiet:
            return
        r = rows[0]
        accs = " ".join(f"{x['method']}={score(x)}" for x in rows if x["seed"] == r["seed"])
        where = " ".join(f"{k}={v}" for k, v in r["setting"].items()) or "(base)"
        seeds = sorted({x["seed"] for x in rows})
        print(f"[{i}/{n}] {where} seeds={seeds} test: {accs}", file=sys.stderr, flush=True)

    try:
        res = run_sweep(spec, args.out, force=args.force, batch=args.batch_seeds,
                        executor_name=args.executor, workers=workers, address=args.address,
                        on_unit=progress, converged=not args.no_limits)
    except (sqlite3.Error, OSError) as err:  # e.g. a full disk: the rows written so far stay
        print(f"error: could not write the store {plain(args.out, 200)}: {plain(err, 200)}",
              file=sys.stderr)
        return 1
    print(f"{res['path']}: {res['rows']} rows, {res['skipped']} already stored, "
          f"{res['written']} written in {res['units']} units, {res['seconds']:.1f} s "
          f"({args.executor}, code {res['code_version']})")
    return 0


__all__ = ["cmd_sweep", "store_path"]
