"""README pictures of the stored preset sweeps: `python -m ui.sweep_pictures` (headless Chromium).

Writes assets/sweep-separation-vs-k.png (test accuracy over k) and
assets/sweep-structure-strength.png (network − NTK heat map over p_o × structure) from
docs/results/sweep-*.sqlite; the figures are the Sweep page's own (ui/figures.py).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd
from playwright.sync_api import sync_playwright

from scripts.serve import CHROMIUM_ARGS, find_chromium
from ui import sweep_data as sd
from ui.figures import heatmap, lines

ROOT = Path(__file__).resolve().parents[1]


def figures() -> dict[str, object]:
    """name → Plotly figure."""
    df, axes, _ = sd.load_frame(ROOT / "docs/results/sweep-separation-vs-k.sqlite")
    parts = [sd.over_seeds(sd.per_seed(df, axes, "test_acc", m), ["k"]).assign(method=m)
             for m in ("network", "ntk", "rf")]
    sep = lines(pd.concat(parts), "k", "separation vs k: test accuracy (mean ± std, 3 seeds)",
                "test accuracy")
    df, axes, _ = sd.load_frame(ROOT / "docs/results/sweep-structure-strength.sqlite")
    diff = sd.over_seeds(sd.per_seed(df, axes, "test_acc", "network", "ntk"),
                         ["p_o", "structure"])
    struct = heatmap(diff, "p_o", "structure", "structure strength: Network − NTK test "
                     "accuracy (mean over 3 seeds)", diverging=True)
    return {"sweep-separation-vs-k": sep, "sweep-structure-strength": struct}


def main() -> None:
    """Render every figure to assets/NAME.png."""
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=find_chromium(), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 900, "height": 560})
        for name, fig in figures().items():
            fig.update_layout(width=880, template="plotly_white")
            html = Path(tmp) / f"{name}.html"
            fig.write_html(html, include_plotlyjs=True, full_html=True)
            page.goto(html.as_uri())
            page.wait_for_selector(".main-svg")
            page.locator(".plotly").first.screenshot(path=str(ROOT / "assets" / f"{name}.png"))
            print(f"assets/{name}.png")
        browser.close()


if __name__ == "__main__":
    main()
