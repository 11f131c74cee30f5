"""Issue 38, the frame cache (FEX_FRAME_CACHE) as a hostile user who can write its folder would
use it: every crafted file is ignored in one log line and the run computed instead; reads are
bounded; writes are atomic, capped and leave no temp file; a bad folder is one line.

The files are real gzip files on disk read by the real engine.hub.store; the run records come
from tests/engine/hub_streams.py's CountStream (the hub's own tests' stand-in)."""

from __future__ import annotations

import base64
import gzip
import json
import os
import subprocess
import sys
import time
import tracemalloc
import zlib

import pytest

from engine.config import Config, ConfigError
from engine.hub import disk, make_hub, packing, run_key, store
from engine.hub.key import canonical
from tests.engine.hub_streams import CountStream

CFG = Config().replace(n=600, n_test=200, d=40, D=20, m=8, T=40, batch=100, seed=7)
KEY = run_key(CFG)


def record(cfg: Config = CFG) -> dict:
    """The cache record of cfg's (CountStream) run, as the hub writes it."""
    s = CountStream(cfg)
    s.advance()
    return {"key": run_key(cfg), "settings": canonical(cfg), "T": cfg.T, "meta": s.meta(),
            "frames": s.frames(0, len(s))}


def put(folder, body, key: str = KEY, raw: bytes | None = None):
    path = folder / f"{key}.json.gz"
    data = raw if raw is not None else json.dumps(body).encode()
    path.write_bytes(gzip.compress(data))
    return path


def changed(**edits) -> dict:
    body = record()
    for where, value in edits.items():
        part, _, name = where.partition("__")
        if name:
            body[part][name] = value
        else:
            body[part] = value
    return body


def test_a_true_record_loads(tmp_path):
    put(tmp_path, record())
    got = store.load(tmp_path, KEY, CFG)
    assert got is not None and got["T"] == CFG.T and len(got["frames"]) == CFG.T + 1


CRAFTED = {
    "a list": [],
    "a number": 1e300,
    "meta {}": changed(meta={}),
    "meta null": changed(meta=None),
    "T -1": changed(T=-1),
    "T as text": changed(T="40"),
    "T of another setting": changed(T=39),
    "meta T differs": changed(meta__T=39),
    "points negative": changed(meta__points=-1),
    "no step column": changed(frames={"text": ["x"] * 41}),
    "steps shuffled": changed(frames__step=list(range(40, -1, -1))),
    "a column short": changed(frames__text=["x"] * 40),
    "a column not base64": changed(frames__pos="@@@@" * 41),
    "pos of other points": changed(frames__pos=base64.b64encode(b"\0" * 41 * 12).decode()),
    "a deep value in a frame": changed(frames__text=[json.loads("[" * 40 + "]" * 40)] * 41),
    "frames null": changed(frames=None),
    "another key inside": changed(key="0" * 32),
    "no settings": {k: v for k, v in record().items() if k != "settings"},
    "limit curves without limits": changed(meta__limit_curves=True),
    "limits still pending": changed(meta__limit_curves=True,
                                    meta__limits={"pending": True, "lines": []}),
}


@pytest.mark.parametrize("name", list(CRAFTED))
def test_crafted_contents_are_ignored(tmp_path, caplog, name):
    put(tmp_path, CRAFTED[name])
    assert store.load(tmp_path, KEY, CFG) is None
    assert any("frame cache" in r.getMessage() for r in caplog.records)


def test_another_runs_frames_under_the_key_are_not_shown_as_that_run(tmp_path):
    other = record(CFG.replace(seed=5))  # seed 5's frames, filed under seed 7's key
    put(tmp_path, {**other, "key": KEY})
    assert store.load(tmp_path, KEY, CFG) is None


def test_a_300000_deep_nest_is_ignored(tmp_path):
    put(tmp_path, None, raw=b"[" * 300_000 + b"]" * 300_000)
    assert store.load(tmp_path, KEY, CFG) is None


