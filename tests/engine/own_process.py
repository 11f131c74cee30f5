"""Tests that join a Ray cluster, each run in a pytest of its own."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

# A Ray driver whose cluster goes away may end its own process (Ray's C++ exits it): the tests
# that join a Ray cluster run in a pytest of their own, so that can fail only them, never the
# suite (a CI run once ended mid-suite, exit 1 and no summary, inside the Ray frames test).
RAY_INNER = "FEX_TEST_RAY_INNER"
ray_inner_only = pytest.mark.skipif(
    os.environ.get(RAY_INNER) != "1",
    reason="joins a Ray cluster: run in its own process by its *_in_its_own_process twin")


def run_in_own_process(nodeid: str, timeout_s: float = 280) -> None:
    """Run one test (pytest node id) in a fresh pytest; fail with its output unless it passed."""
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", nodeid],
                          cwd=root, env={**os.environ, RAY_INNER: "1"}, capture_output=True,
                          text=True, timeout=timeout_s)
    out = f"exit {proc.returncode}\n" + proc.stdout[-4000:] + proc.stderr[-2000:]
    progress = proc.stdout.lstrip().split("\n", 1)[0].split(" ", 1)[0]
    assert progress == ".", out  # the test itself (setup and call) passed
    if proc.returncode != 0:  # ended after it, in teardown: Ray's exit as its cluster stops
        warnings.warn(f"{nodeid} passed; its process then ended with exit {proc.returncode} "
                      "while the Ray cluster stopped", stacklevel=2)
