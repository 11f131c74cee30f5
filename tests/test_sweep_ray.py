"""A real local Ray cluster (2 CPUs) runs a tiny grid and gets the local executor's numbers."""

from __future__ import annotations

import ray

from engine.sweep import SweepSpec, load, run_sweep

TINY = {"n": 600, "n_test": 200, "d": 40, "D": 20, "m": 8, "T": 6, "batch": 100}
COLS = ("train_acc", "test_acc", "cos", "steps_95", "steps_99")


def numbers(path) -> dict:
    _, _, rows = load(path)
    return {(r["k"], r["seed"], r["method"]): tuple(r[c] for c in COLS) for r in rows}


def test_ray_executor_matches_local(tmp_path):
    spec = SweepSpec("quick-parity", TINY, (("k", (1, 3)),), (), 2, 0, ("network", "ntk", "rf"))
    local = run_sweep(spec, str(tmp_path / "local"), batch=False)
    # address="local": a new cluster even where a stale /tmp/ray/ray_current_cluster names one
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        assert ray.cluster_resources()["CPU"] == 2
        remote = run_sweep(spec, str(tmp_path / "ray"), batch=False, executor_name="ray")
    finally:
        ray.shutdown()
    assert local["written"] == remote["written"] == 12
    want, got = numbers(tmp_path / "local"), numbers(tmp_path / "ray")
    assert len(want) == 12 and got == want  # same seeds, bitwise the same numbers
    assert len({v[1] for v in want.values()}) > 2  # the numbers differ between cells
