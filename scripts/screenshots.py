"""Screenshots of each page of the real running app, in headless system Chromium.

    .venv/bin/python scripts/screenshots.py                      # all pages -> assets/<page>.png
    .venv/bin/python scripts/screenshots.py --pages explore --query "seed=3" --wait-text "Step"
    .venv/bin/python scripts/screenshots.py --wait-text "explore=Accuracy" --wait-text "guide=Setup"
    .venv/bin/python scripts/screenshots.py --url http://localhost:8501   # use a running app
    .venv/bin/python scripts/screenshots.py --pages explore --query "T=60" --play \
        --click "sign of a_i" --suffix sign          # -> assets/explore-sign.png after a run
    .venv/bin/python scripts/screenshots.py --pages compare \
        --query "d=100&D=50&n=10000&n_test=4000&m=100&T=200" --play --done-text "Table 1 layout"

    .venv/bin/python scripts/screenshots.py --pages explore --query "present=1&theme=dark" \
        --play --show-step 1 --width 1280 --height 800 --viewport-only --suffix present-dark

Starts `streamlit run app.py` on a free port (scripts/serve.py) unless --url is given, opens
each page (st.navigation url paths; the default page is opened at "/"), waits until the script
run has finished and every chart has drawn (Plotly charts and the Explore player's canvases),
then saves a full-page PNG (or only the window with --viewport-only). A page the app does not
have is reported and skipped. On Explore, --play plays the run to its end in the browser
player and --show-step K then goes back to step K (keys R and →).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a file: make `scripts.serve` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scripts.serve import CHROMIUM_ARGS, ROOT, find_chromium, start_app, wait_for_app_run
from ui.page_list import PAGES as APP_PAGES

PAGES = tuple(p.slug for p in APP_PAGES)

# Plotly draws into .main-svg inside each chart container once it has rendered; the Explore
# player marks its root with data-draws once its canvases are painted.
_CHARTS_DRAWN_JS = """() => {
  const charts = document.querySelectorAll('[data-testid="stPlotlyChart"]');
  const player = document.querySelector('.fe-player');
  return Array.from(charts).every(c => c.querySelector('.main-svg'))
    && (!player || +player.dataset.draws > 0);
}"""

# Streamlit scrolls inside its main container, so a "full page" screenshot of the window would
# only show the viewport: measure the content and grow the viewport to fit it instead.
_CONTENT_HEIGHT_JS = """() => {
  const els = [document.documentElement,
               document.querySelector('[data-testid="stAppViewContainer"]'),
               document.querySelector('[data-testid="stMain"]'),
               document.querySelector('[data-testid="stMainBlockContainer"]')];
  return Math.max(...els.filter(Boolean).map(e => e.scrollHeight));
}"""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--pages", nargs="+", default=list(PAGES), help="url paths (default: all)")
    p.add_argument(
        "--default-page", default=PAGES[0], help="the page served at / (default: %(default)s)"
    )
    p.add_argument("--out", type=Path, default=ROOT / "assets", help="output folder")
    p.add_argument("--url", help="base URL of an already running app (default: start one)")
    p.add_argument("--query", default="", help='query string for every page, e.g. "seed=3&m=300"')
    p.add_argument(
        "--wait-text",
        action="append",
        default=[],
        metavar="[PAGE=]TEXT",
        help="text to wait for before the screenshot (repeatable; PAGE= limits it to one page)",
    )
    p.add_argument("--play", action="store_true",
                   help="press Play and wait until --done-text shows (live pages)")
    p.add_argument("--done-text", default="finished",
                   help="text that shows when a played run is over (Compare: 'Table 1 layout')")
    p.add_argument("--click", action="append", default=[], metavar="TEXT",
                   help="click the button or segment labelled TEXT before the shot (repeatable)")
    p.add_argument("--show-step", type=int, default=None,
                   help="Explore player: after --play, show this step")
    p.add_argument("--viewport-only", action="store_true",
                   help="shoot the window as it is (what fits on one screen), not the full page")
    p.add_argument("--suffix", default="", help="file name <page>-<suffix>.png")
    p.add_argument("--settle", type=float, default=1.5, help="extra seconds after rendering")
    p.add_argument("--timeout", type=float, default=90.0, help="seconds to wait per page")
    p.add_argument("--width", type=int, default=1400)
    p.add_argument("--height", type=int, default=900, help="minimum viewport height")
    p.add_argument("--max-height", type=int, default=6000, help="cap on the full-page height")
    return p.parse_args(argv)


def wait_texts(specs: list[str], name: str) -> list[str]:
    """The --wait-text values that apply to page `name` ("TEXT" or "PAGE=TEXT")."""
    out = []
    for spec in specs:
        page, sep, text = spec.partition("=")
        if sep and page in PAGES:
            if page == name:
                out.append(text)
        else:
            out.append(spec)
    return out


def shoot(page, base: str, name: str, args: argparse.Namespace) -> Path | None:
    path = "" if name == args.default_page else name
    url = f"{base}/{path}" + (f"?{args.query.lstrip('?')}" if args.query else "")
    timeout_ms = args.timeout * 1000
    page.set_viewport_size({"width": args.width, "height": args.height})
    page.goto(url)
    try:
        wait_for_app_run(page, timeout_ms=timeout_ms)
    except Exception:  # a run_every fragment keeps the app "running": go on with what is there
        print(f"  {name}: app still running after {args.timeout:.0f} s, taking the shot anyway")
    if page.get_by_text("Page not found").count():
        print(f"  {name}: the app has no page '{name}', skipped")
        return None
    for text in wait_texts(args.wait_text, name):
        page.get_by_text(text).first.wait_for(state="visible", timeout=timeout_ms)
    act(page, args, timeout_ms)
    page.wait_for_function(_CHARTS_DRAWN_JS, timeout=timeout_ms)
    time.sleep(args.settle)
    if not args.viewport_only:
        height = min(max(args.height, int(page.evaluate(_CONTENT_HEIGHT_JS))), args.max_height)
        page.set_viewport_size({"width": args.width, "height": height})
        time.sleep(0.5)  # let the layout settle at the new size
    if page.locator('[data-testid="stException"]').count():
        print(f"  {name}: WARNING: the page shows an exception")
    out = args.out / (f"{name}-{args.suffix}.png" if args.suffix else f"{name}.png")
    page.screenshot(path=str(out), full_page=not args.viewport_only)
    return out


def act(page, args: argparse.Namespace, timeout_ms: float) -> None:
    """Optional interaction before the shot: Play to the end, then clicks."""
    main = page.locator('[data-testid="stMain"]')
    if args.play and page.locator(".fe-player").count():
        play_player(page, args.show_step, timeout_ms)
    elif args.play:
        main.get_by_role("button", name="Play", exact=True).click()
        main.get_by_text(args.done_text, exact=False).first.wait_for(state="visible",
                                                                     timeout=timeout_ms)
    for text in args.click:
        main.get_by_text(text, exact=True).first.click()
        time.sleep(0.5)
        wait_for_app_run(page, timeout_ms=timeout_ms)


def play_player(page, show_step: int | None, timeout_ms: float) -> None:
    """Explore's player: Play to the last step, then (optionally) back to step `show_step`."""
    page.select_option(".fe-player select.fe-speed", "100")
    page.click(".fe-player .fe-play")
    page.wait_for_function("""() => { const p = document.querySelector('.fe-player');
        return p && p.dataset.playing === '0' && p.dataset.step === String(p.dataset.frames - 1)
               && /all \\d+ steps computed/.test(p.textContent); }""", timeout=timeout_ms)
    page.select_option(".fe-player select.fe-speed", "20")
    if show_step is not None:
        page.locator("body").press("r")
        for _ in range(show_step):
            page.locator("body").press("ArrowRight")
    page.mouse.move(0, 0)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from playwright.sync_api import sync_playwright

    chromium = find_chromium()
    if chromium is None:
        print("No system Chromium found (Debian: apt-get install chromium).", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    server = None
    if args.url:
        base = args.url.rstrip("/")
    else:
        server = start_app()
        base = server.url
        print(f"app at {base} (log: {server.log_path})")
    written: list[Path] = []
    failed: list[str] = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=chromium, headless=True, args=list(CHROMIUM_ARGS)
            )
            page = browser.new_page(viewport={"width": args.width, "height": args.height})
            for name in args.pages:
                try:
                    path = shoot(page, base, name, args)
                except Exception as exc:  # noqa: BLE001 - report and go on with the other pages
                    print(f"  {name}: FAILED: {type(exc).__name__}: {str(exc).splitlines()[0]}")
                    failed.append(name)
                    continue
                if path is not None:
                    print(f"  {name}: {path}")
                    written.append(path)
            browser.close()
    finally:
        if server is not None:
            server.stop()
            if "Traceback" in server.log_text():
                print(f"WARNING: the server log has a Traceback: {server.log_path}")
    return 0 if written and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
