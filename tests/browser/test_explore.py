"""Real-browser tests of the Explore page (headless Chromium against `streamlit run app.py`)."""

from __future__ import annotations

import time
from urllib.parse import urlencode

from playwright.sync_api import Page, expect

SMALL = {"n": "2000", "n_test": "1000", "T": "40", "m": "50", "batch": "200"}
EXCEPTION = '[data-testid="stException"]'
PLAYER = ".fe-player"
DRAWN_JS = """() => [...document.querySelectorAll('.fe-player canvas')]
  .filter(c => c.style.display !== 'none').map(c => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4 * 31) if (d[i] !== d[0] || d[i + 1] !== d[1]) n++;
    return n; })"""


def shown(page: Page) -> dict:
    return page.eval_on_selector(PLAYER, "e => ({...e.dataset})")


def wait_step(page: Page, step: int, timeout_s: float = 60) -> None:
    page.wait_for_function(f"() => document.querySelector('{PLAYER}')?.dataset.step === '{step}'",
                           timeout=timeout_s * 1000, polling=20)


def open_small(page: Page, wait_for_app, **extra) -> None:
    page.goto("/?" + urlencode({**SMALL, **extra}))
    # generous: the first visit to a fresh server imports torch and builds the data
    wait_for_app(page, timeout_ms=180_000)
    page.wait_for_selector(f"{PLAYER}[data-step]", timeout=120_000)


def test_player_draws_the_map_and_three_charts(page: Page, server_log, wait_for_app) -> None:
    open_small(page, wait_for_app)
    main = page.locator('[data-testid="stMain"]')
    expect(page.locator(f"{PLAYER} .fe-label")).to_have_text("step 0 / 40")
    drawn = page.evaluate(DRAWN_JS)
    assert len(drawn) == 4 and min(drawn) > 50, drawn  # map, accuracy, alignment, gradient
    expect(page.locator(f"{PLAYER} .fe-narr")).to_contain_text("of the 100 neurons within cos")
    expect(main.get_by_text("d=500 · D=100 · k=5 · p_o=0.5 · m=50")).to_be_visible()
    expect(page.locator(EXCEPTION)).to_have_count(0)
    assert "Traceback" not in server_log, server_log.text


def test_play_streams_to_the_end_then_replays_in_the_browser(page: Page, server_log,
                                                              wait_for_app) -> None:
    open_small(page, wait_for_app)
    page.click(f"{PLAYER} .fe-play")
    seen: list[int] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and 40 not in seen:
        step = int(shown(page)["step"])
        if step not in seen:
            seen.append(step)
        page.wait_for_timeout(30)
    assert seen[-1] == 40 and seen == sorted(seen), seen
    assert len([s for s in seen if 0 < s < 40]) >= 5, seen
    expect(page.locator(f"{PLAYER} .fe-status")).to_contain_text("all 40 steps computed")
    page.locator("body").press("r")  # R = reset: back to step 0, no server needed
    wait_step(page, 0, 5)
    page.locator("body").press("ArrowRight")
    wait_step(page, 1, 5)
    page.locator("body").press("ArrowLeft")
    wait_step(page, 0, 5)
    page.locator("body").press(" ")  # space = play: replays the computed frames
    wait_step(page, 40, 20)
    expect(page.locator(f"{PLAYER} .fe-narr")).to_contain_text("Classifier stage, step 40")
    expect(page.get_by_role("button", name="Metrics CSV")).to_be_visible(timeout=20_000)
    expect(page.locator(EXCEPTION)).to_have_count(0)
    assert "Traceback" not in server_log, server_log.text


def test_moving_a_slider_restarts(page: Page, server_log, wait_for_app) -> None:
    open_small(page, wait_for_app)
    page.click(f"{PLAYER} .fe-step")
    wait_step(page, 1)
    run = shown(page)["run"]
    slider = page.locator('[data-testid="stSlider"]').filter(has_text="p_o").get_by_role("slider")
    slider.focus()
    page.keyboard.press("ArrowRight")  # p_o 0.50 → 0.51
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text("k=5 · p_o=0.51 · m=50")).to_be_visible(timeout=30_000)
    page.wait_for_function(f"r => document.querySelector('{PLAYER}').dataset.run !== r", arg=run)
    wait_step(page, 0)
    assert "p_o=0.51" in page.url
    expect(page.locator(EXCEPTION)).to_have_count(0)
    assert "Traceback" not in server_log, server_log.text


