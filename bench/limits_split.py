"""Where a preset's limit time goes (issue 36): per method, the whole limit (bench.limits' figure),
the problem built before any solve (features, Gram, embedding) and, with --alone, the λ → 0
answer alone on a fresh problem, without the ridge path's points (the hard-margin NNLS, then
λ = 1e-8 cold where the sample is not separable; the minimum-norm fit in kernel form).

    python -m bench.limits_split --preset gfl-multi-index --alone
    python -m bench.limits_split --preset gfl-parity-blocks

The run on one torch thread, the limits on --limit-threads (default one); prints the figures,
writes nothing. --alone on gfl-parity-blocks' NTK takes about 15 s (its hard margin from a cold
start: the path is what makes it quick there)."""

from __future__ import annotations

import argparse
import time

import torch

from engine.compare import Comparison
from engine.limits import blas_held, hardmargin, kernelsq, limit_of, path, sources
from engine.limits.ops import Dense
from engine.limits.problem import Refusal
from engine.presets import preset_config
from engine.procedures import procedure_of
from engine.scenarios._common import torch_threads


def alone(prob) -> tuple[str, float]:
    """(what was solved, seconds) for the λ → 0 answer without the path points."""
    op, y, obj = prob.train, prob.y_train, prob.objective
    t0 = time.perf_counter()
    if obj.loss == "squared":
        if not (kernelsq.applies(op, obj) or isinstance(op, Dense)):
            return "no direct min-norm fit here", 0.0
        path._least_squares(prob, {})
        return ("min-norm in kernel form" if kernelsq.applies(op, obj) else "min-norm by gelsd",
                time.perf_counter() - t0)
    if not hardmargin.fits(op, obj):
        return "no hard-margin NNLS here", 0.0
    hard = hardmargin.solve(op, y)
    what = f"hard margin (separable: {hard and hard['separable']})"
    if hard is not None and not hard["separable"]:
        path.solve_at(prob, path.PATH[-1])
        what += f" + λ = {path.PATH[-1]:g} cold"
    return what, time.perf_counter() - t0


def measure(preset: str, seed: int, with_alone: bool, threads: int = 1) -> list[str]:
    """The lines for one preset: the run on one torch thread, the limits on `threads`."""
    cfg = preset_config(preset).replace(seed=seed)
    t0 = time.perf_counter()
    with torch_threads(1):
        comp = Comparison(cfg, procedure_of(cfg).defaults, device="cpu")
        comp.run_all()
    run_s = time.perf_counter() - t0
    lines, total, without = [], 0.0, 0.0
    for method, run in comp.runs.items():
        with torch_threads(threads):
            lim = limit_of(run)
        if lim is None or lim.get("refused"):
            continue
        with torch_threads(threads), blas_held(), torch.no_grad():
            t0 = time.perf_counter()
            prob = sources.problem_of(run)  # built again: limit_of's is not kept
            built = time.perf_counter() - t0
            if isinstance(prob, Refusal):
                continue
            what, secs = alone(prob) if with_alone else ("", 0.0)
        total, without = total + lim["seconds"], without + built + secs
        lines.append(f"  {method:<10} limit {lim['seconds']:.2f} s; problem {built:.2f} s"
                     + (f"; {what} {secs:.2f} s" if with_alone else ""))
    head = (f"{preset}: run {run_s:.2f} s, limits {total:.2f} s ({total / run_s:.2f})"
            + (f" on {threads} threads" if threads != 1 else ""))
    if with_alone:
        head += f", without the path points {without:.2f} s ({without / run_s:.2f})"
    return [head, *lines]


def main(argv=None) -> None:
    """Parse the options and print each preset's lines."""
    ap = argparse.ArgumentParser(prog="python -m bench.limits_split",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("--preset", action="append", required=True, help="a preset (repeatable)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--alone", action="store_true", help="also the λ → 0 answer without the path")
    ap.add_argument("--limit-threads", type=int, default=1,
                    help="torch threads for the limits (the run keeps one)")
    args = ap.parse_args(argv)
    for preset in args.preset:
        print("\n".join(measure(preset, args.seed, args.alone, args.limit_threads)), flush=True)


if __name__ == "__main__":
    main()