def test_a_gzip_bomb_stops_at_the_settings_cap(tmp_path):
    cap = disk.inflated_cap(CFG)
    z = zlib.compressobj(9, zlib.DEFLATED, 31)  # gzip framing
    chunk = b"0" * (1 << 20)
    data = b"".join(z.compress(chunk) for _ in range(cap // len(chunk) + 64)) + z.flush()
    (tmp_path / f"{KEY}.json.gz").write_bytes(data)
    assert len(data) < cap // 50  # a small file that would inflate 14x past its setting
    tracemalloc.start()
    try:
        assert store.load(tmp_path, KEY, CFG) is None
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * cap  # stopped at the cap, not inflated whole


def test_a_file_bigger_than_the_cap_is_not_even_opened_for_parsing(tmp_path):
    path = tmp_path / f"{KEY}.json.gz"
    path.write_bytes(os.urandom(disk.inflated_cap(CFG) + 1))
    assert store.load(tmp_path, KEY, CFG) is None


@pytest.mark.parametrize("raw", [b"not gzip at all", gzip.compress(b"{]")[:-1], b""])
def test_damaged_files_are_ignored(tmp_path, raw):
    (tmp_path / f"{KEY}.json.gz").write_bytes(raw)
    assert store.load(tmp_path, KEY, CFG) is None


def test_a_symlink_under_the_key_is_not_followed(tmp_path):
    real = put(tmp_path, record(), key="f" * 32)
    (tmp_path / f"{KEY}.json.gz").symlink_to(real)
    assert store.load(tmp_path, KEY, CFG) is None


def test_a_fifo_under_the_key_does_not_hang(tmp_path):
    os.mkfifo(tmp_path / f"{KEY}.json.gz")
    assert store.load(tmp_path, KEY, CFG) is None


def test_a_directory_under_the_key_is_ignored(tmp_path):
    (tmp_path / f"{KEY}.json.gz").mkdir()
    assert store.load(tmp_path, KEY, CFG) is None


@pytest.mark.parametrize("key", ["../" + KEY[3:], KEY.upper(), KEY[:31], ""])
def test_keys_that_are_not_32_hex_digits_are_not_paths(tmp_path, key):
    assert store.load(tmp_path, key, CFG) is None


def test_a_load_marks_the_file_recently_used(tmp_path):
    path = put(tmp_path, record())
    os.utime(path, (1_000_000, 1_000_000))
    assert store.load(tmp_path, KEY, CFG) is not None
    assert path.stat().st_mtime > time.time() - 60


def test_the_cache_keeps_within_its_cap_least_recently_used_out(tmp_path, monkeypatch):
    monkeypatch.setenv("FEX_FRAME_CACHE_MB", "0.05")  # 52 KB: room for a few files
    names = []
    for i in range(8):
        body = {"key": f"{i:032x}", "pad": base64.b64encode(os.urandom(12_000)).decode()}
        path = disk.write(tmp_path, f"{i:032x}.json.gz", body)
        os.utime(path, (1_000_000 + i, 1_000_000 + i))
        names.append(path.name)
    disk.trim(tmp_path, int(disk.cap_mb() * disk.MB))
    left = sorted(p.name for p in tmp_path.iterdir())
    assert sum(p.stat().st_size for p in tmp_path.iterdir()) <= 0.05 * disk.MB
    assert left and left == names[-len(left):]  # the newest kept, the oldest gone


def test_stale_temp_files_are_removed_fresh_ones_kept(tmp_path):
    stale, fresh = tmp_path / ".fex-old.tmp", tmp_path / ".fex-new.tmp"
    stale.write_bytes(b"x")
    fresh.write_bytes(b"x")
    os.utime(stale, (1_000_000, 1_000_000))
    disk.trim(tmp_path, 1 << 30)
    assert not stale.exists() and fresh.exists()


def test_a_write_past_ulimit_f_leaves_no_temp_file_and_no_traceback(tmp_path):
    code = ("import resource, signal, logging; signal.signal(signal.SIGXFSZ, signal.SIG_IGN);"
            "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096)); logging.basicConfig();"
            "from pathlib import Path; from engine.hub import disk; import os;"
            f"print(disk.write(Path({str(tmp_path)!r}), 'a.json.gz',"
            "{'pad': os.urandom(200000).hex()}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, cwd=os.getcwd())
    assert out.returncode == 0 and out.stdout.strip() == "None"
    assert "Traceback" not in out.stderr and "not written" in out.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("value", ["abc", "-1", "0", "inf", "nan"])
def test_a_bad_cache_cap_is_one_line(monkeypatch, value):
    monkeypatch.setenv("FEX_FRAME_CACHE_MB", value)
    with pytest.raises(ConfigError) as err:
        disk.cap_mb()
    assert "FEX_FRAME_CACHE_MB" in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("where", ["FILE", "/dev/null", "/proc", "/dev/full/sub"])
def test_a_bad_cache_folder_is_one_line(tmp_path, monkeypatch, where):
    if where == "FILE":
        where = str(tmp_path / "passwd")
        (tmp_path / "passwd").write_text("root:x:0:0\n")
    monkeypatch.setenv("FEX_FRAME_CACHE", where)
    with pytest.raises(ConfigError) as err:
        store.cache_dir()
    assert "FEX_FRAME_CACHE" in str(err.value) and "\n" not in str(err.value)


def test_the_server_starts_without_the_cache_on_a_bad_folder(monkeypatch, caplog):
    monkeypatch.setenv("FEX_FRAME_CACHE", "/etc/passwd")
    hub = make_hub(workers=1)
    assert hub.cache is None
    assert any("frame cache off" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("where", ["/dev/full", "/proc", "/etc/hostname"])
def test_engine_warm_on_a_bad_cache_is_one_line(where):
    out = subprocess.run([sys.executable, "-m", "engine", "warm", "--preset", "quick-parity",
                          "--cache", where], capture_output=True, text=True, timeout=300)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "--cache" in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_packing_refuses_a_column_that_does_not_divide():
    with pytest.raises(ValueError):
        packing.split({"step": [0, 1, 2], "pos": base64.b64encode(b"1234").decode()})
