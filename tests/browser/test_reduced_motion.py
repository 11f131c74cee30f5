"""prefers-reduced-motion (issue 34): with the operating system's "reduce motion" set, no page
animates (transitions, animations) or scrolls smoothly, and the player does not start by itself;
without it the pages keep their transitions (the rule is the setting's, not a blanket one)."""

from __future__ import annotations

from playwright.sync_api import Browser

# Every element's longest transition and animation (seconds), the elements that scroll
# smoothly, and the running Web Animations longer than 1 ms.
MOTION = """() => {
  const secs = (v) => Math.max(...v.split(',').map(
    (x) => parseFloat(x) * (x.includes('ms') ? 0.001 : 1)));
  const out = {transition: 0, animation: 0, moving: [], smooth: [], anims: []};
  for (const e of document.querySelectorAll('*')) {
    const s = getComputedStyle(e), t = secs(s.transitionDuration);
    const a = s.animationName !== 'none' ? secs(s.animationDuration) : 0;
    if (t > out.transition) out.transition = t;
    if (a > out.animation) out.animation = a;
    if ((t > 0.001 || a > 0.001) && out.moving.length < 5)
      out.moving.push(e.tagName + '.' + String(e.className).slice(0, 50) + ' '
                      + s.transitionProperty);
    if (s.scrollBehavior === 'smooth') out.smooth.push(e.tagName);
  }
  for (const x of document.getAnimations()) {
    const d = x.effect && x.effect.getTiming().duration;
    if (typeof d === 'number' && d > 1) out.anims.push(String(x.animationName || d));
  }
  return out;
}"""
PAGES = ["/explore?preset=gfl-xor", "/compare"]


def test_reduce_motion_stops_every_animation(browser: Browser, app_server: str,
                                            wait_for_app) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800}, base_url=app_server,
                                  reduced_motion="reduce")
    page = context.new_page()
    for url in PAGES:
        page.goto(url)
        wait_for_app(page, timeout_ms=180_000)
        if "explore" in url:
            page.wait_for_selector(".fe-player[data-step]", timeout=120_000)
            page.wait_for_timeout(1500)  # would a player that starts itself have moved on?
            step = page.eval_on_selector(".fe-player", "e => +e.dataset.step")
            assert step == 0, "the player started by itself"
        r = page.evaluate(MOTION)
        assert r["transition"] <= 0.001 and r["animation"] <= 0.001, (url, r)
        assert r["smooth"] == [] and r["anims"] == [], (url, r)
    page.emulate_media(reduced_motion="no-preference")  # the same page, the setting off
    usual = page.evaluate(MOTION)
    context.close()
    assert usual["transition"] > 0.05, usual
