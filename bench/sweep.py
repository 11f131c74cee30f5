"""Batched seeds vs one seed: `python -m bench.sweep` prints the ratios from one run.

Times (one torch thread, this process; after a warm-up unit) one sweep unit of a setting with 1
seed (median of three), with 5 seeds one after another (the engine's unbatched path) and with 5
seeds batched (engine/sweep/batched.py), and prints 5-seed / 1-seed ratios; --profile adds the
seconds per seed spent inside torch kernels (a floor no batching on one thread goes under).
Issue 15's target: 5 seeds ≤ 2.5 × one seed.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import time

import torch

from engine.sweep import SweepSpec
from engine.sweep.runner import code_version, run_unit


def unit(spec: SweepSpec, seeds: list[int], batch: bool) -> dict:
    """A sweep unit of the spec's single setting."""
    return {"spec": spec.to_dict(), "setting": spec.settings()[0], "seeds": seeds,
            "methods": list(spec.methods), "version": code_version(), "batch": batch}


def timed(u: dict) -> tuple[float, list[dict]]:
    """Seconds and rows of one unit."""
    t0, c0 = time.perf_counter(), time.process_time()
    rows = run_unit(u)
    CPU_S.append(time.process_time() - c0)
    return time.perf_counter() - t0, rows


def kernel_seconds(u: dict) -> float:
    """Seconds spent inside torch's own functions and tensor methods while running unit u."""
    prof = cProfile.Profile()
    prof.runcall(run_unit, u)
    stats = pstats.Stats(prof).stats  # {(file, line, name): (cc, nc, tottime, cumtime, callers)}
    return sum(v[2] for (f, _, name), v in stats.items()
               if f == "~" and ("torch" in name or "TensorBase" in name))


CPU_S: list[float] = []  # CPU seconds of each timed unit, in order (robust to a busy machine)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--preset", default="quick-parity")
    p.add_argument("--k", type=int, default=5)
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--methods", default="network,rf,one_step,two_step")
    p.add_argument("--json", help="write the measurements here")
    p.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    p.add_argument("--device", default="cpu", help="cpu (default) or cuda: where the runs train")
    p.add_argument("--profile", action="store_true",
                   help="also profile one batched unit: seconds inside torch kernels per seed")
    return p


def measure(spec: SweepSpec, n_seeds: int) -> dict:
    """One seed (median of three), the seeds one by one, the seeds batched; wall and CPU s."""
    seeds = list(range(n_seeds))
    run_unit(unit(spec, [0], False))  # warm-up: first kernel calls and lazy set-up
    ones = sorted(timed(unit(spec, [0], False))[0] for _ in range(3))
    one = ones[1]  # the median of three
    CPU_S[:3] = [sorted(CPU_S[:3])[1]]
    many, ref = timed(unit(spec, seeds, False))
    batched, rows = timed(unit(spec, seeds, True))
    want = {(r["seed"], r["method"]): r["test_acc"] for r in ref}
    worst = max(abs(r["test_acc"] - want[(r["seed"], r["method"])]) for r in rows)
    return {"one_seed_s": one, "one_seed_runs_s": ones, "seeds_unbatched_s": many,
            "seeds_batched_s": batched,
            "ratio_unbatched": many / one, "ratio_batched": batched / one,
            "batched_rows": sum(r["batched"] for r in rows), "max_test_acc_diff": worst,
            "load_average": os.getloadavg()[0], "cpu_s": list(CPU_S),
            "cpu_ratio_unbatched": CPU_S[1] / CPU_S[0], "cpu_ratio_batched": CPU_S[2] / CPU_S[0]}


def report(args, out: dict) -> None:
    """Print the measurements in words."""
    one, many, batched = out["one_seed_s"], out["seeds_unbatched_s"], out["seeds_batched_s"]
    print(f"{args.preset} k={args.k} methods={args.methods} ({args.threads} torch thread(s), load "
          f"{out['load_average']:.1f})")
    runs = ", ".join(f"{x:.2f}" for x in out["one_seed_runs_s"])
    print(f"1 seed: {one:.2f} s (median of {runs}); {args.seeds} seeds one by one: {many:.1f} s "
          f"({many / one:.2f}×); {args.seeds} seeds batched: {batched:.1f} s "
          f"({batched / one:.2f}×); target ≤ 2.5×; batched vs unbatched test accuracy "
          f"max |Δ| = {out['max_test_acc_diff']:.2g}")
    cpu = out["cpu_s"]
    print(f"CPU seconds (this process): 1 seed {cpu[0]:.1f}; one by one {cpu[1]:.1f} "
          f"({out['cpu_ratio_unbatched']:.2f}×); batched {cpu[2]:.1f} "
          f"({out['cpu_ratio_batched']:.2f}×)")


def main(argv=None) -> int:
    """Measure and print; --json writes the numbers too."""
    args = _parser().parse_args(argv)
    torch.set_num_threads(args.threads)
    spec = SweepSpec(args.preset, {}, (("k", (args.k,)),), (), 1, 0,
                     tuple(args.methods.split(",")), args.device)
    out = {"preset": args.preset, "k": args.k, "threads": args.threads, "device": args.device,
           "methods": spec.methods, "seeds": args.seeds, **measure(spec, args.seeds)}
    report(args, out)
    if args.profile:
        out["kernel_s_per_seed"] = kernel_seconds(unit(spec, list(range(args.seeds)), True)) \
            / args.seeds
        print(f"batched: {out['kernel_s_per_seed']:.2f} s per seed inside torch kernels, so "
              f"{args.seeds} seeds cost at least "
              f"{out['kernel_s_per_seed'] * args.seeds / out['one_seed_s']:.2f}"
              f"× one seed on this thread however little Python is left")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(out, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
