"""Sweeps page uploads in Chromium (issue 22): a recursive VIEW, garbage, a huge file and a
hostile file name are each refused in one line within seconds; names stay plain text."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from playwright.sync_api import Page, expect

from engine.sweep import Store

EXCEPTION = '[data-testid="stException"]'
NAME = "![x](pixel.png) <b>bold<b> :red[x]"  # a file name has no slash


def empty_store(path: Path, extra: str = "") -> Path:
    """A sound store with no rows, plus an optional hostile statement."""
    Store(path).close()
    if extra:
        db = sqlite3.connect(path)
        db.executescript(extra)
        db.close()
    return path


def upload(page: Page, path: Path):
    main = page.locator('[data-testid="stMain"]')
    main.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(path))
    return main


def test_hostile_uploads_are_refused_quickly_and_shown_as_text(page: Page, tmp_path, server_log,
                                                                wait_for_app) -> None:
    page.goto("sweep")
    wait_for_app(page, timeout_ms=180_000)
    view = empty_store(tmp_path / "view.sqlite", "DROP TABLE results; CREATE VIEW results AS "
                       "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                       "SELECT x AS key FROM c;")
    (tmp_path / "garbage.sqlite").write_bytes(b"\x00garbage" * 4000)
    cases = {view: "view", tmp_path / "garbage.sqlite": "SQLite"}
    for path, why in cases.items():
        t0 = time.monotonic()
        main = upload(page, path)
        alert = main.locator('[data-testid="stAlert"]').filter(has_text=path.name)
        expect(alert).to_contain_text(why, timeout=30_000)
        assert time.monotonic() - t0 < 15
    huge = tmp_path / "huge.sqlite"
    huge.write_bytes(b"\x00" * (6 << 20))  # above the 5 MB cap: refused before it is sent
    main = upload(page, huge)
    expect(main.get_by_text("5.0MB", exact=False)).to_be_visible(timeout=30_000)
    named = empty_store(tmp_path / f"{NAME}.sqlite")
    main = upload(page, named)
    expect(main.get_by_role("combobox", name="sweep")).to_have_value(f"upload: {NAME}.sqlite",
                                                                     timeout=30_000)
    assert page.locator('img[src*="pixel.png"]').count() == 0
    assert main.locator("b", has_text="bold").count() == 0
    expect(page.locator(EXCEPTION)).to_have_count(0)
    assert "Traceback" not in server_log, server_log.text
