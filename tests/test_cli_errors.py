"""The real CLI, in a subprocess: bad settings exit 2 with one line naming the setting, server
limits exit 2 naming what to reduce, a diverging run exits 3 with one line (issue 7)."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import main

ROOT = Path(__file__).resolve().parents[1]
SMALL = ["--set", "n=600", "--set", "n_test=200", "--set", "d=40", "--set", "D=20",
         "--set", "k=3", "--set", "m=8", "--set", "batch=100"]
TINY = [*SMALL, "--set", "T=6"]


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


# these run as `python -m engine` in processes of their own (a parse error and an unknown name:
# the real entry point, its exit code and its stderr); the others call the same main() in-process
IN_A_PROCESS = ("d=abc", "colour=red")


@pytest.fixture(scope="module")
def bad_runs() -> dict:
    """The IN_A_PROCESS cases, run side by side (each mostly waits on importing torch)."""
    procs = {pair: subprocess.Popen([sys.executable, "-m", "engine", "run", "--set", pair,
                                     "--quiet"], cwd=ROOT, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True) for pair in IN_A_PROCESS}
    out = {}
    for pair, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=300)
        out[pair] = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
    return out


def bad_run(pair: str, bad_runs: dict, capsys) -> subprocess.CompletedProcess:
    """The run of `--set pair`: from its own process, else main() in this one."""
    if pair in IN_A_PROCESS:
        return bad_runs[pair]
    code = main(["run", "--set", pair, "--quiet"])
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(["main"], code, out, err)


@pytest.mark.parametrize(("pair", "name", "allowed"), BAD, ids=[b[0] for b in BAD])
def test_bad_setting_exits_2_with_one_line(bad_runs, capsys, pair, name, allowed):
    res = bad_run(pair, bad_runs, capsys)
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
    res = cli("run", *SMALL, "--set", "eta=1e6", "--set", "T=40", "--methods", "network",
              "--quiet")
    assert res.returncode == 3, res.stderr
    line = res.stderr.strip()
    assert "\n" not in line and "Traceback" not in line
    assert line.startswith("error: seed 0: training diverged at step ")
    assert "η" in line and "λ" in line


def test_tiny_run_still_succeeds():
    res = cli("run", *TINY, "--methods", "network,rf", "--quiet")
    assert res.returncode == 0, res.stderr
    assert "Network" in res.stdout


# ---------------------------------------------------------------- --out (issue 13)

DIVERGE = [*SMALL, "--set", "eta=1e6", "--set", "eta_w=1e6", "--set", "T=40"]  # blows up early


@pytest.fixture
def old_report(tmp_path):
    path = tmp_path / "report.json"
    path.write_text('{"old": true}')
    return path


def _run(capsys, *args) -> tuple[int, str]:
    code = main(["run", *TINY, "--methods", "network", "--quiet", *args])
    return code, capsys.readouterr().err


@pytest.mark.parametrize(("where", "allowed"), [
    ("missing/report.json", "a file in an existing directory"),
    (".", "a file path, not a directory"),
    ("", "a file path (it is empty)"),
])
def test_bad_out_path_is_refused_before_training(tmp_path, capsys, monkeypatch, where, allowed):
    monkeypatch.chdir(tmp_path)
    started = []
    monkeypatch.setattr("engine.compare.Comparison.run_all", lambda *a: started.append(1))
    code, err = _run(capsys, "--out", where)
    assert code == 2 and not started, err
    assert err.strip() == f"error: --out={where!r} is not allowed: {allowed}"
    assert os.listdir(tmp_path) == []


def test_out_in_an_unwritable_directory_is_refused(tmp_path, capsys):
    code, err = _run(capsys, "--out", "/proc/report.json")  # not writable even for root
    assert code == 2 and "a file in a writable directory" in err
    if os.geteuid() != 0:  # root ignores permission bits
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        code, err = _run(capsys, "--out", str(locked / "r.json"))
        assert code == 2 and "a file in a writable directory (Permission denied)" in err


def test_full_disk_keeps_the_old_report_and_leaves_no_temporary_file(old_report, capsys,
                                                                     monkeypatch):
    real_fdopen = os.fdopen

    class FullDisk:
        """A file whose writes stop half-way with ENOSPC, as on a full disk."""

        def __init__(self, fh):
            self.fh = fh

        def write(self, text):
            self.fh.write(text[: len(text) // 2])
            self.fh.flush()
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def __getattr__(self, name):
            return getattr(self.fh, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

    monkeypatch.setattr(os, "fdopen", lambda *a, **k: FullDisk(real_fdopen(*a, **k)))
    code, err = _run(capsys, "--out", str(old_report))
    assert code == 1
    assert err.strip() == (f"error: could not write the report to {old_report}: No space left "
                           "on device; nothing was written")
    assert old_report.read_text() == '{"old": true}'
    assert os.listdir(old_report.parent) == ["report.json"]


def test_a_successful_run_replaces_the_report_atomically(old_report, capsys):
    old_report.chmod(0o640)
    code, _ = _run(capsys, "--out", str(old_report))
    assert code == 0
    report = json.loads(old_report.read_text())
    assert report["methods"]["network"]["per_seed"][0]["steps"] == 6
    assert old_report.stat().st_mode & 0o777 == 0o640  # the file keeps its permissions
    assert os.listdir(old_report.parent) == ["report.json"]


# ---------------------------------------------------------------- divergence keeps history


def test_diverged_run_writes_every_step_before_the_divergence_and_exits_3(old_report, capsys):
    code = main(["run", *DIVERGE, "--methods", "network,rf,ntk", "--quiet", "--out",
                 str(old_report)])
    captured = capsys.readouterr()
    assert code == 3
    line = captured.err.strip()
    assert "\n" not in line and line.startswith("error: seed 0: training diverged at step ")
    report = json.loads(old_report.read_text())
    at = report["diverged_at"]
    assert 2 < at < 40 and f"stop at step {at}" in line
    assert report["diverged"].startswith(f"training diverged at step {at}")
    steps = [row["step"] for row in report["history"]["network"]]
    assert steps == list(range(at))  # every step before the divergence, none after
    assert all(row["train_loss"] is not None for row in report["history"]["network"])
    assert report["methods"]["network"]["per_seed"][0]["steps"] == at - 1
    assert "Network" in captured.out  # the table up to the divergence is printed


def test_divergence_stops_the_seeds_that_follow(tmp_path, capsys):
    out = tmp_path / "r.json"
    code = main(["run", *DIVERGE, "--methods", "network", "--quiet", "--seeds", "3", "--out",
                 str(out)])
    assert code == 3 and "error: seed 0: " in capsys.readouterr().err
    report = json.loads(out.read_text())
    assert report["seeds"] == 1 and report["diverged_at"] == len(report["history"]["network"])
