"""`python -m engine.azl presets` and `python -m engine.azl run --preset azl-resnet ...`."""

from __future__ import annotations

import sys
import time

from ..cli import EXIT_DIVERGED, EXIT_USAGE, OneLineParser
from ..echo import plain
from ..errors import ConfigError
from ..report import build_report, check_out, write_json
from ..run import DivergenceError
from .compare import AZLComparison, parse_methods
from .config import LABELS, METHODS, from_dict
from .presets import DEFAULT, PRESETS, get

TABLE_ROWS = (("test_err", "test error"), ("c_F", "c_F"), ("c_G", "c_G"))


def build_parser() -> OneLineParser:
    """The CLI's argument parser."""
    p = OneLineParser(prog="python -m engine.azl", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    sub.add_parser("presets", help="list the AZL presets")
    r = sub.add_parser("run", help="train the methods in lockstep and print the table")
    r.add_argument("--preset", default=DEFAULT, help="one of " + ", ".join(PRESETS))
    r.add_argument("--seed", type=int, default=None, help="first seed (default: the preset's)")
    r.add_argument("--seeds", type=int, default=1, help="seeds to average, 1 to 20")
    r.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a setting, e.g. --set m=200")
    r.add_argument("--methods", default=",".join(METHODS), help="subset of " + ",".join(METHODS))
    r.add_argument("--out", help="write the JSON report here")
    r.add_argument("--quiet", action="store_true", help="no progress lines")
    return p


def settings(args) -> dict:
    """The preset's settings with --seed and --set applied (ConfigError on a malformed pair)."""
    values = dict(get(args.preset).settings)
    for pair in args.set:
        if "=" not in pair:
            raise ConfigError("--set", pair, "KEY=VALUE, e.g. m=200")
        key, value = (part.strip() for part in pair.split("=", 1))
        values[key] = value if key in ("variant", "fc_bias") else _number(value)
    if args.seed is not None:
        values["seed"] = args.seed
    return values


def _number(text: str):
    """An int or float from text (left as text when it is neither: validation names it)."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def table(report: dict) -> str:
    """Test error, c_F and c_G per method (mean ± std over seeds) and the kα² line."""
    methods = report["methods"]
    names = list(methods)
    width = max(12, *(len(LABELS[m]) + 2 for m in names))
    lines = [" " * 12 + "".join(f"{LABELS[m]:>{width}}" for m in names)]
    for key, title in TABLE_ROWS:
        cells = []
        for m in names:
            mean, std = methods[m].get(key), methods[m].get(key + "_std") or 0.0
            text = "NA" if mean is None else f"{mean:.3f}"
            cells.append(text + (f" ± {std:.3f}" if report["seeds"] > 1 and mean is not None
                                 else ""))
        lines.append(f"{title:<12}" + "".join(f"{c:>{width}}" for c in cells))
    cfg = report["config"]
    lines.append(f"kα² = {cfg['threshold']:.2f}: a test error above it means G(F) is not "
                 "learned at all")
    return "\n".join(lines)


def cmd_run(args) -> int:
    """Train every seed, print the table, write the report."""
    preset, values = get(args.preset), settings(args)
    methods = parse_methods(m.strip() for m in args.methods.split(",") if m.strip())
    if not 1 <= args.seeds <= 20:
        raise ConfigError("--seeds", args.seeds, "an integer in [1, 20]")
    cfg = from_dict(values)
    if args.out is not None:
        check_out(args.out)
    t0, per_seed, first = time.perf_counter(), [], None
    for i in range(args.seeds):
        comp = AZLComparison(cfg.replace(seed=cfg.seed + i), methods)
        comp.run_all(None if args.quiet else _progress(comp))
        first = first or comp
        per_seed.append(comp.summary())
    timing = {"total_s": time.perf_counter() - t0, "setup_s": first.setup_s}
    report = build_report(cfg, first.runs, "cpu", timing, per_seed, preset)
    print(f"{preset.name}: seeds {cfg.seed}..{cfg.seed + args.seeds - 1} · n={cfg.n} · "
          f"m={cfg.m} · T={cfg.T} · {timing['total_s']:.1f} s")
    print(table(report))
    if args.out is not None:
        write_json(args.out, report)
        print(f"report written to {args.out}")
    return 0


def _progress(comp: AZLComparison):
    every = max(1, comp.cfg.T // 10)

    def show(t, snaps):
        if t % every == 0:
            errs = " ".join(f"{m}={s.extra['test_err']:.3f}" for m, s in snaps.items())
            print(f"[seed {comp.cfg.seed}] step {t}/{comp.cfg.T} test error: {errs}",
                  file=sys.stderr, flush=True)
    return show


def main(argv=None) -> int:
    """Entry point; bad input exits 2 with one line naming the setting."""
    args = build_parser().parse_args(argv)
    try:
        if args.command == "presets":
            for p in PRESETS.values():
                print(f"{p.name:<12} {p.title}\n{'':<12} {p.settings or '(defaults)'}")
            return 0
        return cmd_run(args)
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except DivergenceError as err:
        print(f"error: {plain(err, 300)}", file=sys.stderr)
        return EXIT_DIVERGED
