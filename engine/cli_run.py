"""The CLI's commands (engine/cli.py parses the arguments without the engine, then calls
dispatch): presets, settings, run, and the sweep and warm subcommands' entry points."""

from __future__ import annotations

import sys
import time

from . import guard
from . import presets as preset_mod
from .config import KNOWN, SPECS, Config, ConfigError, from_dict, summary_line
from .echo import plain
from .hub import warm as hub_warm
from .limits import limit_of
from .limits import show as limit_show
from .methods import parse_methods
from .procedures import offered, procedure_of
from .reads import refuse_unread
from .report import build_report, check_out, summary_table, write_json
from .run import DivergenceError, pick_device
from .seeds import SeedSeries
from .sweep import cli as sweep_cli

EXIT_FAILED, EXIT_USAGE, EXIT_DIVERGED = 1, 2, 3
SEED_MAX = int(SPECS["seed"].hi)


def parse_settings(args) -> tuple[Config, preset_mod.Preset | None]:
    """Preset + --seed + --set pairs → a validated Config (ConfigError on bad input), and the
    preset, or None when --set moved the run to another world."""
    preset = preset_mod.get(args.preset)
    values, given = dict(preset.settings), set()
    for pair in args.set:
        if "=" not in pair:
            raise ConfigError("--set", pair, f"KEY=VALUE with KEY {KNOWN}")
        key, value = (part.strip() for part in pair.split("=", 1))
        if key in given:
            raise ConfigError("--set", pair, f"each setting once ({plain(key, 40)} is given twice)")
        given.add(key)
        values[key] = value
    if args.seed is not None:
        values["seed"] = args.seed
    cfg = from_dict(values)
    refuse_unread(cfg, given)  # a value the run ignores would only look like it mattered
    if preset_mod.preset_config(preset.name).scenario != cfg.scenario:
        preset = None  # another world's preset: its numbers and its name say nothing here
    return cfg, preset


def procedure_methods(text: str, cfg: Config) -> tuple[str, ...]:
    """--methods, validated against cfg's procedure (engine/procedures) by the one rule."""
    proc = procedure_of(cfg)
    return parse_methods(text, proc.names, f"the {proc.name} procedure's methods")


def parse_seed_count(text: str) -> int:
    """--seeds: an integer in [1, 20]."""
    try:
        count = int(text) if text.strip().isascii() else 0
    except ValueError:
        count = 0
    if not 1 <= count <= 20:
        raise ConfigError("--seeds", text, "an integer in [1, 20]")
    return count


def cmd_presets() -> int:
    """Print every preset with its settings and source."""
    for p in preset_mod.PRESETS.values():
        settings = ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                             for k, v in p.settings.items()) or "(paper defaults)"
        print(f"{p.name:<24} {p.title}\n{'':<24} {settings}  [{p.source}]")
    return 0


def cmd_settings() -> int:
    """Print every setting, its default and its allowed range."""
    defaults = Config().to_dict()
    for name, spec in SPECS.items():
        print(f"{name:<11} default {str(defaults[name]):<10} {spec.allowed()}  {spec.help}")
    return 0


def cmd_run(args) -> int:
    """Train the methods for each seed, print the table, write the report."""
    cfg, preset, methods, n_seeds, cache = _preflight(args)
    device = str(pick_device(args.device))
    t0 = time.perf_counter()
    limits: list[dict] = []  # per seed: method → its converged limit (engine/limits)
    first, per_seed, diverged = _train_seeds(cfg, methods, n_seeds, device, args.quiet, cache,
                                             None if args.no_limits else limits)
    timing = {"total_s": time.perf_counter() - t0, "setup_s": first.setup_s}
    if limits:  # total_s stays the training's own time; the limits' seconds are beside it
        timing["limits_s"] = sum(lim.get("seconds", 0.0) for s in limits for lim in s.values()
                                 if lim)
        timing["total_s"] -= timing["limits_s"]
    report = build_report(cfg, first.runs, device, timing, per_seed, preset, diverged)
    limit_show.attach(report, limit_show.merge(limits))
    print(_headline(cfg, preset, len(per_seed), device, timing["total_s"]))
    print(summary_table(report))
    if limits:
        print(limit_show.table(report))
    if args.out is not None:
        try:
            write_json(args.out, report)
        except OSError as err:  # e.g. a full disk: the old file is kept, nothing half-written
            print(f"error: could not write the report to {plain(args.out, 200)}: "
                  f"{err.strerror or err}; nothing was written", file=sys.stderr)
            return EXIT_FAILED
        print(f"report written to {args.out}")
    if diverged is not None:
        print(f"error: seed {cfg.seed + len(per_seed) - 1}: {diverged} (the table and the report "
              f"stop at step {diverged.step})", file=sys.stderr)
        return EXIT_DIVERGED
    return 0


