"""`python -m engine warm --preset P …`: compute runs before class into FEX_FRAME_CACHE, so the
hub replays them at once (the same key, so the same frames the server would compute)."""

from __future__ import annotations

import time
from pathlib import Path

from .. import guard
from ..config import Config, ConfigError
from . import disk, packing, store
from .key import canonical, run_key
from .slot import FACTORY, load_factory


def folder(arg: str | None) -> Path:
    """--cache, else FEX_FRAME_CACHE; a one-line ConfigError when neither is set."""
    if arg:  # a file, a device or /proc: one line, not a traceback
        return disk.prepare(arg, "--cache")
    path = store.cache_dir()
    if path is None:
        raise ConfigError("--cache", "", "a directory: pass --cache DIR or set FEX_FRAME_CACHE "
                                         "(the server's cache)")
    return path


def warm(cfg: Config, where: Path, factory: str = FACTORY) -> tuple[Path, bool]:
    """Compute cfg's run (unless cached) and write it; (its file, whether it was computed)."""
    key = run_key(cfg)
    if store.load(where, key, cfg) is not None:
        return where / f"{key}.json.gz", False
    stream = load_factory(factory)(cfg, device="cpu")
    stream.advance()
    if stream.error:
        raise ConfigError("preset", cfg.scenario, f"a run that completes (it stopped: "
                                                  f"{stream.error})")
    run = store.HubRun(key, cfg.to_dict(), canonical(cfg), meta=_meta(stream), T=stream.T,
                       state="done")
    batch = stream.frames(0, len(stream))
    run.add(0, packing.split(batch))
    run.schema = packing.kinds(batch)
    path = store.save(where, run)
    if path is None:
        raise ConfigError("--cache", str(where), "a folder with room for the run (the write "
                                                 "failed; see the line above)")
    return path, True


def _meta(stream) -> dict:
    """The run's meta with its converged limits, as the hub stores it once they arrive (a file
    written without them would replay without its limit lines)."""
    lim = stream.limits()
    while lim is not None and lim["pending"]:
        stream.wait_limits(1.0)
        lim = stream.limits()
    meta = stream.meta()
    return meta if lim is None else {**meta, "limits": lim}


def cmd_warm(args, parse_settings, parse_seed_count) -> int:
    """Warm each seed; prints one line per run."""
    cfg, _ = parse_settings(args)
    guard.check(cfg)  # the server's limits: a run it would refuse is not worth caching
    where = folder(args.cache)
    for seed in range(cfg.seed, cfg.seed + parse_seed_count(args.seeds)):
        t0 = time.perf_counter()
        path, computed = warm(cfg.replace(seed=seed), where)
        if not args.quiet:
            how = f"computed in {time.perf_counter() - t0:.1f} s" if computed else "already cached"
            print(f"{args.preset} seed {seed}: {path.name} ({how})")
    return 0