def test_the_view_round_trips_through_the_url(page: Page, server_log, wait_for_app) -> None:
    open_small(page, wait_for_app, speed="50", colour="sign", smooth="0.6", step="5")
    wait_step(page, 5)
    expect(page.locator(f"{PLAYER} .fe-scrub")).to_have_value("5")  # the thumb agrees
    expect(page.locator(f"{PLAYER} select.fe-speed")).to_have_value("50")
    expect(page.locator(f"{PLAYER} select.fe-colour")).to_have_value("sign")
    expect(page.locator(f"{PLAYER} select.fe-smooth")).to_have_value("0.6")
    page.select_option(f"{PLAYER} select.fe-speed", "10")
    page.evaluate("() => document.activeElement.blur()")  # arrows on a focused select change it
    page.locator("body").press("ArrowLeft")  # shown step 4
    page.wait_for_function("() => location.search.includes('speed=10')"
                           " && location.search.includes('step=4')", timeout=20_000)
    for part in ("colour=sign", "smooth=0.6", "n=2000", "T=40"):
        assert part in page.url, page.url
    expect(page.locator(EXCEPTION)).to_have_count(0)


def test_url_opens_explore_with_k7(page: Page, server_log, wait_for_app) -> None:
    page.goto("/explore?k=7&p_o=0.3")
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text("d=500 · D=100 · k=7 · p_o=0.3 · m=300")).to_be_visible(
        timeout=60_000)
    k_box = page.locator('[data-testid="stSidebar"]').get_by_label("k", exact=True)
    expect(k_box).to_have_value("7")
    expect(page.locator('[data-testid="stAlertContentWarning"]')).to_have_count(0)
    expect(page.get_by_text("Page not found")).to_have_count(0)
    expect(page.locator(EXCEPTION)).to_have_count(0)
    assert "Traceback" not in server_log, server_log.text


def test_bad_url_value_warns(page: Page, server_log, wait_for_app) -> None:
    open_small(page, wait_for_app, k="abc")
    expect(page.get_by_text("k='abc' is not allowed", exact=False)).to_be_visible()
    expect(page.locator(EXCEPTION)).to_have_count(0)


def test_presentation_mode_fits_map_accuracy_and_narration_on_one_screen(
        page: Page, wait_for_app) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    open_small(page, wait_for_app, present="1", theme="dark")
    expect(page.locator('[data-testid="stSidebar"]')).to_be_hidden()
    expect(page.locator(PLAYER)).to_have_attribute("data-theme", "dark")
    for part in (".fe-map", ".fe-acc", ".fe-narr"):
        box = page.locator(f"{PLAYER} {part}").bounding_box()
        assert box and box["width"] > 200 and box["y"] >= 0, (part, box)
        assert box["y"] + box["height"] <= 800, (part, box)  # nothing below the fold
    assert page.locator(f"{PLAYER} .fe-map").bounding_box()["width"] > 500  # side by side
    # the toggle's help "?" is a button: it was a dark square with a dark icon on the dark page
    help_icon = page.get_by_role("button", name="Help for Presentation mode")
    assert help_icon.evaluate("b => getComputedStyle(b).backgroundColor") in (
        "rgba(0, 0, 0, 0)", "transparent")
    stroke = help_icon.locator("svg").evaluate("s => getComputedStyle(s).stroke")
    assert sum(int(v) for v in stroke[4:-1].split(",")[:3]) > 450, stroke  # a light stroke
    expect(page.locator(f"{PLAYER} .fe-align")).to_be_hidden()
    page.locator("body").press("ArrowRight")  # → = one step, computed on demand
    wait_step(page, 1)
    assert "present=1" in page.url and "theme=dark" in page.url


def test_replay_far_behind_the_computed_edge_asks_the_server_for_nothing(
        page: Page, wait_for_app) -> None:
    """Play from step 0 with many frames computed: the server stays idle (on a small machine
    its training would take the browser's CPU), until the replay comes within the lead."""
    open_small(page, wait_for_app, T="400")
    page.click(f"{PLAYER} .fe-play")
    page.wait_for_function(f"() => +document.querySelector('{PLAYER}').dataset.frames >= 300",
                           timeout=120_000)
    page.click(f"{PLAYER} .fe-play")  # Pause
    page.select_option(f"{PLAYER} select.fe-speed", "5")  # lead: 6 s × 5 steps/s = 30 frames
    page.click(f"{PLAYER} .fe-reset")
    asks = int(shown(page).get("asks") or 0)
    page.click(f"{PLAYER} .fe-play")
    page.wait_for_timeout(1500)
    assert int(shown(page)["step"]) > 3  # it plays
    assert int(shown(page).get("asks") or 0) == asks  # and asked for no frame
    page.click(f"{PLAYER} .fe-play")


