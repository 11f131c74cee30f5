"""The hall, simulated (issue 37): the hub on a three-node Ray cluster on this machine
(ray.cluster_utils.Cluster, one CPU per node). Three runs live at once can only be on three
nodes; their frames equal a run in this process; a node removed mid-run fails only its run,
with a message, and that run starts again on a resubscribe. Slow (a Ray cluster's start):
`pytest -m slow tests/engine/test_hub_hall.py`."""

from __future__ import annotations

import tempfile

import pytest

from engine.hub import make_hub
from tests.engine.own_process import ray_inner_only, run_in_own_process
from tests.engine.test_hub import wait_for
from tests.engine.test_hub_frames import TINY, local_frames, numbers

pytestmark = pytest.mark.slow
LONG = TINY.replace(T=400)


@pytest.fixture
def cluster(monkeypatch):
    ray = pytest.importorskip("ray")
    from ray.cluster_utils import Cluster

    monkeypatch.setenv("RAY_TMPDIR", tempfile.mkdtemp(prefix="fexhall-", dir="/tmp"))
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    nodes = [c.add_node(num_cpus=1) for _ in range(2)]
    c.wait_for_nodes()
    monkeypatch.setenv("FEX_RAY_ADDRESS", c.address)
    yield c, nodes
    ray.shutdown()
    c.shutdown()


@ray_inner_only
def test_runs_spread_over_three_nodes_and_a_lost_node_fails_only_its_run(cluster):
    c, nodes = cluster
    hub = make_hub()
    try:
        hub.start()
        assert hub.metrics()["executor"] == "ray" and hub.pool.size == 3
        keys = [hub.subscribe(LONG.replace(seed=s), f"w{s}", want=LONG.T + 1) for s in (0, 1, 2)]
        # one CPU per node and per run: three runs live at once are on three nodes
        # waited on together: a run's frames can be counted before the hub marks it live (a
        # lone read of runs_live right after "n > 5" once saw 2 in CI)
        wait_for(lambda: _three_live(hub, keys) or any(
            hub.status(k)["state"] == "done" for k in keys), 600)
        assert _three_live(hub, keys), [hub.status(k) for k in keys]
        c.remove_node(nodes[0])  # a node of the hall goes away mid-run
        wait_for(lambda: any(hub.status(k)["state"] == "failed" for k in keys), 600)
        failed = [k for k in keys if hub.status(k)["state"] == "failed"]
        assert len(failed) == 1 and "stopped" in hub.status(failed[0])["error"], failed
        wait_for(lambda: all(hub.status(k)["state"] == "done" for k in keys if k not in failed),
                 600)
        seed = keys.index(failed[0])
        hub.subscribe(LONG.replace(seed=seed), f"again{seed}", want=LONG.T + 1)  # resubscribe
        wait_for(lambda: hub.status(failed[0])["state"] == "done", 600)
        for s, key in enumerate(keys):
            got = hub.batch(key, 0, 1000)
            assert got["error"] == "" and numbers(got["frames"]) == local_frames(
                LONG.replace(seed=s)), s
    finally:
        hub.close()


def _three_live(hub, keys) -> bool:
    """Every run past step 5 and all three computing at once."""
    return all(hub.status(k)["n"] > 5 for k in keys) and hub.metrics()["runs_live"] == 3


def test_the_hall_in_its_own_process():
    """The three-node test above, in a pytest of its own (tests/engine/conftest.py says why)."""
    run_in_own_process(f"{__file__}::test_runs_spread_over_three_nodes_and_a_lost_node_fails_"
                       "only_its_run", timeout_s=290)
