"""The benchmark's parts; each runs in its own process (see bench/run.py) so its peak memory is
its own. Every part takes the parsed arguments and returns a JSON-ready dict."""

from __future__ import annotations

import os
import resource
import statistics
import time

import numpy as np
import torch

from bench.flops import StepFlops

TICK_BUDGET_S = 0.15  # compute per dashboard tick (stack notes: aim ≤ 150 ms, run_every 0.25 s)
RUN_EVERY_S = 0.25


def sync(device: str) -> None:
    """Wait for queued GPU work, so wall times are real."""
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def config(args):
    """(preset name, Config) from --preset/--quick and --set KEY=VALUE pairs."""
    from argparse import Namespace

    from engine.cli import parse_settings

    if getattr(args, "probe_samples", 0):  # experiment knob: the per-step probe sample size
        import engine.evaluate

        engine.evaluate.PROBE_SAMPLES = args.probe_samples
    name = args.preset or ("quick-parity" if args.quick else "paper-parity")
    cfg, _ = parse_settings(Namespace(preset=name, set=list(args.set or []), seed=None))
    return name, cfg


def memory(device: str, rss0: float) -> dict:
    """Peak resident memory of this process (and of the GPU), and the resident size before."""
    peak = peak_rss_mb()
    gpu = torch.cuda.max_memory_allocated() / 2**20 if device.startswith("cuda") else None
    return {"peak_rss_mb": peak, "rss_before_mb": rss0, "gpu_peak_mb": gpu}


def peak_rss_mb() -> float:
    """Peak resident memory of this process image (MB).

    VmHWM, not ru_maxrss: Linux carries ru_maxrss across exec, so a part started by a large
    parent would report the parent's peak.
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def rss_mb() -> float:
    """Current resident memory (MB)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return float("nan")


def median_ms(fn, reps: int) -> float:
    """Median wall time of fn() in ms (after one warm-up call)."""
    fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return 1e3 * statistics.median(times)


# ------------------------------------------------------------------------------------ matmul

def part_matmul(args) -> dict:
    """fp32 matmul rate (GFLOP/s) on the shapes the runs use; the best is the 'peak'."""
    dev = args.device
    shapes = {"batch 1000x100@100x300": (1000, 100, 300),
              "backward 300x1000@1000x101": (300, 1000, 101),
              "probes 8192x100@100x600": (8192, 100, 600),
              "full 50000x100@100x300": (50000, 100, 300),
              "d-space 1000x500@500x600": (1000, 500, 600),
              "d-space eval 10000x500@500x600": (10000, 500, 600)}
    out = {}
    gen = torch.Generator().manual_seed(0)
    for name, (m, k, n) in shapes.items():
        a = torch.randn(m, k, generator=gen).to(dev)
        b = torch.randn(k, n, generator=gen).to(dev)
        c = torch.empty(m, n, device=dev)
        reps = max(3, int(1e9 / (2 * m * k * n)))

        def work(a=a, b=b, c=c, reps=reps):
            for _ in range(reps):
                torch.mm(a, b, out=c)
            sync(dev)

        best = min(median_ms(work, 1) for _ in range(5)) / 1e3 / reps
        out[name] = 2 * m * k * n / best / 1e9
    return {"gflops": out, "peak_gflops": max(out.values())}


# ----------------------------------------------------------------------------------- network

def _timed(obj, names, acc, dev):
    """Wrap methods of obj so their wall time (synchronised) adds up in acc[name]."""
    for name in names:
        fn = getattr(obj, name)

        def wrapped(*a, _fn=fn, _name=name, **k):
            t = time.perf_counter()
            res = _fn(*a, **k)
            sync(dev)
            acc[_name] = acc.get(_name, 0.0) + time.perf_counter() - t
            return res

        setattr(obj, name, wrapped)