# Every setting the default world reads under the custom labeling, at a value other than its
# default, as strings in the URL: the page must take each into its state and write each back.
EVERY_SETTING = dict(
    labeling="custom", P="1,3", d="60", D="30", k="3", p_o="0.4", p_a="0.6",
    structure="false", neg_ratio="0.4", noise="0.05", n="600", n_test="300", seed="3", m="12",
    schedule="theory", theory="thm26", T="6", batch="100", eta1="0.5", nu1="0.1", lam_w1="2",
    lam_a1="3", xi1="0.5", eta2="2", lam_w2="0.2", lam_a2="0.3", xi2="0.2", eta="0.01",
    lam="0", xi="0.1", momentum="0.5", optimizer="sgd", optimizer_w="adam",
    eta_w="0.2", ema="0.9", intercept="false",
    lr_decay="cosine", balance="all", classifier="logreg", procedure="shi2022",
    limit_ridge="0.001")  # read: λ = 0 in the classifier stage (theory), issue 36
# Valid values this run does not read (the interval labeling's, other worlds'): each is refused
# with its reason and left out of the address (issue 22: a link carries only what runs).
UNREAD = dict(t1="1", t2="2", sigma_r="0.5", vectors="10", flip="0.1", alpha="0.3",
              real="mnist", pair="2,3")
VIEW = dict(speed="5", colour="sign", smooth="0.9", step="3")


def test_every_setting_and_the_view_round_trip_through_the_url(page: Page, server_log,
                                                                 wait_for_app) -> None:
    from urllib.parse import parse_qs, urlparse

    from engine.config import SPECS, coerce
    from engine.procedures import PROCEDURE_SETTINGS, owner_of
    from engine.scenarios import WORLD_SETTINGS

    # a new setting of the default world (or of its procedure, shi2022) must be added here;
    # another procedure's own settings are read only where it trains the run
    others = {name for name in PROCEDURE_SETTINGS if owner_of(name) != "shi2022"}
    assert set(EVERY_SETTING) == set(SPECS) - {"scenario", "t1", "t2"} - WORLD_SETTINGS - others
    assert set(UNREAD) <= set(SPECS)
    page.goto("/?" + urlencode({**EVERY_SETTING, **UNREAD, **VIEW}))
    wait_for_app(page, timeout_ms=180_000)
    wait_step(page, 3, timeout_s=120)
    warnings = page.locator('[data-testid="stAlertContentWarning"]')
    expect(warnings).to_have_count(len(UNREAD))  # one per refused value, none for the others
    text = " ".join(warnings.all_inner_texts())
    assert all(f"{name}=" in text for name in UNREAD), text
    expect(page.locator(f"{PLAYER} select.fe-colour")).to_have_value("sign")
    expect(page.locator(f"{PLAYER} select.fe-speed")).to_have_value("5")
    expect(page.locator(f"{PLAYER} select.fe-smooth")).to_have_value("0.9")
    page.locator("body").press("ArrowLeft")  # the view changes: shown step 2
    page.wait_for_function("() => location.search.includes('step=2')", timeout=20_000)
    query = {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}
    for name, value in EVERY_SETTING.items():  # the same value (written canonically: 2 → 2.0)
        assert name in query and coerce(name, query[name]) == coerce(name, value), (name, page.url)
    assert not set(UNREAD) & set(query), page.url
    for name, value in {**VIEW, "step": "2"}.items():
        assert query.get(name) == value, (name, page.url)
    expect(page.locator(EXCEPTION)).to_have_count(0)
    assert "Traceback" not in server_log, server_log.text


DROP_BATCHES = "() => { globalThis.FE_PLAYER.store.append = () => 0; }"  # lost on the way
KEEP_BATCHES = "() => { delete globalThis.FE_PLAYER.store.append; }"


def test_a_lost_last_batch_is_asked_for_again(page: Page, server_log, wait_for_app) -> None:
    """A batch the browser never saw while the server counts it as sent, with no later batch
    to reveal the gap: a paused player used to wait for ever (CI: a link with step=5 stuck at
    step 0). The waiting player asks again, saying what it holds, and the server resends."""
    # a seed of its own: the run hub gives a run that another test's page computed whole
    open_small(page, wait_for_app, seed=7101)
    # steps 1 and 2 come without being asked for (Play starts at once)
    page.wait_for_function(f"() => document.querySelector('{PLAYER}').dataset.frames === '3'",
                           timeout=60_000)
    page.evaluate(DROP_BATCHES)
    for _ in range(3):  # to step 2, then at the edge: the server computes frame 3 and sends it
        page.click(f"{PLAYER} .fe-step")
    page.wait_for_timeout(3000)  # ... and every copy of it is lost
    assert shown(page)["step"] == "2" and shown(page)["frames"] == "3", shown(page)
    page.evaluate(KEEP_BATCHES)
    wait_step(page, 3, 10)
    assert int(shown(page).get("reasks", 0)) >= 1, shown(page)
    expect(page.locator(EXCEPTION)).to_have_count(0)
    assert "Traceback" not in server_log, server_log.text
