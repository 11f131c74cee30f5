"""The browser player's files stay readable (under ~300 lines each, the project's rule), and
the page and the offline HTML load every one of them, the core first (the others extend FE)."""

from __future__ import annotations

from pathlib import Path

from ui import playback

PLAYER = Path(playback.__file__).resolve().parent / "player"


def test_every_player_file_is_under_300_lines():
    sizes = {p.name: len(p.read_text().splitlines()) for p in PLAYER.glob("*.js")}
    assert sizes and all(n <= 300 for n in sizes.values()), sizes


def test_the_player_code_loads_every_drawing_file_core_first():
    code = playback.player_js()
    drawing = [p for p in PLAYER.glob("*.js") if p.name != "component.js"]
    assert all(p.read_text() in code for p in drawing)
    assert code.startswith((PLAYER / "player.js").read_text())
    assert code.index("const FE = (() =>") < code.index("drawMap") < code.index("drawSeries")
