"""`python -m bench.azl_time`: the guard's time estimate of Explore's AZL run against its CPU time.

Explore plays the AZL world's ExploreRun: the 3-layer ResNet with the FC, 2-layer, NTK and
last-layer nets beside it on the same batches, every one probed every step. For each width m
the run is built as the page builds it, warmed up for WARM steps, then STEPS steps are timed
(CPU seconds of this process, one torch thread). Printed per width: the measured seconds per
step, the guard's (its whole-run estimate over T) and their ratio; the guard's documented
bound is a factor of 4 either way (docs/hosting.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time

WARM, STEPS = 3, 12
WIDTHS = (300, 1000, 2000)


def measure(m: int, steps: int = STEPS, batch: int | None = None) -> dict:
    """CPU seconds per Explore step of azl-resnet at width m, and the guard's estimate."""
    import torch

    from engine import guard
    from engine.presets import preset_config
    from engine.procedures import procedure_of
    from engine.worlds import build_world

    torch.set_num_threads(1)
    cfg = dataclasses.replace(preset_config("azl-resnet"), m=m, T=3000)
    if batch is not None:
        cfg = dataclasses.replace(cfg, batch=batch)
    run = procedure_of(cfg).explore_run(build_world(cfg))
    for _ in range(WARM):
        run.step()
    c0 = time.process_time()
    for _ in range(steps):
        run.step()
    per_step = (time.process_time() - c0) / steps
    est = guard.estimate(cfg, ("network",), embed=True).seconds / cfg.T
    return {"m": m, "batch": cfg.batch, "measured_s_per_step": per_step,
            "estimate_s_per_step": est, "estimate_over_measured": est / per_step,
            "T3000_measured_s": per_step * 3000, "T3000_estimate_s": est * 3000}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--widths", default=",".join(map(str, WIDTHS)))
    ap.add_argument("--steps", type=int, default=STEPS)
    args = ap.parse_args(argv)
    for m in map(int, args.widths.split(",")):
        print(json.dumps({k: round(v, 4) if isinstance(v, float) else v
                          for k, v in measure(m, args.steps).items()}), flush=True)


if __name__ == "__main__":
    main()
