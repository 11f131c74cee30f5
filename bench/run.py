"""The engine benchmark (issue 6): one command, a table on stdout, a JSON file in bench/results/.

    python -m bench                   # paper-parity preset on the best device, everything
    python -m bench --quick           # the small quick-parity preset (smoke run, 20 reference
                                      # steps extrapolated)
    python -m bench --skip-reference  # without the plain reference (saves minutes on a CPU)
    python -m bench --device cuda     # on a GPU
    python -m bench --threads 1 --set T=100   # one torch thread, a setting overridden

Every part runs in its own Python process so that its peak memory is its own (bench/parts.py):
  matmul     the machine's fp32 matmul rate on the run's shapes (for the lower bound)
  network    the network alone with every per-step probe and an MDS frame per step: time to
             the first snapshot, seconds per step and in total, simulated dashboard ticks,
             the MDS frame time, the history's size; matmul FLOPs counted on the way
  methods    the six methods of Table 1 in lockstep (engine.compare.Comparison, no MDS)
  reference  the plain d-space autograd implementation (bench/reference.py), full probes
Ratios: engine time / arithmetic lower bound (the run's matmul FLOPs at the peak measured
rate), and reference time / engine time for the network with per-step probes.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import torch

from bench.parts import PARTS, config, machine

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results"


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
    if args.preset:
        cmd += ["--preset", args.preset]
    for pair in args.set or []:
        cmd += ["--set", pair]
    if args.threads:
        cmd += ["--threads", str(args.threads)]
    if args.reference_steps:
        cmd += ["--reference-steps", str(args.reference_steps)]
    if args.probe_samples:
        cmd += ["--probe-samples", str(args.probe_samples)]
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
    net, six, ref = res.get("network"), res.get("methods"), res.get("reference")
    if net:
        flops = net["flops"]["total"] + net["flops"]["mds_numpy"]
        out["network_lower_bound_s"] = flops / peak
        out["network_vs_lower_bound"] = net["total_s"] / out["network_lower_bound_s"]
    if six:
        out["methods_lower_bound_s"] = six["flops"]["total"] / peak
        out["methods_vs_lower_bound"] = six["total_s"] / out["methods_lower_bound_s"]
    if ref and net:
        out["reference_vs_network"] = ref["total_s"] / net["total_s"]
        out["reference_vs_network_cpu"] = ref["cpu_s"] / net["cpu_s"]
    gpu = res["device"].startswith("cuda")
    targets = {}
    if ref and net:
        targets["network >= 20x faster than reference"] = out["reference_vs_network"] >= 20
        targets["same in CPU seconds"] = out["reference_vs_network_cpu"] >= 20
    if six:
        limit = 2.0 if gpu else 30.0
        targets[f"six methods <= {limit:g} s"] = six["total_s"] <= limit
        if not gpu:
            targets[f"six methods <= {limit:g} CPU s"] = six["cpu_s"] <= limit
    if net:
        targets["MDS frame <= 10 ms"] = net["mds_frame_ms"] <= 10
        targets["history <= 200 MB"] = net["history_mb"] <= 200
        targets["first snapshot <= 1 s"] = net["first_snapshot_s"] <= 1.0
        targets[">= 4 updates/s (compute)"] = net["ticks"]["updates_per_s_compute_bound"] >= 4
    out["targets"] = targets
    return out


def _network_rows(net: dict, s: dict) -> list[tuple[str, str]]:
    st = net["step_s"]
    rows = [
        ("network + per-step probes + MDS: total wall / CPU",
         f"{net['total_s']:.2f} s / {net['cpu_s']:.2f} s"),
        ("  per step (median, t>2)", _fmt(1e3 * st["median_later"], " ms")),
        ("  step 1 / step 2 (full batch)", f"{1e3 * st['step1']:.0f} / {1e3 * st['step2']:.0f} ms"),
        ("  split: train / probes / MDS",
         " / ".join(_fmt(v, " s") for v in net["breakdown_s"].values())),
        ("  first snapshot after a change", _fmt(net["first_snapshot_s"], " s")),
        ("  dashboard tick (≤150 ms budget): median / max",
         f"{1e3 * net['ticks']['median_s']:.0f} / {1e3 * net['ticks']['max_s']:.0f} ms"),
        (f"  MDS frame ({net['mds_points']} pts) / step-0 frame",
         f"{net['mds_frame_ms']:.2f} / {net['mds_frame_step0_ms']:.1f} ms"),
        ("  history", _fmt(net["history_mb"], " MB", 1)),
        ("  peak RSS", _fmt(net["peak_rss_mb"], " MB", 0)),
        ("  test acc / cos", f"{net['summary']['test_acc']:.4f} / {net['summary']['cos']:.4f}"),
    ]
    if "network_vs_lower_bound" in s:
        rows.append(("  × arithmetic lower bound", f"{s['network_vs_lower_bound']:.1f}× "
                     f"(bound {s['network_lower_bound_s']:.2f} s)"))
    return rows


def _reference_rows(ref: dict, s: dict) -> list[tuple[str, str]]:
    tag = f" [{ref['steps_run']} steps, extrapolated]" if ref["extrapolated"] else ""
    rows = [("reference (d-space, autograd, full probes)" + tag,
             f"{ref['total_s']:.2f} s / {ref['cpu_s']:.2f} s CPU"),
            ("  per step (median, t>2)", _fmt(1e3 * ref["step_s"]["median_later"], " ms"))]
    if "reference_vs_network" in s:
        rows.append(("  reference / network: wall / CPU",
                     f"{s['reference_vs_network']:.1f}× / {s['reference_vs_network_cpu']:.1f}×"))
    return rows


def _methods_rows(six: dict, s: dict) -> list[tuple[str, str]]:
    rows = [("six methods (Comparison): total wall / CPU",
             f"{six['total_s']:.2f} s / {six['cpu_s']:.2f} s"),
            ("  setup / per lockstep step",
             f"{six['setup_s']:.2f} s / {six['per_step_ms']:.1f} ms"),
            ("  per method", ", ".join(f"{k} {v:.1f}" for k, v in
                                       six["per_method_s"].items()) + " s"),
            ("  test acc", ", ".join(f"{k} {v['test_acc']:.3f}" for k, v in
                                     six["summary"].items())),
            ("  history / peak RSS", f"{six['history_mb']:.1f} MB / {six['peak_rss_mb']:.0f} MB")]
    if "methods_vs_lower_bound" in s:
        rows.append(("  × arithmetic lower bound", f"{s['methods_vs_lower_bound']:.1f}× "
                     f"(bound {s['methods_lower_bound_s']:.2f} s)"))
    return rows


def print_table(res: dict) -> None:
    """The human-readable summary of a result dict."""
    s, m = res["summary"], res["machine"]
    print(f"\nfeature-emergence engine benchmark — {res['preset']} (T={res['T']}) on "
          f"{res['device']} ({m.get('gpu') or m.get('cpu')}, {m['threads']} threads, "
          f"torch {m['torch']})")
    print(f"load average (1/5/15 min) at start / end: {res['load_start']} / {res['load_end']}")
    print(f"matmul peak {res['matmul']['peak_gflops']:.1f} GFLOP/s (fp32)")
    rows = []
    for key, fn in (("network", _network_rows), ("reference", _reference_rows),
                    ("methods", _methods_rows)):
        if res.get(key):
            rows += fn(res[key], s)
    width = max((len(r[0]) for r in rows), default=0) + 2
    for k, v in rows:
        print(f"{k:<{width}}{v}")
    print("targets: " + "; ".join(f"{k}: {'yes' if ok else 'NO'}"
                                  for k, ok in s["targets"].items()))


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="auto", help="cpu, cuda or auto (default)")
    ap.add_argument("--quick", action="store_true", help="quick-parity preset (smoke run)")
    ap.add_argument("--preset", default="", help="another preset (default paper-parity)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a setting of the preset (repeatable)")
    ap.add_argument("--skip-reference", action="store_true", help="no plain reference run")
    ap.add_argument("--reference-steps", type=int, default=0,
                    help="run the reference for this many steps and extrapolate to T")
    ap.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (0: default)")
    ap.add_argument("--probe-samples", type=int, default=0,
                    help="experiment: per-step probe sample size (engine.evaluate.PROBE_SAMPLES)")
    ap.add_argument("--parts", default="matmul,network,methods,reference",
                    help="comma-separated subset of " + ",".join(PARTS))
    ap.add_argument("--out", default=str(RESULTS), help="folder for the JSON result")
    ap.add_argument("--in-process", action="store_true", help="no subprocess per part")
    ap.add_argument("--part", help=argparse.SUPPRESS)
    return ap


def _args(argv):
    ap = _parser()
    args = ap.parse_args(argv)
    if args.device == "auto":
        args.device = "cuda" if torch.cuda.is_available() else "cpu"
    if args.device.startswith("cuda"):
        index = int(args.device.partition(":")[2] or 0)
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if index >= count:
            ap.error(f"--device {args.device}: {count} CUDA device(s) here; use cpu or auto")
    unknown = [p for p in args.parts.split(",") if p and p not in PARTS]
    if unknown:
        ap.error(f"--parts {','.join(unknown)}: choose from {','.join(PARTS)}")
    if args.probe_samples < 0 or args.threads < 0 or args.reference_steps < 0:
        ap.error("--probe-samples, --threads and --reference-steps take integers ≥ 0")
    if args.quick and not args.reference_steps:
        args.reference_steps = 20  # a smoke run: the reference's later steps all cost the same
    if args.threads:
        torch.set_num_threads(args.threads)
    return args


def main(argv=None) -> dict:
    """Run the parts, print the table, write the JSON; returns the result dict."""
    args = _args(argv)
    if args.part:  # child process: one part, JSON on the last line of stdout
        print(json.dumps(PARTS[args.part](args)))
        return {}
    parts = [p for p in args.parts.split(",") if p and not (p == "reference"
                                                             and args.skip_reference)]
    if "matmul" not in parts:
        parts.insert(0, "matmul")
    name, cfg = config(args)
    now = _dt.datetime.now().astimezone()
    import engine.evaluate

    res = {"device": args.device, "preset": name, "quick": args.quick, "settings": args.set,
           "probe_samples": args.probe_samples or engine.evaluate.PROBE_SAMPLES,
           "T": cfg.T, "date": now.isoformat(timespec="seconds"), "machine": machine(args.device),
           "load_start": _load()}
    for part in parts:
        t, load = time.perf_counter(), _load()
        print(f"[bench] {part} …", file=sys.stderr, flush=True)
        res[part] = _run_part(part, args)
        res[part]["load_before"], res[part]["load_after"] = load, _load()
        print(f"[bench] {part} done in {time.perf_counter() - t:.1f} s", file=sys.stderr,
              flush=True)
    res["load_end"] = _load()
    res["summary"] = summarise(res)
    print_table(res)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    custom = args.set or args.preset or args.probe_samples
    tag = "quick-" if args.quick else ("custom-" if custom else "")
    path = out / f"{args.device}-{tag}{now.strftime('%Y-%m-%dT%H%M')}.json"
    path.write_text(json.dumps(res, indent=1, default=float) + "\n")
    res["path"] = str(path)
    print(f"written {path}")
    return res


if __name__ == "__main__":
    main()
