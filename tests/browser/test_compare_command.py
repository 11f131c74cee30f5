"""Issue 22: a Compare link with a shell-hostile P and pair. The page drops both with a
warning, and the printed command is exactly the argv of the setting the page runs."""

from __future__ import annotations

import shlex
from urllib.parse import urlencode

from playwright.sync_api import Page, expect

TINY = {"n": "600", "n_test": "200", "d": "40", "D": "20", "k": "3", "m": "8", "T": "6",
        "batch": "100"}
HOSTILE = {"P": "1 $(touch /tmp/pwned-fex)", "pair": "0,1; touch /tmp/pwned-fex"}


def test_hostile_p_and_pair_never_reach_the_printed_command(page: Page, server_log,
                                                            wait_for_app) -> None:
    page.goto("compare?" + urlencode({**TINY, **HOSTILE, "methods": "network"}))
    wait_for_app(page)
    main = page.locator('[data-testid="stMain"]')
    warnings = main.locator('[data-testid="stAlert"]')
    expect(warnings.filter(has_text="P=")).to_have_count(1)
    expect(warnings.filter(has_text="pair=")).to_have_count(1)
    main.get_by_role("button", name="Play").click()
    code = main.locator('[data-testid="stCode"] code')
    expect(code).to_have_count(1, timeout=120_000)
    argv = shlex.split(code.inner_text())
    want = ["python", "-m", "engine", "run"]
    for name in ("d", "D", "k", "n", "n_test", "m", "T", "batch"):  # the settings' order
        want += ["--set", f"{name}={TINY[name]}"]
    assert argv == want + ["--methods", "network", "--seeds", "5"]
    assert "touch" not in page.url and "Traceback" not in server_log, server_log.text
