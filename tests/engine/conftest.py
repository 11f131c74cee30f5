"""Shared fixtures for the engine's unit tests (helpers live in engine_ref.py).

The tiny setting (d=40, D=20, k=3, m=16, n=3000, n_test=1000, T=12, batch=200) builds in well
under a second on a 2-core CPU; every world here is built on the CPU so results are reproducible.
"""

from __future__ import annotations

import pytest
from engine_ref import TINY

from engine.config import Config
from engine.worlds import build_world


@pytest.fixture(scope="session")
def tiny_cfg() -> Config:
    """The small parity setting every fast test builds on."""
    return Config(**TINY)


@pytest.fixture(scope="session")
def tiny_world(tiny_cfg):
    """World (data, schedule, init) of tiny_cfg in pattern space. Treat as read-only."""
    return build_world(tiny_cfg, device="cpu", space="pattern")


@pytest.fixture(scope="session")
def tiny_world_input(tiny_cfg):
    """The same world in input space (x in R^d); same M, A, data and initial network."""
    return build_world(tiny_cfg, device="cpu", space="input")


@pytest.fixture(scope="module")
def one_worker_hub():
    """A hub with one local worker, shared by the module's tests."""
    from engine.hub import make_hub

    h = make_hub(workers=1)
    yield h
    h.close()
