"""Re-derive the paper schedule's one calibrated constant, ν⁽¹⁾, and its out-of-sample predictions.

ν⁽¹⁾ weighs the kept start against the gradient at step 1: w⁽¹⁾ = η⁽¹⁾(ν⁽¹⁾w⁽⁰⁾ − ∇L). It is chosen
by bisection so that One Step's max cosine on Table 1 (paper-parity, seed 0) is the paper's 0.848;
then every other Table preset runs with it and prints its One Step cosine beside the paper's.

    .venv/bin/python -m scripts.calibrate_nu1            # about 2 minutes on one core
    .venv/bin/python -m scripts.calibrate_nu1 --nu1 0.0817 --skip-fit   # predictions only
"""

from __future__ import annotations

import argparse
import math

import torch

from engine.compare import Comparison
from engine.presets import get, preset_config

TARGET = "paper-parity"
OTHERS = ("paper-interval", "paper-parity-d100", "paper-parity-d2000", "paper-parity-ratio0.8",
          "paper-parity-ratio0.9", "paper-parity-n25000", "paper-parity-n10000")


def one_step_cos(preset: str, nu1: float) -> float:
    """Max cosine of One Step's frozen layer (the network after step 1) for a preset."""
    comp = Comparison(preset_config(preset).replace(T=2, nu1=nu1), methods=("one_step",),
                      device="cpu")
    comp.run_all()
    return comp.summary()["one_step"]["cos"]


def fit(target: float, lo: float = -6.0, hi: float = 4.0, rounds: int = 14) -> float:
    """Bisection on log10 ν⁽¹⁾: a larger ν⁽¹⁾ keeps more of the start, so the cosine falls."""
    for _ in range(rounds):
        mid = (lo + hi) / 2
        cos = one_step_cos(TARGET, 10**mid)
        print(f"  ν⁽¹⁾ = {10**mid:.5g}: One Step cos {cos:.4f}", flush=True)
        lo, hi = (mid, hi) if cos > target else (lo, mid)
    return 10 ** ((lo + hi) / 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nu1", type=float, default=None, help="start from this value")
    parser.add_argument("--skip-fit", action="store_true", help="only print the predictions")
    args = parser.parse_args()
    torch.set_num_threads(1)
    target = get(TARGET).paper["one_step"]["cos"]
    nu1 = args.nu1 if args.skip_fit and args.nu1 is not None else fit(target)
    print(f"ν⁽¹⁾ = {nu1:.4g} (Table 1 target {target})")
    print(f"{'preset':24s} {'ours':>7s} {'paper':>7s} {'diff':>7s}")
    for name in (TARGET, *OTHERS):
        ours, paper = one_step_cos(name, nu1), get(name).paper["one_step"]["cos"]
        print(f"{name:24s} {ours:7.3f} {paper:7.3f} {ours - paper:+7.3f}", flush=True)
    assert math.isfinite(nu1)


if __name__ == "__main__":
    main()
