"""Resource guard: estimate a run's memory and time; refuse what the host cannot serve.

The estimate counts the tensors the engine really allocates (engine/data.py, trainer.py, run.py,
baselines.py). Server limits come from environment variables (documented in docs/hosting.md):

  FEX_MAX_MEMORY_MB  peak memory of one run            (default 1024)
  FEX_MAX_SECONDS    estimated CPU time per method     (default 120)
  FEX_MAX_N          training and test samples, each   (default 200000)
  FEX_MAX_M          neuron pairs m                    (default 2000)
  FEX_MAX_T          steps T                           (default 5000)
  FEX_MAX_DIM        input dimension d                 (default 3072)
  FEX_ALLOW_DOWNLOADS  0 refuses real datasets that torchvision would download (default 1)
  FEX_GFLOPS         sustained GFLOP/s of one core, for the time estimate (default 20)

Times are CPU seconds of one thread (serve with OMP_NUM_THREADS=1, see docs/hosting.md).
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass, field

from .config import Config, ConfigError
from .evaluate import PROBE_SAMPLES as PROBE
from .procedures import procedure_of
from .scenarios import dictionary, download_setting, input_dim, pattern_space
from .trainer import FEATURE_CACHE_BYTES

MB = 1 << 20
F32, F64 = 4, 8
CHUNK = 16384  # predict()/NTK evaluation chunk rows
KEEP_WEIGHTS = 60  # Run keeps the first-layer weights on about this many steps
BASE_MB = 40.0  # fixed per-run overhead: schedules, probes, small temporaries
# many medium arrays (weights kept for the map, gradient caches) come and go while training;
# the allocator keeps some of their freed space, measured at 10-35% of the live total
ALLOC_SLACK = 1.3
LOGREG_SAMPLES = 10_000  # engine.linear_probe.MAX_TRAIN
# a seed in a batched computation (sweep --batch-seeds) against one run's estimate: measured
# 296 MB a seed (bench.guard, 2 and 10 batched seeds) where one run is estimated at 182 MB
BATCHED_SEED = 1.7
# a spawned sweep worker: the interpreter with torch and the engine imported (measured 380 MB)
WORKER_MB = 400.0

LIMITS = {  # env var -> (default, setting it caps or None, explanation)
    "FEX_MAX_MEMORY_MB": (1024, None, "estimated peak memory of one run in MB"),
    "FEX_MAX_SECONDS": (120, None, "estimated CPU time per trained method in seconds"),
    "FEX_MAX_N": (200_000, ("n", "n_test"), "training/test samples"),
    "FEX_MAX_M": (2000, ("m",), "neuron pairs"),
    "FEX_MAX_T": (5000, ("T",), "steps"),
    "FEX_MAX_DIM": (3072, ("d",), "input dimension"),
}
DEFAULT_GFLOPS = 20.0
STEP_OVERHEAD_S = 0.005  # per step and method: Python, snapshot transfer, small probes
# flop-equivalents per cached activation of a frozen layer's step (a row gather and two
# matrix-vector products: memory-bound, about a tenth of a matmul's rate per element)
CACHED_STEP = 10


class ResourceError(ConfigError):
    """A setting is allowed by its range but too large for this server's limits."""


@dataclass(frozen=True)
class Estimate:
    """Predicted peak memory (MB) and CPU time (s) of a run, and what dominates each."""

    memory_mb: float
    seconds: float
    dominant: str  # the largest memory part, e.g. "data generation (n×D)"
    parts: dict = field(default_factory=dict)  # memory part -> MB
    gflop: float = 0.0
    feature_cache: bool = True  # False: run it with the cache off (it would not fit with it)
    resident_mb: float = 0.0  # what a finished run keeps (data, histories) while others run

    def describe(self) -> str:
        """One line for the UI or the CLI."""
        return (f"about {self.memory_mb:.0f} MB and {self.seconds:.0f} s "
                f"(mostly {self.dominant})")


def _info(cfg: Config, method: str):
    """The record of a method of cfg's procedure (engine.method_table.Method)."""
    return procedure_of(cfg).method(method)