def _ticks(steps: list[float]) -> dict:
    """Dashboard ticks: consecutive steps until TICK_BUDGET_S of compute (at least one step)."""
    ticks, acc, k = [], 0.0, 0
    for s in steps:
        acc, k = acc + s, k + 1
        if acc >= TICK_BUDGET_S:
            ticks.append((acc, k))
            acc, k = 0.0, 0
    if k:
        ticks.append((acc, k))
    tick_s = [a for a, _ in ticks]
    return {"count": len(ticks), "median_s": statistics.median(tick_s), "max_s": max(tick_s),
            "median_steps": statistics.median([k for _, k in ticks]),
            "updates_per_s_compute_bound": 1.0 / max(RUN_EVERY_S, max(tick_s))}


def _warm(cfg, dev) -> None:
    """A few steps on a small world with another seed: the dashboard process is warm when a
    setting changes, so the first-snapshot time should not include one-off start-up costs."""
    from engine.run import Run
    from engine.worlds import build_world

    world = build_world(cfg.replace(seed=cfg.seed + 1, n=min(cfg.n, 5000),
                                    n_test=min(cfg.n_test, 2000), T=min(cfg.T, 8)), dev)
    run = Run(world, "network", embed=True)
    for _ in range(4):
        run.step()


def part_network(args) -> dict:
    """The network alone with every per-step probe and an MDS frame per step."""
    from engine.run import Run
    from engine.worlds import build_world

    dev = args.device
    name, cfg = config(args)
    _warm(cfg, dev)
    rss0, parts, flops = rss_mb(), {}, StepFlops(cfg.T)
    sync(dev)
    t0, cpu0 = time.perf_counter(), time.process_time()
    with flops.mode():
        world = build_world(cfg, dev)
        _timed(world.evaluator, ("snapshot", "embedding"), parts, dev)
        run = Run(world, "network", embed=True)
    sync(dev)
    t_first = time.perf_counter() - t0
    _timed(run.trainer, ("step",), parts, dev)
    parts.clear()
    steps = []
    while not run.done:
        t = time.perf_counter()
        with flops.mode(run.t + 1):
            run.step()
        sync(dev)
        steps.append(time.perf_counter() - t)
    total, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    later = steps[2:-1] or steps
    out = {"preset": name, "T": cfg.T, "space": "pattern" if world.ds.in_pattern_space else "input",
           "first_snapshot_s": t_first, "total_s": total, "steps_s": sum(steps), "cpu_s": cpu,
           "step_s": {"step1": steps[0], "step2": steps[min(1, len(steps) - 1)],
                      "median_later": statistics.median(later), "max_later": max(later),
                      "last": steps[-1]},
           "breakdown_s": {"train_step": parts.get("step", 0.0),
                           "probes_snapshot": parts.get("snapshot", 0.0),
                           "mds_embedding": parts.get("embedding", 0.0)},
           "ticks": _ticks(steps), "history_mb": run.history_bytes() / 1e6,
           "summary": run.summary(), "flops": flops.result()}
    out.update(_mds_frames(world, run))
    out["flops"]["mds_numpy"] = (cfg.T + 1) * 2 * (2 * cfg.m + 2) * cfg.D ** 2  # Gram per frame
    out.update(memory(dev, rss0))
    return out


def _mds_frames(world, run) -> dict:
    """Frame times: a later frame (2m+2 points × D), the step-0 frame (with the off-span part)."""
    ev, p = world.evaluator, run.params
    prev = run.history[-2].embedding if len(run.history) > 1 else None
    return {"mds_frame_ms": median_ms(lambda: ev.embedding(p, prev), 50),
            "mds_frame_step0_ms": median_ms(lambda: ev.embedding(world.init, None), 5),
            "mds_points": int(p.q.shape[0] + 2), "mds_features": int(p.q.shape[1])}


# ----------------------------------------------------------------------------------- methods

