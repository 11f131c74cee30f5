"""Issue 38 Medium 5 and Low 10/11: stores that passed every check and still crashed the Sweeps
page. Each is a genuine store changed by one SQL statement (or one header byte), refused on
open in one line from a file, from its bytes (an upload) and by `engine sweep --out`."""

from __future__ import annotations

import pandas as pd
import pytest

from engine.sweep import load
from engine.sweep.integrity import StoreError
from tests.test_hostile_stores import crafted, genuine, one_line, run_sweep_cli
from ui import sweep_data, sweep_run

DEEP = "[" * 300_000 + "]" * 300_000
CASES = {
    "config a 300 000-deep nest": (f"UPDATE results SET config = '{DEEP}';", "config"),
    "config []": ("UPDATE results SET config = '[]';", "config"),
    "config 1e999": ("UPDATE results SET config = '1e999';", "config"),
    "config a JSON string": ("UPDATE results SET config = '\"x\"';", "config"),
    "config not JSON": ("UPDATE results SET config = '{';", "config"),
    "config in the first row only": ("UPDATE results SET config = '[]' WHERE key = 'r0';",
                                     "config"),
    "every summary NULL": ("UPDATE results SET train_acc = NULL, test_acc = NULL, cos = NULL;",
                           "no summary"),
    "test accuracy 1.7e308": ("UPDATE results SET test_acc = 1.7e308;", "test_acc"),
    "test accuracy -1.7e308": ("UPDATE results SET test_acc = -1.7e308 WHERE key = 'r1';",
                               "test_acc"),
    "a curve of 1e308": ("UPDATE curves SET test_acc = 1e308;", "curves"),
}


@pytest.mark.parametrize("sql, why", CASES.values(), ids=CASES.keys())
def test_a_store_that_crashed_the_page_is_refused_on_open(sql, why, tmp_path, capsys):
    path = crafted(tmp_path / "s.sqlite", sql)
    with pytest.raises(StoreError) as file_err:
        load(path)
    assert why in one_line(file_err.value), file_err.value
    with pytest.raises(StoreError) as upload_err:
        load(path.read_bytes())
    assert why in one_line(upload_err.value)
    code, out, err = run_sweep_cli(["--grid", "k=1,3", "--out", str(path)], capsys)
    assert code == 2 and why in one_line(err), err  # never appended to


@pytest.mark.parametrize("code", [2, 3])
def test_a_utf16_header_is_refused_not_echoed(tmp_path, code):
    path = genuine(tmp_path / "s.sqlite")
    data = bytearray(path.read_bytes())
    data[56:60] = code.to_bytes(4, "big")  # the header's text encoding: UTF-16le / be
    path.write_bytes(bytes(data))
    for source in (path, bytes(data)):
        with pytest.raises(StoreError) as err:
            load(source)
        line = one_line(err.value)
        assert "UTF-8" in line and "浥" not in line, line


def test_genuine_stores_still_open(tmp_path):
    path = genuine(tmp_path / "s.sqlite")
    load(path)
    load(path.read_bytes())


@pytest.mark.parametrize("config", ["[]", "1e999", "null", "[1]", "{\"T\": []}", DEEP])
def test_the_page_reads_a_bad_first_config_as_no_world(config):
    assert sweep_data.world_config(pd.DataFrame({"config": [config]})) is None


def test_the_upload_limit_is_the_uploaders(monkeypatch):
    # Streamlit's uploader counts maxUploadSize = 5 in decimal MB: 5 000 000 bytes
    monkeypatch.delenv("FEX_MAX_UPLOAD_MB", raising=False)
    assert sweep_run.max_upload_bytes() == 5_000_000
