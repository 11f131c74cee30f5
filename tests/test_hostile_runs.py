"""Hostile runs (issue 30, finding 8 and the fresh pass): `engine run --preset azl-resnet` (the
one CLI that replaces `python -m engine.azl run`), `engine sweep --address`, and links; every
case is refused before any work, in one line naming the field and what is allowed."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.cli import main
from ui.state import parse_params

ROOT = Path(__file__).resolve().parents[1]
PIXEL = "![x](http://127.0.0.1:9/pixel.png)"
MAX_LINE = 600
AZL = ["--preset", "azl-resnet"]

# finding 8: what `python -m engine.azl run` took (id -> arguments, the field named)
ISSUE = {
    "full-width m": (["--set", "m=３００"], "m"),
    "underscore m": (["--set", "m=1_0"], "m"),
    "full-width seed": (["--seed", "５"], "seed"),
    "infinite m": (["--set", "m=inf"], "m"),
    "fractional m": (["--set", "m=8.9"], "m"),
    "a million steps": (["--set", "T=1000000"], "T"),
}
FRESH = {  # the fresh pass on the same surface
    "nan step size": (["--set", "azl_lr=nan"], "azl_lr"),
    "zero step size": (["--set", "azl_lr=0"], "azl_lr"),
    "overflowing step size": (["--set", "azl_lr=1e400"], "azl_lr"),
    "underscore drop epoch": (["--set", "azl_drop_epoch=1_5"], "azl_drop_epoch"),
    "full-width drop epoch": (["--set", "azl_drop_epoch=１５"], "azl_drop_epoch"),
    "negative drop epoch": (["--set", "azl_drop_epoch=-1"], "azl_drop_epoch"),
    "markdown variant": (["--set", f"azl_variant={PIXEL}"], "azl_variant"),
    "infinite alpha": (["--set", "azl_alpha=inf"], "azl_alpha"),
    "negative weight decay": (["--set", "azl_wd=-1"], "azl_wd"),
    "momentum above 1": (["--set", "azl_momentum=1.5"], "azl_momentum"),
    "a billion samples": (["--set", "n=1e9"], "n"),
    "width above the server's": (["--set", "m=4096"], "m"),
    "k against the variant": (["--set", "k=4"], "k"),
    "full-width seeds": (["--seeds", "５"], "--seeds"),
    "steps under its old name": (["--set", "steps=1000000"], "steps"),
}


@pytest.fixture
def server_limits(monkeypatch):
    """The guard at the server's defaults, as a host runs it."""
    for name in list(os.environ):
        if name.startswith("FEX_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("FEX_MAX_MEMORY_MB", "1024")


def run_cli(command: str, args: list[str], capsys) -> tuple[int, str, str]:
    """main() in-process (argparse's exit included): (code, stdout, stderr)."""
    try:
        code = main([command, "--quiet", *args])
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def one_line(err: str, field: str) -> str:
    lines = err.strip("\n").split("\n")
    assert len(lines) == 1 and "Traceback" not in err, err[:2000]
    line = lines[0]
    assert line.startswith(f"error: {field}=") and len(line) <= MAX_LINE, line[:2000]
    assert line.isprintable(), ascii(line[:300])
    return line


@pytest.mark.parametrize("args, field", [*ISSUE.values(), *FRESH.values()],
                         ids=[*ISSUE, *FRESH])
def test_azl_run_refuses_before_training(args, field, tmp_path, capsys, server_limits):
    out = tmp_path / "r.json"
    t0 = time.perf_counter()
    code, stdout, err = run_cli("run", [*AZL, *args, "--out", str(out)], capsys)
    assert code == 2 and stdout == "", err
    line = one_line(err, field)
    assert "is not allowed" in line and not out.exists()
    assert time.perf_counter() - t0 < 20  # refused, not trained


def test_the_issue_cases_name_the_range(capsys, server_limits):
    want = {"full-width m": "an integer in [1, 20000], in ASCII digits",
            "underscore m": "in ASCII digits", "infinite m": "an integer in [1, 20000]",
            "fractional m": "an integer in [1, 20000]",
            "full-width seed": "[0, 2147483647], in ASCII digits",
            "a million steps": "[2, 100000]"}
    for case, text in want.items():
        _, _, err = run_cli("run", [*AZL, *ISSUE[case][0]], capsys)
        assert text in err, (case, err)


def test_the_azl_cli_in_a_subprocess_exits_2_in_one_line(tmp_path):
    res = subprocess.run([sys.executable, "-m", "engine", "run", *AZL, "--set", "m=8.9",
                          "--out", str(tmp_path / "r.json")], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 2 and res.stdout == ""
    one_line(res.stderr, "m")


ADDRESSES = {  # fresh: --address values refused before any work
    "port 0": "127.0.0.1:0",
    "port above 65535": "127.0.0.1:70000",
    "no port": "localhost",
    "no host": ":6379",
    "text port": "127.0.0.1:http",
    "markdown": PIXEL,
    "escape sequence": "\x1b[2J127.0.0.1:1",
    "closed local port": "127.0.0.1:9",
}


@pytest.mark.parametrize("address", ADDRESSES.values(), ids=ADDRESSES.keys())
def test_a_bad_ray_address_is_one_line(address, tmp_path, capsys):
    code, _, err = run_cli("sweep", ["--grid", "k=1,3", "--executor", "ray", "--address",
                                     address, "--out", str(tmp_path / "s")], capsys)
    assert code == 2, err
    one_line(err, "--address")
    assert list(tmp_path.iterdir()) == []


LINKS = {  # fresh: link values on the AZL world (id -> query, the field named)
    "full-width m": ({"scenario": "azl_hier", "m": "３００"}, "m"),
    "infinite m": ({"scenario": "azl_hier", "m": "inf"}, "m"),
    "fractional m": ({"scenario": "azl_hier", "m": "8.9"}, "m"),
    "nan step size": ({"scenario": "azl_hier", "azl_lr": "nan"}, "azl_lr"),
    "underscore drop epoch": ({"scenario": "azl_hier", "azl_drop_epoch": "1_5"},
                              "azl_drop_epoch"),
    "markdown variant": ({"scenario": "azl_hier", "azl_variant": PIXEL}, "azl_variant"),
    "a million steps": ({"scenario": "azl_hier", "T": "1000000"}, "T"),
    "script procedure": ({"procedure": "<script>alert(1)</script>"}, "procedure"),
    "path as a world": ({"scenario": "../../etc/passwd"}, "scenario"),
    "full-width seed": ({"seed": "５"}, "seed"),
    "hex samples": ({"n": "0x10"}, "n"),
    "overflowing step": ({"eta": "1e400"}, "eta"),
}


@pytest.mark.parametrize("params, field", LINKS.values(), ids=LINKS.keys())
def test_a_hostile_link_value_is_dropped_naming_its_field(params, field):
    cfg, _, warnings = parse_params(params)
    assert any(w.startswith(f"{field}=") for w in warnings), warnings
    assert all(len(w) <= MAX_LINE and w.isprintable() for w in warnings), warnings
    assert str(getattr(cfg, field)) != params[field]  # the value was not taken


def test_fresh_pass_counts():
    """docs/hosting.md counts these with the crafted stores of tests/test_hostile_stores.py."""
    assert len(FRESH) + len(ADDRESSES) + len(LINKS) >= 35
