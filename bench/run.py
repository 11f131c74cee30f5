"""The engine benchmark (issue 6): one command, a table on stdout, a JSON file in bench/results/.

    python -m bench                   # paper-parity preset on the best device, everything
    python -m bench --quick           # the small quick-parity preset (smoke run, ~1 min)
    python -m bench --skip-reference  # without the plain reference (saves ~3 min on a 2-core CPU)
    python -m bench --device cpu --threads 2

Every part runs in its own Python process so that its peak memory is its own. Parts:
  matmul     the machine's fp32 matmul rate on the run's shapes (for the lower bound)
  network    the network alone with every per-step probe and an MDS frame per step:
             time to the first snapshot after a change of setting, seconds per step and in
             total, a simulated dashboard tick stream, the MDS frame time, the history's size
  methods    the six methods of Table 1 in lockstep (engine.compare.Comparison, no MDS)
  flops      a separate counting pass of both (matrix-product FLOPs, see bench/flops.py)
  reference  the plain d-space autograd implementation (bench/reference.py), full probes
Ratios: engine time / arithmetic lower bound (FLOPs at the peak measured rate), and
reference time / engine time for the network with per-step probes.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results"
TICK_BUDGET_S = 0.15  # compute per dashboard tick (stack notes: aim ≤ 150 ms, run_every 0.25 s)
RUN_EVERY_S = 0.25


def _sync(device: str):
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def _preset(quick: bool):
    from engine.presets import preset_config

    name = "quick-parity" if quick else "paper-parity"
    return name, preset_config(name)


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _rss_mb() -> float:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return float("nan")


def _gpu_peak_mb(device: str) -> float | None:
    if device.startswith("cuda"):
        return torch.cuda.max_memory_allocated() / 2**20
    return None


# --------------------------------------------------------------------------------------- parts

def part_matmul(args) -> dict:
    """fp32 matmul rate (GFLOP/s) on the shapes the run uses; the best is the 'peak'."""
    dev = args.device
    shapes = {"1000x500@500x600": (1000, 500, 600), "batch 1000x100@100x600": (1000, 100, 600),
              "probes 8192x100@100x600": (8192, 100, 600),
              "full 50000x100@100x300": (50000, 100, 300),
              "backward 600x1000@1000x101": (600, 1000, 101)}
    out = {}
    gen = torch.Generator().manual_seed(0)
    for name, (m, k, n) in shapes.items():
        a = torch.randn(m, k, generator=gen).to(dev)
        b = torch.randn(k, n, generator=gen).to(dev)
        c = torch.empty(m, n, device=dev)
        for _ in range(3):
            torch.mm(a, b, out=c)
        _sync(dev)
        reps = max(3, int(2e9 / (2 * m * k * n)))
        best = float("inf")
        for _ in range(5):
            t = time.perf_counter()
            for _ in range(reps):
                torch.mm(a, b, out=c)
            _sync(dev)
            best = min(best, (time.perf_counter() - t) / reps)
        out[name] = 2 * m * k * n / best / 1e9
    return {"gflops": out, "peak_gflops": max(out.values())}


def _timed_wrappers(obj, names, acc):
    """Wrap methods of obj so their wall time (synchronised) adds up in acc[name]."""
    dev = getattr(obj, "_bench_device", "cpu")
    for name in names:
        fn = getattr(obj, name)

        def wrapped(*a, _fn=fn, _name=name, **k):
            t = time.perf_counter()
            res = _fn(*a, **k)
            _sync(dev)
            acc[_name] = acc.get(_name, 0.0) + time.perf_counter() - t
            return res

        setattr(obj, name, wrapped)


def part_network(args) -> dict:
    """The network alone, every per-step probe and an MDS frame per step."""
    from engine import mds
    from engine.run import Run, build_world

    dev = args.device
    name, cfg = _preset(args.quick)
    # warm-up with another seed: the dashboard process is warm when a setting changes
    warm = build_world(cfg.replace(seed=cfg.seed + 1, n=min(cfg.n, 5000),
                                   n_test=min(cfg.n_test, 2000)), dev)
    wr = Run(warm, "network", embed=True)
    for _ in range(4):
        wr.step()
    del wr, warm
    rss0 = _rss_mb()
    _sync(dev)
    t0 = time.perf_counter()
    world = build_world(cfg, dev)
    _sync(dev)
    t_world = time.perf_counter() - t0
    world.evaluator._bench_device = dev
    parts: dict[str, float] = {}
    _timed_wrappers(world.evaluator, ("snapshot", "embedding"), parts)
    run = Run(world, "network", embed=True)
    _sync(dev)
    t_first = time.perf_counter() - t0
    _timed_wrappers(run.trainer, ("step",), parts)
    parts.clear()
    steps = []
    cpu0 = time.process_time()
    while not run.done:
        t = time.perf_counter()
        run.step()
        _sync(dev)
        steps.append(time.perf_counter() - t)
    total = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    # dashboard ticks: consecutive steps until TICK_BUDGET_S of compute (at least one step)
    ticks, acc, k = [], 0.0, 0
    for s in steps:
        acc += s
        k += 1
        if acc >= TICK_BUDGET_S:
            ticks.append((acc, k))
            acc, k = 0.0, 0
    if k:
        ticks.append((acc, k))
    tick_s = [a for a, _ in ticks]
    # MDS frames: the last frame (602 points × D), and the step-0 frame with the off-span part
    ev, p = world.evaluator, run.params
    prev = run.history[-2].embedding
    frame = _median_ms(lambda: ev.embedding(p, prev), 50)
    frame0 = _median_ms(lambda: ev.embedding(world.init, None), 5)
    classical = _median_ms(lambda: mds.classical(mds.with_stars(
        np.asarray(p.q.cpu()), ev.ds.truth_coords)), 50)
    later = steps[2:-1]
    return {
        "preset": name, "T": cfg.T, "space": "pattern" if world.ds.in_pattern_space else "input",
        "build_world_s": t_world, "first_snapshot_s": t_first,
        "total_s": total, "steps_s": sum(steps), "cpu_s": cpu,
        "step_s": {"step1": steps[0], "step2": steps[1], "median_later": statistics.median(later),
                   "max_later": max(later), "last": steps[-1]},
        "breakdown_s": {"train_step": parts.get("step", 0.0),
                        "probes_snapshot": parts.get("snapshot", 0.0),
                        "mds_embedding": parts.get("embedding", 0.0)},
        "ticks": {"count": len(ticks), "median_s": statistics.median(tick_s),
                  "max_s": max(tick_s), "median_steps": statistics.median([k for _, k in ticks]),
                  "updates_per_s_compute_bound": 1.0 / max(RUN_EVERY_S, max(tick_s))},
        "mds_frame_ms": frame, "mds_frame_step0_ms": frame0, "mds_classical_ms": classical,
        "mds_points": int(p.q.shape[0] + 2),
        "history_mb": run.history_bytes() / 1e6,
        "summary": run.summary(),
        "peak_rss_mb": _peak_rss_mb(), "rss_before_mb": rss0, "gpu_peak_mb": _gpu_peak_mb(dev),
    }


def _median_ms(fn, reps: int) -> float:
    fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return 1e3 * statistics.median(times)


def part_methods(args) -> dict:
    """Table 1's six methods in lockstep, as the dashboard's comparison runs them."""
    from engine.baselines import DEFAULT_METHODS
    from engine.compare import Comparison

    dev = args.device
    name, cfg = _preset(args.quick)
    Comparison(cfg.replace(n=2000, n_test=1000, T=4), DEFAULT_METHODS, device=dev).run_all()
    rss0 = _rss_mb()
    _sync(dev)
    t0 = time.perf_counter()
    cmp_ = Comparison(cfg, DEFAULT_METHODS, device=dev)
    _sync(dev)
    setup = time.perf_counter() - t0
    per = {m: 0.0 for m in cmp_.runs}
    cpu0 = time.process_time()
    while not cmp_.done:
        for m, r in cmp_.runs.items():
            if not r.done:
                t = time.perf_counter()
                r.step()
                _sync(dev)
                per[m] += time.perf_counter() - t
    total = time.perf_counter() - t0
    hist = sum(r.history_bytes() for r in cmp_.runs.values() if hasattr(r, "history_bytes"))
    return {"preset": name, "T": cfg.T, "total_s": total, "setup_s": setup,
            "cpu_s": time.process_time() - cpu0, "per_method_s": per,
            "per_step_ms": 1e3 * (total - setup) / cfg.T,
            "summary": cmp_.summary(), "history_mb": hist / 1e6,
            "peak_rss_mb": _peak_rss_mb(), "rss_before_mb": rss0, "gpu_peak_mb": _gpu_peak_mb(dev)}


def part_flops(args) -> dict:
    """Matrix-product FLOPs of the network run and of the six-method run (counting pass)."""
    from bench.flops import count_run_flops
    from engine.baselines import DEFAULT_METHODS
    from engine.compare import Comparison
    from engine.run import Run, build_world

    dev = args.device
    _, cfg = _preset(args.quick)
    net = count_run_flops(lambda: {"network": Run(build_world(cfg, dev), "network", embed=True)},
                          cfg.T)
    # MDS Gram products run in numpy: 2·N·F² per frame (N = 2m+2 points, F = D coordinates)
    n_pts, feats = 2 * cfg.m + 2, cfg.D
    net["mds_numpy"] = (cfg.T + 1) * 2 * n_pts * feats * feats
    six = count_run_flops(lambda: Comparison(cfg, DEFAULT_METHODS, device=dev).runs, cfg.T)
    return {"network": net, "methods": six}


def part_reference(args) -> dict:
    """The plain reference: d-space, autograd, whole train and test sets after every step."""
    from bench.reference import train_reference

    dev = args.device
    name, cfg = _preset(args.quick)
    steps = args.reference_steps or cfg.T
    rss0 = _rss_mb()
    times = []
    last = [time.perf_counter()]

    def on_step(row):
        _sync(dev)
        now = time.perf_counter()
        times.append(now - last[0])
        last[0] = now

    t0 = time.perf_counter()
    res = train_reference(cfg, steps=steps, device=dev, on_step=on_step)
    total = time.perf_counter() - t0
    step_times = times[1:]  # times[0]: data, init and the step-0 evaluation
    out = {"preset": name, "T": cfg.T, "steps_run": steps, "total_s": total,
           "setup_s": times[0], "step_s": {"step1": step_times[0], "step2": step_times[1],
                                           "median_later": statistics.median(step_times[2:])},
           "final": res.steps[-1], "peak_rss_mb": _peak_rss_mb(), "rss_before_mb": rss0,
           "gpu_peak_mb": _gpu_peak_mb(dev), "extrapolated": steps < cfg.T}
    if steps < cfg.T:  # steps 1–2 as measured, the remaining later steps at the median
        out["total_s"] = times[0] + step_times[0] + step_times[1] + \
            (cfg.T - 2) * statistics.median(step_times[2:])
    return out


PARTS = {"matmul": part_matmul, "network": part_network, "methods": part_methods,
         "flops": part_flops, "reference": part_reference}


# ----------------------------------------------------------------------------------- driver

def _machine(device: str) -> dict:
    info = {"python": platform.python_version(), "torch": torch.__version__,
            "threads": torch.get_num_threads(), "cpu_count": os.cpu_count(),
            "platform": platform.platform()}
    try:
        with open("/proc/cpuinfo") as f:
            models = [ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")]
        info["cpu"] = models[0] if models else platform.processor()
    except OSError:
        info["cpu"] = platform.processor()
    if device.startswith("cuda"):
        props = torch.cuda.get_device_properties(0)
        info["gpu"] = props.name
        info["gpu_memory_gb"] = props.total_memory / 2**30
    return info


def _load() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def _run_part(name: str, args) -> dict:
    if args.in_process:
        return PARTS[name](args)
    cmd = [sys.executable, "-m", "bench.run", "--part", name, "--device", args.device]
    if args.quick:
        cmd.append("--quick")
    if args.threads:
        cmd += ["--threads", str(args.threads)]
    if args.reference_steps:
        cmd += ["--reference-steps", str(args.reference_steps)]
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"bench part {name} failed:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _fmt(x, unit="", nd=2):
    if x is None:
        return "—"
    return f"{x:.{nd}f}{unit}"


def summarise(res: dict) -> dict:
    """Ratios to the two yardsticks and the issue's targets."""
    out = {}
    peak = res["matmul"]["peak_gflops"] * 1e9
    net, six = res.get("network"), res.get("methods")
    fl = res.get("flops")
    if fl and net:
        flops = fl["network"]["total"] + fl["network"]["mds_numpy"]
        out["network_lower_bound_s"] = flops / peak
        out["network_vs_lower_bound"] = net["total_s"] / out["network_lower_bound_s"]
    if fl and six:
        out["methods_lower_bound_s"] = fl["methods"]["total"] / peak
        out["methods_vs_lower_bound"] = six["total_s"] / out["methods_lower_bound_s"]
    ref = res.get("reference")
    if ref and net:
        out["reference_vs_network"] = ref["total_s"] / net["total_s"]
    gpu = res["device"].startswith("cuda")
    targets = {}
    if ref and net:
        targets["network >= 20x faster than reference"] = out["reference_vs_network"] >= 20
    if six:
        limit = 2.0 if gpu else 30.0
        targets[f"six methods <= {limit:g} s"] = six["total_s"] <= limit
    if net:
        targets["MDS frame <= 10 ms"] = net["mds_frame_ms"] <= 10
        targets["history <= 200 MB"] = net["history_mb"] <= 200
        targets["first snapshot <= 1 s"] = net["first_snapshot_s"] <= 1.0
        targets[">= 4 updates/s (compute)"] = net["ticks"]["updates_per_s_compute_bound"] >= 4
    out["targets"] = targets
    return out


