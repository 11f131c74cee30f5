"""The real CLI, in a subprocess: bad settings exit 2 with one line naming the setting, server
limits exit 2 naming what to reduce, a diverging run exits 3 with one line (issue 7)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import main

ROOT = Path(__file__).resolve().parents[1]
TINY = ["--set", "n=600", "--set", "n_test=200", "--set", "d=40", "--set", "D=20",
        "--set", "k=3", "--set", "m=8", "--set", "T=6", "--set", "batch=100"]


def cli(*args: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run `python -m engine ...` from the repository root."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=ROOT, env=full_env,
                          capture_output=True, text=True, timeout=timeout)


BAD = [  # (--set value, setting the message must name, text of the allowed range)
    ("k=0", "k", "[1, 500]"),
    ("D=600", "D", "D ≤ d"),
    ("p_o=1.5", "p_o", "(0, 1)"),
    ("m=0", "m", "[1, 20000]"),
    ("T=-5", "T", "[2, 100000]"),
    ("d=abc", "d", "[2, 5000]"),
    ("n=0", "n", "[10, 1000000]"),
    ("seed=x", "seed", "[0, 2147483647]"),
    ("eta=nan", "eta", "(0, 1000000]"),
    ("eta=inf", "eta", "(0, 1000000]"),
    ("lam=-1", "lam", "[0, "),
    ("batch=60000", "batch", "[1, n]"),
    ("k=4", "k", "odd"),
    ("colour=red", "colour", "a known setting"),
]


@pytest.fixture(scope="module")
def bad_runs() -> dict:
    """Every BAD case, four processes at a time (each mostly waits on importing torch)."""
    out, pending = {}, [pair for pair, _, _ in BAD]
    while pending:
        batch, pending = pending[:4], pending[4:]
        procs = {pair: subprocess.Popen([sys.executable, "-m", "engine", "run", "--set", pair,
                                         "--quiet"], cwd=ROOT, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True) for pair in batch}
        for pair, proc in procs.items():
            stdout, stderr = proc.communicate(timeout=300)
            out[pair] = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
    return out


@pytest.mark.parametrize(("pair", "name", "allowed"), BAD, ids=[b[0] for b in BAD])
def test_bad_setting_exits_2_with_one_line(bad_runs, pair, name, allowed):
    res = bad_runs[pair]
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert "Traceback" not in res.stderr and res.stdout == ""
    assert lines[0].startswith(f"error: {name}=")
    assert allowed in lines[0]


RELATIONS = [  # relations between settings and degenerate labelings
    (["labeling=interval", "k=9", "t1=5", "t2=3"], "t1", "[0, t2] = [0, 3]"),
    (["labeling=interval", "k=9", "t1=1", "t2=12"], "t2", "[1, 9]"),
    (["labeling=threshold", "k=9", "p_a=0.01"], "p_a", "each class"),
    (["labeling=custom", "k=5", "P=1,2,3,4,5"], "P", "each class"),
    (["labeling=custom", "k=5", "P=7"], "P", "[1, 5]"),
]


@pytest.mark.parametrize(("pairs", "name", "allowed"), RELATIONS,
                         ids=[" ".join(r[0]) for r in RELATIONS])
def test_relations_and_degenerate_labelings_exit_2(capsys, pairs, name, allowed):
    # the same entry point as `python -m engine`, in-process (the subprocess path is above)
    args = [a for p in pairs for a in ("--set", p)]
    assert main(["run", *args, "--quiet"]) == 2
    line = capsys.readouterr().err.strip()
    assert "\n" not in line and line.startswith(f"error: {name}="), line
    assert allowed in line


def test_server_limit_names_the_setting_to_reduce():
    res = cli("run", "--quiet", env={"FEX_MAX_N": "20000"})
    assert res.returncode == 2
    line = res.stderr.strip()
    assert line == ("error: n=50000 is not allowed: at most 20000 training/test samples on this "
                    "server (FEX_MAX_N)")
    res = cli("run", "--quiet", "--methods", "network", env={"FEX_MAX_MEMORY_MB": "120"})
    assert res.returncode == 2
    assert res.stderr.startswith("error: n=50000 is not allowed: a smaller value: this run "
                                 "needs about ")
    assert "FEX_MAX_MEMORY_MB" in res.stderr and res.stderr.count("\n") == 1


def test_bad_server_setting_is_one_line():
    res = cli("run", "--quiet", env={"FEX_MAX_MEMORY_MB": "lots"})
    assert res.returncode == 2
    assert res.stderr.strip() == ("error: FEX_MAX_MEMORY_MB='lots' is not allowed: a positive "
                                  "number (server setting)")


def test_diverging_run_exits_3_with_one_line():
    res = cli("run", *TINY, "--set", "eta=1e6", "--set", "T=40", "--methods", "network",
              "--quiet")
    assert res.returncode == 3, res.stderr
    line = res.stderr.strip()
    assert "\n" not in line and "Traceback" not in line
    assert line.startswith("error: training diverged at step ")
    assert "η" in line and "λ" in line


def test_tiny_run_still_succeeds():
    res = cli("run", *TINY, "--methods", "network,rf", "--quiet")
    assert res.returncode == 0, res.stderr
    assert "Network" in res.stdout