def _preflight(args):
    """Every check that can fail, before any training: settings, methods, seeds, limits, --out."""
    cfg, preset = parse_settings(args)
    if args.methods is None:
        methods = offered(cfg).defaults
    else:
        methods = procedure_methods(args.methods, cfg)
    n_seeds = parse_seed_count(args.seeds)
    if cfg.seed + n_seeds - 1 > SEED_MAX:
        raise ConfigError("--seed", cfg.seed, f"an integer in [0, {SEED_MAX - n_seeds + 1}] "
                          f"with --seeds {n_seeds} (the last seed is at most {SEED_MAX})")
    # refuse what this host's limits do not allow (dropping the activation cache first)
    # (the first seed's comparison stays alive for the report while the later seeds train)
    cache = guard.check(cfg, methods, embed=False,
                        load=guard.Load(kept_seeds=n_seeds)).feature_cache
    if args.out is not None:
        check_out(args.out)
    return cfg, preset, methods, n_seeds, cache


def _train_seeds(cfg: Config, methods, n_seeds: int, device: str, quiet: bool,
                 cache: bool = True, limits: list | None = None):
    """(first Comparison, per-seed summaries, DivergenceError or None); stops at a divergence
    and keeps every step before it. `limits`: a list each finished seed's limits are added to."""
    series = SeedSeries(cfg, methods, n_seeds, device, prepare=lambda _cfg: cache)
    series.run(lambda comp: _train(comp, quiet, limits))
    return series.first, series.per_seed, series.diverged


def _train(comp, quiet: bool, limits: list | None = None) -> None:
    every = max(1, comp.cfg.T // 10)

    def progress(t, snaps):
        if not quiet and (t % every == 0 or t <= 2):
            accs = " ".join(f"{m}={_test_number(s):.3f}" for m, s in snaps.items())
            print(f"[seed {comp.cfg.seed}] step {t}/{comp.cfg.T} test: {accs}", file=sys.stderr,
                  flush=True)

    comp.run_all(progress)
    if limits is not None:  # after the run: the table and the report wait, training did not
        limits.append({m: limit_of(r) for m, r in comp.runs.items()})


def _test_number(snap) -> float:
    """A snapshot's test accuracy, or its regression figure (AZL's test error, a GFL world's test
    MSE / Var(y)): the accuracy of a regression world is nan."""
    extra = getattr(snap, "extra", {})
    for key in ("test_err", "test_mse_ratio"):
        if key in extra:
            return extra[key]
    return snap.test_acc


def _headline(cfg: Config, preset, seeds: int, device: str, total: float) -> str:
    proc = procedure_of(cfg).name
    how = f"schedule={cfg.schedule}" if proc == "shi2022" else f"procedure={proc}"
    name = preset.name if preset is not None else f"scenario={cfg.scenario}"
    return (f"{name}: {summary_line(cfg)} · n={cfg.n} · T={cfg.T} · "
            f"{how} · seeds={seeds} (from {cfg.seed}) · {device} · {total:.1f} s")


def dispatch(args) -> int:
    """Run the parsed command; bad input exits 2, divergence 3."""
    with guard.machine_memory():
        return _dispatch(args)


def _dispatch(args) -> int:
    """The command's exit code; a bad input or a divergence as one line."""
    try:
        if args.command == "presets":
            return cmd_presets()
        if args.command == "settings":
            return cmd_settings()
        if args.command == "sweep":
            return sweep_cli.cmd_sweep(args)
        if args.command == "warm":
            return hub_warm.cmd_warm(args, parse_settings, parse_seed_count)
        return cmd_run(args)
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except DivergenceError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_DIVERGED
    except ValueError as err:  # e.g. device=cuda without a GPU
        print(f"error: {plain(err, 300)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
