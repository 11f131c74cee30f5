"""Issue 38 High 3 and Low 13: `engine run --out` and `engine sweep --out` write only to a
regular file or a new path. A device, a FIFO, a socket, a directory or a symbolic link is refused
in one line and left as it was (docs/cli.md, "Output files": links are refused)."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from engine.config import ConfigError
from engine.report import check_out, write_json
from engine.sweep.integrity import check_out as check_store_out
from engine.sweep.store import store_path

ROOT = Path(__file__).resolve().parent.parent


def special(tmp_path: Path, kind: str) -> Path:
    """A node of that kind at tmp_path/x."""
    path = tmp_path / "x"
    if kind == "char device":
        os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 7))  # /dev/full's numbers
    elif kind == "FIFO":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        sock.close()
    elif kind == "symlink":
        (tmp_path / "target.json").write_text("{}")
        path.symlink_to(tmp_path / "target.json")
    elif kind == "dangling symlink":
        path.symlink_to(tmp_path / "nowhere.json")
    return path


KINDS = ["char device", "FIFO", "directory", "socket", "symlink", "dangling symlink"]


def mode_of(path: Path) -> int:
    return os.lstat(path).st_mode


@pytest.mark.parametrize("kind", KINDS)
def test_run_out_refuses_what_is_not_a_regular_file(tmp_path, kind):
    path = special(tmp_path, kind)
    before = mode_of(path)
    with pytest.raises(ConfigError) as err:
        check_out(str(path))
    assert "--out" in str(err.value) and "\n" not in str(err.value)
    assert mode_of(path) == before


@pytest.mark.parametrize("kind", ["FIFO", "symlink"])
def test_write_json_checks_again_at_write_time(tmp_path, kind):
    path = special(tmp_path, kind)  # made while training ran, after the preflight check
    before = mode_of(path)
    with pytest.raises(ConfigError):
        write_json(str(path), {"a": 1})
    assert mode_of(path) == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".report-")) == []


def test_run_out_still_replaces_a_regular_file_and_writes_a_new_path(tmp_path):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text("{}")
    for path in (old, new):
        check_out(str(path))
        write_json(str(path), {"a": 1})
        assert json.loads(path.read_text()) == {"a": 1}


def test_engine_run_out_on_a_device_is_one_line_and_the_node_stays(tmp_path):
    path = special(tmp_path, "char device")
    res = subprocess.run([sys.executable, "-m", "engine", "run", "--preset", "quick-parity",
                          "--methods", "network", "--set", "T=2", "--out", str(path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and "character device" in res.stderr
    assert stat.S_ISCHR(mode_of(path))


@pytest.mark.parametrize("kind", ["char device", "FIFO", "socket", "symlink"])
def test_sweep_out_refuses_special_store_paths(tmp_path, kind):
    path = special(tmp_path, kind).rename(tmp_path / "x.sqlite")
    with pytest.raises(ConfigError) as err:
        check_store_out(path)
    assert "--out" in str(err.value) and "\n" not in str(err.value)


def test_sweep_out_on_an_existing_folder_is_refused_not_written_beside(tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    with pytest.raises(ConfigError) as err:
        store_path(folder)
    assert "folder" in str(err.value)
    res = subprocess.run([sys.executable, "-m", "engine", "sweep", "--preset", "quick-parity",
                          "--grid", "k=1,3", "--methods", "network", "--set", "T=2",
                          "--out", str(folder)], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert not (tmp_path / "runs.sqlite").exists() and list(folder.iterdir()) == []
