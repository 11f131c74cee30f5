"""The hall, simulated: `python -m bench.hall [--runs 6] [--T 200]`.

Starts a Ray cluster on this machine (ray.cluster_utils.Cluster) of 1, then 3 nodes of one CPU
each, points the hub at it (FEX_RAY_ADDRESS) and computes --runs distinct small runs at once;
prints, per cluster size, the wall time until all are done, the frames the hub routed per
second and the hub's memory per run. On one machine the nodes share its cores: what a node
adds here is bounded by them (the figure for a real hall is computed from these, not measured).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

from engine.config import Config

SMALL = Config(n=1000, n_test=500, T=200, m=20, batch=100)


def measure(nodes: int, runs: int, T: int) -> dict:
    """One cluster of `nodes` one-CPU nodes: `runs` runs at once through the hub."""
    import ray
    from ray.cluster_utils import Cluster

    from engine.hub import make_hub

    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    for _ in range(nodes - 1):
        c.add_node(num_cpus=1)
    c.wait_for_nodes()
    os.environ["FEX_RAY_ADDRESS"] = c.address
    hub = make_hub()
    try:
        hub.start()
        t0 = time.perf_counter()
        keys = [hub.subscribe(SMALL.replace(seed=s, T=T), f"b{s}", want=T + 1)
                for s in range(runs)]
        while not all(hub.status(k)["state"] in ("done", "failed") for k in keys):
            time.sleep(0.05)
        wall = time.perf_counter() - t0
        m = hub.metrics()
        failed = sum(hub.status(k)["state"] == "failed" for k in keys)
    finally:
        hub.close()
        ray.shutdown()
        c.shutdown()
    return {"nodes": nodes, "runs": runs, "T": T, "wall_s": wall, "failed": failed,
            "frames_per_s": runs * (T + 1) / wall, "hub_memory_mb": m["memory_mb"],
            "memory_per_run_mb": m["memory_mb"] / runs}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=6)
    ap.add_argument("--T", type=int, default=200)
    args = ap.parse_args(argv)
    os.environ.setdefault("RAY_TMPDIR", tempfile.mkdtemp(prefix="fexhall-", dir="/tmp"))
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    out = {"load_before": os.getloadavg()[0],
           "results": [measure(n, args.runs, args.T) for n in (1, 3)]}
    out["load_after"] = os.getloadavg()[0]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