def print_table(res: dict) -> None:
    s = res["summary"]
    net, six, ref = res.get("network"), res.get("methods"), res.get("reference")
    m = res["machine"]
    print(f"\nfeature-emergence engine benchmark — {res['preset']} on {res['device']}"
          f" ({m.get('gpu') or m.get('cpu')}, {m['threads']} threads, torch {m['torch']})")
    print(f"load average at start/end: {res['load_start']} / {res['load_end']}")
    print(f"matmul peak {res['matmul']['peak_gflops']:.0f} GFLOP/s (fp32)")
    rows = []
    if net:
        st = net["step_s"]
        rows += [
            ("network + per-step probes + MDS: total", _fmt(net["total_s"], " s")),
            ("  per step (median, t>2)", _fmt(1e3 * st["median_later"], " ms")),
            ("  step 1 / step 2 (full batch)",
             f"{1e3 * st['step1']:.0f} / {1e3 * st['step2']:.0f} ms"),
            ("  split: train / probes / MDS",
             " / ".join(_fmt(v, " s") for v in net["breakdown_s"].values())),
            ("  first snapshot after a change", _fmt(net["first_snapshot_s"], " s")),
            ("  dashboard tick (≤150 ms budget): median / max",
             f"{1e3 * net['ticks']['median_s']:.0f} / {1e3 * net['ticks']['max_s']:.0f} ms"),
            ("  MDS frame (602 pts) / step-0 frame",
             f"{net['mds_frame_ms']:.2f} / {net['mds_frame_step0_ms']:.1f} ms"),
            ("  history", _fmt(net["history_mb"], " MB", 1)),
            ("  peak RSS", _fmt(net["peak_rss_mb"], " MB", 0)),
            ("  test acc / cos", f"{net['summary']['test_acc']:.4f} / {net['summary']['cos']:.4f}"),
        ]
        if "network_vs_lower_bound" in s:
            rows.append(("  × arithmetic lower bound",
                         f"{s['network_vs_lower_bound']:.1f}× "
                         f"(bound {s['network_lower_bound_s']:.2f} s)"))
    if ref:
        rows += [("reference (d-space, autograd, full probes)" +
                  (" [extrapolated]" if ref["extrapolated"] else ""), _fmt(ref["total_s"], " s")),
                 ("  per step (median, t>2)", _fmt(1e3 * ref["step_s"]["median_later"], " ms"))]
        if "reference_vs_network" in s:
            rows.append(("  reference / network", f"{s['reference_vs_network']:.1f}×"))
    if six:
        rows += [("six methods (Comparison): total", _fmt(six["total_s"], " s")),
                 ("  setup / per lockstep step", f"{six['setup_s']:.2f} s / "
                  f"{six['per_step_ms']:.1f} ms"),
                 ("  per method", ", ".join(f"{k} {v:.1f}" for k, v in
                                            six["per_method_s"].items()) + " s"),
                 ("  test acc", ", ".join(f"{k} {v['test_acc']:.3f}" for k, v in
                                          six["summary"].items())),
                 ("  peak RSS", _fmt(six["peak_rss_mb"], " MB", 0))]
        if "methods_vs_lower_bound" in s:
            rows.append(("  × arithmetic lower bound",
                         f"{s['methods_vs_lower_bound']:.1f}× "
                         f"(bound {s['methods_lower_bound_s']:.2f} s)"))
    width = max(len(r[0]) for r in rows) + 2
    for k, v in rows:
        print(f"{k:<{width}}{v}")
    print("targets: " + "; ".join(f"{k}: {'yes' if ok else 'NO'}"
                                  for k, ok in s["targets"].items()))


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="auto", help="cpu, cuda or auto (default)")
    ap.add_argument("--quick", action="store_true", help="quick-parity preset (smoke run)")
    ap.add_argument("--skip-reference", action="store_true", help="no plain reference run")
    ap.add_argument("--reference-steps", type=int, default=0,
                    help="run the reference for this many steps and extrapolate to T")
    ap.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (0: default)")
    ap.add_argument("--parts", default="matmul,network,methods,flops,reference",
                    help="comma-separated subset of " + ",".join(PARTS))
    ap.add_argument("--out", default=str(RESULTS), help="folder for the JSON result")
    ap.add_argument("--in-process", action="store_true", help="no subprocess per part")
    ap.add_argument("--part", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.device == "auto":
        args.device = "cuda" if torch.cuda.is_available() else "cpu"
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.part:  # child process: one part, JSON on the last line of stdout
        print(json.dumps(PARTS[args.part](args)))
        return {}
    parts = [p for p in args.parts.split(",") if p]
    if args.skip_reference and "reference" in parts:
        parts.remove("reference")
    if "matmul" not in parts:
        parts.insert(0, "matmul")
    res = {"device": args.device, "preset": _preset(args.quick)[0], "quick": args.quick,
           "date": _dt.datetime.now().isoformat(timespec="seconds"),
           "machine": _machine(args.device), "load_start": _load()}
    for name in parts:
        t = time.perf_counter()
        print(f"[bench] {name} …", file=sys.stderr, flush=True)
        res[name] = _run_part(name, args)
        print(f"[bench] {name} done in {time.perf_counter() - t:.1f} s", file=sys.stderr,
              flush=True)
    res["load_end"] = _load()
    res["summary"] = summarise(res)
    print_table(res)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tag = "quick-" if args.quick else ""
    path = out / f"{args.device}-{tag}{_dt.date.today().isoformat()}.json"
    path.write_text(json.dumps(res, indent=1, default=float) + "\n")
    print(f"written {path}")
    return res


if __name__ == "__main__":
    main()
