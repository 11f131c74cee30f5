"""Issue 28 in a real browser: Explore's header names each procedure's own source and the width
control its true neuron count; Compare on azl-resnet offers exactly the resnet3 procedure's five
methods and trains them."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_pages import EXCEPTION

FIVE = ("3-layer ResNet", "3-layer FC", "2-layer", "NTK (2-layer)", "last layer (CK)")


@pytest.mark.parametrize("preset, source, neurons", [
    ("gfl-xor", "Shi, PhD dissertation 2024, ch. 3, Algorithm 1", 400),
    ("azl-resnet", "Allen-Zhu & Li 2019", 300),
])
def test_explore_header_and_width_speak_the_procedure(page: Page, server_log, wait_for_app,
                                                     preset, source, neurons) -> None:
    page.goto(f"explore?preset={preset}")
    wait_for_app(page)
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text(source, exact=False).first).to_be_visible(timeout=60_000)
    expect(main.get_by_text("ICLR 2022", exact=False)).to_have_count(0)
    side = page.locator('[data-testid="stSidebar"]')
    expect(side.get_by_text(f"m — {neurons} neurons", exact=True)).to_be_visible()
    expect(page.locator(EXCEPTION)).to_have_count(0)
    assert "Traceback" not in server_log, server_log.text


def test_compare_offers_and_trains_the_five_azl_methods(page: Page, server_log,
                                                        wait_for_app) -> None:
    page.goto("compare?preset=azl-resnet&T=6&n=300&n_test=1100&m=32&azl_drop_epoch=1")
    wait_for_app(page)
    main = page.locator('[data-testid="stMain"]')
    box = main.locator('[data-testid="stMultiSelect"]')
    expect(box).to_be_visible(timeout=60_000)
    text = box.inner_text()
    assert all(label in text for label in FIVE), text
    assert [text.index(label) for label in FIVE] == sorted(text.index(label) for label in FIVE)
    assert "Two Step" not in text and "Network" not in text, text
    main.get_by_role("button", name="Play").click()
    table = main.locator('[data-testid="stDataFrame"]').first
    expect(table).to_be_visible(timeout=120_000)
    expect(main.get_by_text("kα² = 0.72: a test error above it", exact=False)).to_be_visible()
    expect(page.locator(EXCEPTION)).to_have_count(0)
    assert "Traceback" not in server_log, server_log.text
