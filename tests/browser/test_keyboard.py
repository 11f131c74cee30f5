"""A lecture with the keyboard only (issue 34): from Reproduce, open a preset in Explore, play,
pause, step back and download the offline HTML player, with Tab, Enter and the player's keys;
no mouse. Every control the focus lands on shows a focus ring.

Controls are found by their role and accessible name (what a screen reader announces), so the
walk holds when the player's labels gain words; the player's keys are those of
ui/player/playback.js (space, ←, →, R).
"""

from __future__ import annotations

import re

from playwright.sync_api import Page

PLAYER = ".fe-player"
# The focused element (inside shadow roots too): its role, accessible name (aria-label, else
# its text), and whether it shows a focus ring: a solid outline of 2 px or more.
FOCUSED = """() => {
  let e = document.activeElement;
  while (e && e.shadowRoot && e.shadowRoot.activeElement) e = e.shadowRoot.activeElement;
  if (!e || e === document.body) return null;
  const s = getComputedStyle(e), ring = !['none', 'hidden'].includes(s.outlineStyle)
    && parseFloat(s.outlineWidth) >= 2;
  const role = e.getAttribute('role') || {A: 'link', BUTTON: 'button', SELECT: 'combobox',
    SUMMARY: 'button'}[e.tagName] || (e.type === 'range' ? 'slider' : e.tagName.toLowerCase());
  const name = (e.getAttribute('aria-label') || e.innerText || e.value || '').trim();
  return {role, name: name.replace(/\\s+/g, ' ').slice(0, 80), ring,
          outline: s.outlineStyle + ' ' + s.outlineWidth, player: !!e.closest('.fe-player')};
}"""


def tab_to(page: Page, role: str, name: str, seen: list, limit: int = 150,
           player: bool | None = None) -> dict:
    """Press Tab until the focus is on a control of this role whose name matches; every stop on
    the way must show its focus ring."""
    pattern = re.compile(name, re.I)
    for _ in range(limit):
        page.keyboard.press("Tab")
        f = page.evaluate(FOCUSED)
        if f is None:
            continue
        seen.append(f)
        assert f["ring"], f"no visible focus ring on {f} (stops so far: {seen[-6:]})"
        if f["role"] == role and pattern.search(f["name"]) and player in (None, f["player"]):
            return f
    raise AssertionError(f"{role} {name!r} not reached in {limit} Tabs; last stops: {seen[-12:]}")


def step(page: Page) -> int:
    return int(page.eval_on_selector(PLAYER, "e => e.dataset.step"))


def test_a_lecture_with_the_keyboard_only(page: Page, wait_for_app, tmp_path) -> None:
    seen: list[dict] = []
    page.goto("reproduce")
    wait_for_app(page, timeout_ms=180_000)
    # the page-wide style (ui/a11y.py, focus ring included) is drawn with the page's first
    # elements: Tab only once it is there (on a loaded machine the first Tab came before it)
    page.wait_for_selector(".st-key-fe_a11y", state="attached", timeout=60_000)
    page.wait_for_function("() => [...document.querySelectorAll('style')].some("
                           "s => s.textContent.includes(':focus-visible'))", timeout=60_000)
    tab_to(page, "button", r"Open in Explore", seen)
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"preset="), timeout=120_000)
    page.wait_for_selector(f"{PLAYER}[data-step]", timeout=180_000)

    # (the focus stays near the top of the page: the next Tabs lead into the player)
    tab_to(page, "button", r"\bplay\b", seen, limit=80, player=True)
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => +document.querySelector('{PLAYER}').dataset.step >= 3",
                           timeout=120_000)
    page.keyboard.press(" ")  # pause
    page.wait_for_timeout(700)
    paused = step(page)
    page.wait_for_timeout(700)
    assert step(page) == paused, "space did not pause the player"
    page.keyboard.press("ArrowLeft")
    page.wait_for_function(f"() => +document.querySelector('{PLAYER}').dataset.step === "
                           f"{paused - 1}", timeout=10_000)

    # the downloads come when the run idles (ui/player_view.IDLE_S after its last frame); until
    # its file is made the button is there but disabled ("being prepared…"), and Tab skips it
    page.get_by_role("button", name=re.compile("Offline player"), disabled=False).wait_for(
        timeout=120_000)
    tab_to(page, "button", r"Offline player \(HTML\)", seen, limit=250)
    with page.expect_download(timeout=120_000) as info:
        page.keyboard.press("Enter")
    download = info.value
    path = tmp_path / download.suggested_filename
    download.save_as(path)
    assert path.suffix == ".html" and "fe-data" in path.read_text(encoding="utf-8")
    assert [f for f in seen if not f["ring"]] == []