def machine_memory_mb() -> float:
    """This machine's physical memory in MB (0 where the OS does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20
    except (AttributeError, OSError, ValueError):
        return 0.0


@contextmanager
def machine_memory():
    """On the command line (the user's own machine) an unset FEX_MAX_MEMORY_MB means half of
    this machine's memory, at least the server default: the 1024 MB default is a shared
    server's share, and two sweep workers with their runs already need about that much.
    Restored on exit, so that an in-process caller keeps the server default."""
    if os.environ.get("FEX_MAX_MEMORY_MB", "").strip():
        yield
        return
    default = LIMITS["FEX_MAX_MEMORY_MB"][0]
    os.environ["FEX_MAX_MEMORY_MB"] = f"{max(default, machine_memory_mb() / 2):.0f}"
    try:
        yield
    finally:
        os.environ.pop("FEX_MAX_MEMORY_MB", None)


def limit(name: str) -> float:
    """A server limit from the environment (its default when unset); bad values are errors."""
    default = LIMITS[name][0] if name in LIMITS else DEFAULT_GFLOPS
    raw = os.environ.get(name, "").strip()
    if not raw:
        return float(default)
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise ConfigError(name, raw, "a positive number (server setting)")
    return value


def coord_dim(cfg: Config) -> tuple[int, int, bool]:
    """(r, d, pattern_space): width of the data coordinates the engine stores, and d."""
    d, pattern = input_dim(cfg), pattern_space(cfg)  # the world's declarations
    return (cfg.D if pattern else d), d, pattern


def _data_mb(cfg: Config) -> tuple[float, float]:
    """(kept, generation peak) MB of one world's data (train + test)."""
    r, d, pattern = coord_dim(cfg)
    kept = (cfg.n + cfg.n_test) * r * F32
    big = max(cfg.n, cfg.n_test)
    if not dictionary(cfg):
        gen = 32 * big * d  # float64 draws and sums, then the float32 copy
    elif pattern:
        # rng.random (f64), the probability table (f64), the mask and φ̃ (f32) of one split;
        # the test split is drawn while the training φ̃ is kept, then both are normalised
        n, nt = cfg.n, cfg.n_test
        gen = max(21 * n, 4 * n + 21 * nt, 8 * n + 12 * nt) * cfg.D
    else:
        # φ̃ and z in pattern space, then x = z Mᵀ, the noise draw and its scaled copy (f32)
        gen = 8 * cfg.n * cfg.D + 3 * F32 * cfg.n * d + F32 * cfg.n_test * d
    if dictionary(cfg):
        gen += F64 * d * cfg.D  # the dictionary M (d×D, float64) is alive while sampling
    return kept / MB, gen / MB


def _rows(n: int) -> int:
    """Rows of predict()'s chunk buffers alive at once (the last, shorter chunk overlaps)."""
    return n if n <= CHUNK else CHUNK + min(CHUNK, n % CHUNK)


def _world_mb(cfg: Config, methods) -> tuple[float, float, float]:
    """(init peak, kept, evaluation peak) MB of one world's network-side buffers."""
    r, d, pattern = coord_dim(cfg)
    width = 2 * cfg.m
    probe = min(cfg.n, PROBE) + min(cfg.n_test, PROBE)
    init = width * d * 8 * 3.5  # float64 draws in d-space, their projection and residual
    perp = width * d * F32 if pattern and r != d else 0
    frozen = sum(_info(cfg, m).frozen for m in methods)
    kept = perp + probe * r * F32 + probe * width * F32 * (1 + min(frozen, 4))
    evaluation = _rows(max(cfg.n, cfg.n_test)) * width * F32
    return init / MB, kept / MB, evaluation / MB


def _frozen_features_bytes(cfg: Config, methods) -> int:
    """Frozen layers' activations on the training set (engine.trainer.DeviceData), up to their
    budget: the initial layer (RF and the NTK share it; m units under the symmetric init) and
    One/Two Step's layers (2m units each)."""
    init_units = cfg.m if cfg.schedule != "standard" else 2 * cfg.m
    total = 0
    for structured in (True, False):  # one cache per world
        info = [_info(cfg, m) for m in methods if _info(cfg, m).structure == structured]
        units = init_units * any(i.uses_init_layer for i in info)
        units += 2 * cfg.m * len({i.base for i in info if i.frozen and not i.uses_init_layer})
        total += min(cfg.n * units * F32, FEATURE_CACHE_BYTES)
    return total


def _method_mb(cfg: Config, method: str) -> tuple[float, float]:
    """(kept, evaluation peak) MB of one method: parameters, caches, history; NTK buffers."""
    r, _, _ = coord_dim(cfg)
    width = 2 * cfg.m
    # p, grads, a_prev, full-batch cache copies; Adam's two moments, the averaged iterate and
    # the temporaries of its step (classifier stage)
    params = width * (r + 2) * F32 * 10
    probe = min(cfg.n, PROBE) + min(cfg.n_test, PROBE)
    sizing = procedure_of(cfg).run_bytes  # a procedure with runs of its own sizes them
    if sizing is not None:
        own = sizing(cfg, r, params)
        return own[0] / MB, own[1] / MB
    if _info(cfg, method).linearised:
        kept = params + 3 * probe * width * F32 + cfg.T * 200
        # full evaluation: pre-activation, act, der, slope and lin on a chunk
        return kept / MB, 5 * min(CHUNK, max(cfg.n, cfg.n_test)) * width * F32 / MB
    snaps = (cfg.T + 1) * (4 * width * F32 + 2 * (width + 2) * F32 + 400)
    history = snaps + min(cfg.T + 1, KEEP_WEIGHTS + 4) * width * r * F32
    return (params + history) / MB, 0.0


def _logreg_mb(cfg: Config, methods) -> float:
    """Peak MB of classifier=logreg (engine/linear_probe.fit) on the frozen-feature methods.

    The features of the whole training set (n×2m, float64) stay alive while they are
    standardised (a copy), then the test set's are made (chunks, then their concatenation)
    and standardised; the 10 000-sample fit and its validation split come and go meanwhile.
    """
    if cfg.classifier != "logreg" or not any(_info(cfg, m).frozen for m in methods):
        return 0.0
    r, width = coord_dim(cfg)[0], 2 * cfg.m
    train, test = cfg.n * width * F64, cfg.n_test * width * F64
    fit = min(cfg.n, LOGREG_SAMPLES) * width * F64
    chunk = min(CHUNK, max(cfg.n, cfg.n_test)) * (2 * width + r) * F64  # pre, σ(pre), z
    return (train + max(train, 2 * test, 3 * fit) + chunk) / MB


def _gflop(cfg: Config, methods, embed: bool, feature_cache: bool = True) -> float:
    """Floating-point work (GFLOP) of training and measuring every method for T steps."""
    r, d, _ = coord_dim(cfg)
    width, probe = 2 * cfg.m, min(cfg.n, PROBE) + min(cfg.n_test, PROBE)
    batch = min(cfg.batch, cfg.n)
    gen = 30 * (cfg.n + cfg.n_test) * max(cfg.D, 1 if r == cfg.D else d)
    total = gen + 4 * (cfg.n + cfg.n_test) * cfg.D * (0 if r == cfg.D else d)
    for m in methods:
        step = 4 * batch * width * r + 2 * probe * width * r  # fwd+bwd on a batch, probe eval
        full = 4 * cfg.n * width * r * 2 + 2 * (cfg.n + cfg.n_test) * width * r * 4
        if _info(cfg, m).linearised:
            step *= 1.5
        frozen = min(cfg.T, cfg.T - _info(cfg, m).freeze_after) if _info(cfg, m).frozen else 0
        if feature_cache and frozen > 0:  # steps on cached activations: no matmul over r
            total += frozen * CACHED_STEP * (batch + probe) * width
            total += (cfg.T - frozen) * step + full
            continue
        total += cfg.T * step + full
        if embed and not _info(cfg, m).linearised:
            pts, small = width + 2, min(width + 2, r)  # classical MDS: Gram matrix + top-2 eigh
            total += cfg.T * (2 * pts * r * small + 10 * small**3)
    return total / 1e9


def estimate(cfg: Config, methods=("network",), embed: bool = True,
             feature_cache: bool = True) -> Estimate:
    """Peak memory and CPU time of training `methods` side by side on cfg (one seed), with or
    without the frozen layers' cached activations."""
    kept, gen = _data_mb(cfg)
    worlds = 2 if any(not _info(cfg, m).structure for m in methods) else 1
    init, net_kept, evaluation = _world_mb(cfg, methods)
    per_method = {m: _method_mb(cfg, m) for m in methods}
    method_kept = sum(k for k, _ in per_method.values())
    method_eval = max((e for _, e in per_method.values()), default=0.0)
    resident = worlds * (kept + net_kept) + method_kept  # alive from training to the end
    resident += _frozen_features_bytes(cfg, methods) / MB if feature_cache else 0.0
    parts = {  # the phases of a run; the peak is the largest
        "data generation": gen + (worlds - 1) * (kept + net_kept),
        "network initialisation": worlds * kept + (worlds - 1) * net_kept + init,
        "training and evaluation": ALLOC_SLACK * (resident + max(evaluation, method_eval)),
        "classifier (logreg)": resident + _logreg_mb(cfg, methods),
    }
    dominant = max(parts, key=parts.get)
    timing = procedure_of(cfg).run_gflop  # a procedure with runs of its own times them
    gflop = None if timing is None else timing(cfg, methods, embed)
    gflop = _gflop(cfg, methods, embed, feature_cache) if gflop is None else gflop
    seconds = gflop / limit("FEX_GFLOPS") + STEP_OVERHEAD_S * cfg.T * len(methods)
    return Estimate(BASE_MB + parts[dominant], seconds, dominant, parts, gflop, feature_cache,
                    resident)


@dataclass(frozen=True)
class Load:
    """What runs at once: seeds kept while later ones train (the CLI's --seeds and Compare keep
    the first seed's comparison for the report), seeds batched into one computation (sweep
    --batch-seeds) and worker processes side by side (sweep --workers)."""

    kept_seeds: int = 1
    batched: int = 1
    workers: int = 1

    def memory_mb(self, est: Estimate) -> float:
        """Peak MB of everything that runs at once, from one run's estimate."""
        one = est.memory_mb
        if self.batched > 1:  # each seed its own world, plus the stacked states
            one = BASE_MB + self.batched * BATCHED_SEED * (est.memory_mb - BASE_MB)
        if self.kept_seeds > 1:
            one += est.resident_mb
        return one if self.workers <= 1 else self.workers * (one + WORKER_MB)

    def knob(self) -> tuple[str, int]:
        """The flag whose reduction helps most when one run fits and their sum does not."""
        return max((("--workers", self.workers), ("--seeds", self.batched),
                    ("--seeds", self.kept_seeds)), key=lambda kv: kv[1])


def check(cfg: Config, methods=("network",), embed: bool = True, load: Load = Load()
          ) -> Estimate:
    """estimate() or ResourceError naming the setting (or flag) to reduce, its value and the
    maximum; `load` says how many runs are alive at once."""
    for env, (_, names, what) in LIMITS.items():
        for name in names or ():
            cap = limit(env)
            if getattr(cfg, name) > cap:
                raise ResourceError(name, getattr(cfg, name),
                                    f"at most {cap:g} {what} on this server ({env})")
    check_downloads(cfg)
    est = estimate(cfg, methods, embed)
    mem_cap, time_cap = limit("FEX_MAX_MEMORY_MB"), limit("FEX_MAX_SECONDS")
    if load.memory_mb(est) > mem_cap:  # the cache is a speed-up: give it up before refusing
        est = estimate(cfg, methods, embed, feature_cache=False)
    if est.memory_mb <= mem_cap < load.memory_mb(est):
        flag, value = load.knob()
        raise ResourceError(flag, value, f"a smaller number: together they need about "
                            f"{load.memory_mb(est):.0f} MB, more than the {mem_cap:g} MB "
                            f"allowed (FEX_MAX_MEMORY_MB; one run needs {est.memory_mb:.0f} MB)")
    if est.memory_mb > mem_cap:
        name = _largest_knob(cfg, est)
        raise ResourceError(name, getattr(cfg, name),
                            f"a smaller value: this run needs about {est.memory_mb:.0f} MB, "
                            f"more than the {mem_cap:g} MB allowed on this server "
                            f"(FEX_MAX_MEMORY_MB; mostly {est.dominant})")
    per_method = est.seconds / max(1, len(methods))
    if per_method > time_cap:
        name = "T" if cfg.T > 100 else ("m" if cfg.m > 50 else "n")
        raise ResourceError(name, getattr(cfg, name),
                            f"a smaller value: each method needs about {per_method:.0f} s, "
                            f"more than the {time_cap:g} s allowed on this server "
                            f"(FEX_MAX_SECONDS)")
    return est


def check_downloads(cfg: Config) -> None:
    """ResourceError when cfg's data would be downloaded and this server has downloads off."""
    name = download_setting(cfg)
    if name and os.environ.get("FEX_ALLOW_DOWNLOADS", "1").strip().lower() in ("0", "false", "no"):
        raise ResourceError(name, getattr(cfg, name), "a bundled data set on this server "
                            "(downloads are off: FEX_ALLOW_DOWNLOADS=0)")


def _largest_knob(cfg: Config, est: Estimate) -> str:
    """The setting whose reduction shrinks the dominant memory part most."""
    if est.dominant != "data generation" and cfg.m * 2 > min(cfg.n, 2 * CHUNK) / 8:
        return "m"
    return "n" if cfg.n >= cfg.n_test else "n_test"
