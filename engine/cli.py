"""Command line: `python -m engine presets` and `python -m engine run --preset NAME ...`.

The arguments are parsed without the engine: its registries (settings, methods, presets) import
torch, ~1 s of every call. The commands (engine/cli_run.py) are imported once parsed; the
method and sweep names that the help lists are read only for a help request (issue 37:
`import engine.cli` loads no torch, tests/engine/test_lazy_imports.py)."""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import NamedTuple

from .cli_help import wants_help
from .echo import plain

EXIT_USAGE = 2
EXAMPLE = ("python -m engine sweep --preset quick-parity --grid k=1,3,5,7 --grid p_o=0.2,0.4,0.6 "
           "--seeds 3 --methods network,ntk,rf,one_step --out sweeps/k-po")


class Names(NamedTuple):
    """What the help lists from the registries: every procedure's methods, the named sweeps."""

    methods: tuple[str, ...] = ()
    sweeps: tuple[str, ...] = ()


def registry_names() -> Names:
    """The registries' names (imports them, and torch): for a help text only."""
    methods = importlib.import_module("engine.methods").NAMES
    sweeps = importlib.import_module("engine.sweep.presets").SWEEP_PRESETS
    return Names(tuple(methods), tuple(sweeps))


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line (no usage dump) with exit code 2."""

    def error(self, message: str):
        # the message may quote any argument a user typed: one plain line of bounded length
        self.exit(EXIT_USAGE, f"error: {plain(message, 200)} (see --help)\n")


def build_parser(names: Names | None = None) -> argparse.ArgumentParser:
    """The CLI's argument parser (names: what its help lists; by default the registries')."""
    names = registry_names() if names is None else names
    p = OneLineParser(prog="python -m engine", description=__doc__.split("\n", 1)[0])
    sub = p.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    sub.add_parser("presets", help="list presets with their settings")
    sub.add_parser("settings", help="list every setting with its allowed range")
    r = sub.add_parser("run", help="train methods and print the Table-1-style summary")
    add_setting(r, "number of seeds seed, seed+1, ... to average",
                "override a setting (repeatable), e.g. --set k=7 --set p_o=0.3")
    r.add_argument("--methods", default=None,
                   help="comma-separated subset of the procedure's methods (default: its "
                        "defaults); every procedure's: " + ", ".join(names.methods))
    r.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    r.add_argument("--out", help="write the JSON report here")
    r.add_argument("--quiet", action="store_true", help="no progress lines")
    r.add_argument("--no-limits", action="store_true",
                   help="skip the converged limits of the fixed-feature methods (engine/limits)")
    add_sweep(sub, names)
    add_warm(sub)
    return p


def add_setting(parser, seeds_help: str, set_help: str) -> None:
    """The setting arguments `run` and `warm` share: a preset, its seeds and overrides."""
    parser.add_argument("--preset", default="paper-parity", help="a name from `presets`")
    parser.add_argument("--seed", help="random seed (overrides the preset)")
    parser.add_argument("--seeds", default="1", help=seeds_help)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help=set_help)


def add_sweep(sub, names: Names) -> None:
    """The `sweep` subcommand (engine/sweep/cli.py runs it)."""
    s = sub.add_parser("sweep", help="a grid or list of settings × seeds × methods into a "
                       "SQLite store", description="e.g. " + EXAMPLE)
    s.add_argument("--preset", default=None, help="base preset (default quick-parity)")
    s.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="fixed override for every cell (repeatable)")
    s.add_argument("--grid", action="append", default=[], metavar="KEY=V1,V2,...",
                   help="a swept setting (repeatable; the grid is their product)")
    s.add_argument("--cell", action="append", default=[], metavar="'K=V K=V'",
                   help="a list of cells instead of a grid (repeatable)")
    s.add_argument("--seeds", default=None, help="seeds per cell: seed, seed+1, ... (default 1)")
    s.add_argument("--seed", default="0", help="first seed")
    s.add_argument("--methods", default=None, help="comma-separated subset of: " +
                   ", ".join(names.methods) + " (default network,ntk,rf,one_step)")
    s.add_argument("--device", default="cpu", choices=("auto", "cpu", "cuda"))
    s.add_argument("--out", required=True, help="the store: OUT.sqlite (one file per sweep)")
    s.add_argument("--force", action="store_true", help="recompute rows already stored")
    s.add_argument("--executor", default="local", help="local (worker processes) or ray")
    s.add_argument("--workers", default="1", help="local executor: worker processes")
    s.add_argument("--address", default=None, help="ray executor: auto, HOST:PORT or "
                   "ray://host:10001 of a cluster, or local (start a new local Ray; the default "
                   "joins the cluster Ray recorded in /tmp/ray, else starts one)")
    s.add_argument("--batch-seeds", action="store_true",
                   help="train the seeds of a setting as one batched computation (network, rf, "
                        "one_step, two_step; README 'Batched seeds')")
    s.add_argument("--sweep-preset", default=None,
                   help="a named sweep (" + ", ".join(names.sweeps) + "); "
                        "--grid, --seeds and --methods then override its parts")
    s.add_argument("--quiet", action="store_true", help="no progress lines")
    s.add_argument("--no-limits", action="store_true",
                   help="skip the converged limits of the fixed-feature methods (engine/limits; "
                        "stored by default in the limit_test_* columns)")


def add_warm(sub) -> None:
    """The `warm` subcommand (engine/hub/warm.py runs it)."""
    w = sub.add_parser("warm", help="compute Explore runs into the frame cache (FEX_FRAME_CACHE)")
    add_setting(w, "warm seeds seed, seed+1, …", "override a setting (repeatable)")
    w.add_argument("--cache", help="the cache directory (default: FEX_FRAME_CACHE)")
    w.add_argument("--quiet", action="store_true")


def main(argv=None) -> int:
    """Entry point; bad input exits 2 with one line naming the setting, divergence exits 3."""
    args_in = sys.argv[1:] if argv is None else list(argv)
    # the registries' names only for a help request: a usage error or a command needs none
    names = registry_names() if wants_help(args_in) else Names()
    args = build_parser(names).parse_args(args_in)
    return importlib.import_module("engine.cli_run").dispatch(args)


def __getattr__(name: str):
    """The commands' names (parse_settings, cmd_run …), imported on first use."""
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(importlib.import_module("engine.cli_run"), name)