def part_methods(args) -> dict:
    """Table 1's six methods in lockstep, as the dashboard's comparison runs them (no MDS)."""
    from engine.compare import Comparison
    from engine.methods import DEFAULT_METHODS

    dev = args.device
    name, cfg = config(args)
    Comparison(cfg.replace(n=min(cfg.n, 2000), n_test=min(cfg.n_test, 1000), T=min(cfg.T, 4)),
               DEFAULT_METHODS, device=dev).run_all()  # warm-up
    rss0, flops = rss_mb(), StepFlops(cfg.T)
    sync(dev)
    t0, cpu0 = time.perf_counter(), time.process_time()
    with flops.mode():
        cmp_ = Comparison(cfg, DEFAULT_METHODS, device=dev)
    sync(dev)
    setup = time.perf_counter() - t0
    per = dict.fromkeys(cmp_.runs, 0.0)
    while not cmp_.done:
        with flops.mode(cmp_.t + 1):
            for m, r in cmp_.runs.items():
                t = time.perf_counter()
                r.step()
                sync(dev)
                per[m] += time.perf_counter() - t
    total = time.perf_counter() - t0
    hist = sum(r.history_bytes() for r in cmp_.runs.values() if hasattr(r, "history_bytes"))
    out = {"preset": name, "T": cfg.T, "total_s": total, "setup_s": setup,
           "cpu_s": time.process_time() - cpu0, "per_method_s": per,
           "per_step_ms": 1e3 * (total - setup) / cfg.T, "summary": cmp_.summary(),
           "history_mb": hist / 1e6, "flops": flops.result()}
    out.update(memory(dev, rss0))
    return out


# --------------------------------------------------------------------------------- reference

def part_reference(args) -> dict:
    """The plain reference: d-space, autograd, whole train and test sets after every step."""
    from bench.reference import train_reference

    dev = args.device
    name, cfg = config(args)
    steps = min(args.reference_steps or cfg.T, cfg.T)
    rss0, times, cpus = rss_mb(), [], []
    last = [time.perf_counter(), time.process_time()]

    def on_step(row):
        sync(dev)
        now, cpu = time.perf_counter(), time.process_time()
        times.append(now - last[0])
        cpus.append(cpu - last[1])
        last[:] = [now, cpu]

    t0, cpu0 = time.perf_counter(), time.process_time()
    res = train_reference(cfg, steps=steps, device=dev, on_step=on_step)
    total, cpu_total = time.perf_counter() - t0, time.process_time() - cpu0
    st = times[1:]  # times[0]: data, init and the step-0 evaluation
    later = st[2:] or st
    out = {"preset": name, "T": cfg.T, "steps_run": steps, "total_s": total, "setup_s": times[0],
           "step_s": {"step1": st[0], "step2": st[min(1, len(st) - 1)],
                      "median_later": statistics.median(later)},
           "cpu_s": cpu_total, "final": res.steps[-1], "extrapolated": steps < cfg.T}
    if steps < cfg.T:  # steps 1–2 as measured, the remaining steps at the later median
        out["total_s"] = times[0] + sum(st[:2]) + (cfg.T - 2) * statistics.median(later)
        out["cpu_s"] = sum(cpus[:3]) + (cfg.T - 2) * statistics.median(cpus[3:] or cpus)
    out.update(memory(dev, rss0))
    return out


PARTS = {"matmul": part_matmul, "network": part_network, "methods": part_methods,
         "reference": part_reference}


def machine(device: str) -> dict:
    """Python, torch, threads, CPU (and GPU) of this machine."""
    import platform

    info = {"python": platform.python_version(), "torch": torch.__version__,
            "threads": torch.get_num_threads(), "cpu_count": os.cpu_count(),
            "platform": platform.platform(), "numpy": np.__version__}
    try:
        with open("/proc/cpuinfo") as f:
            models = [ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")]
        info["cpu"] = models[0] if models else platform.processor()
    except OSError:
        info["cpu"] = platform.processor()
    if device.startswith("cuda"):
        props = torch.cuda.get_device_properties(0)
        info["gpu"], info["gpu_memory_gb"] = props.name, props.total_memory / 2**30
    return info
