"""The sweep preset "test error vs N": resnet3 against two_layer at a fixed budget of SGD steps,
so that only the number of samples changes (the source's claim is about N, [L241])."""

from __future__ import annotations

import statistics

from ..errors import ConfigError
from .compare import AZLComparison
from .config import AZLConfig

SWEEP_N = (1000, 2000, 3000, 5000)
SWEEP_METHODS = ("resnet3", "two_layer")


def budget_config(base: AZLConfig, n: int, steps: int) -> AZLConfig:
    """base at n samples with about `steps` SGD steps (whole epochs; the drop at half)."""
    per_epoch = -(-n // base.batch)
    epochs = max(2, round(steps / per_epoch))
    return base.replace(n=n, epochs=epochs, drop_epoch=epochs // 2)


def error_vs_n(base: AZLConfig, ns=SWEEP_N, seeds=(0, 1, 2), methods=SWEEP_METHODS,
               steps: int | None = None) -> list[dict]:
    """One row per (N, method): test error and c_G, mean and per seed, and the steps taken."""
    if not ns or any(not isinstance(n, int) or n < base.batch for n in ns):
        raise ConfigError("N", ",".join(map(str, ns)), f"integers ≥ batch = {base.batch}")
    budget = steps or base.T
    rows = []
    for n in ns:
        cfg = budget_config(base, n, budget)
        per_seed = []
        for seed in seeds:
            comp = AZLComparison(cfg.replace(seed=seed), methods)
            comp.run_all()
            per_seed.append(comp.summary())
        for m in methods:
            errs = [s[m]["test_err"] for s in per_seed]
            c_g = [s[m]["c_G"] for s in per_seed]
            rows.append({"N": n, "method": m, "steps": cfg.T, "epochs": cfg.epochs,
                         "test_err": statistics.fmean(errs), "test_err_per_seed": errs,
                         "c_G": statistics.fmean(c_g), "c_G_per_seed": c_g})
    return rows
