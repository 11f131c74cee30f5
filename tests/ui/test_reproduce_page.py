"""AppTest tests of the Reproduce page: cards for the paper's figures, tables and presets."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine.presets import PRESETS, preset_config
from ui.reproduce_cards import CURVE_METHODS, FIGURES, command, paper_table

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TABLE_PRESETS = [n for n, p in PRESETS.items() if p.paper]


@pytest.fixture
def at() -> AppTest:
    app = AppTest.from_file(APP, default_timeout=120)
    app.switch_page("pages/reproduce.py").run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def keys(at: AppTest) -> set[str]:
    return {b.key for b in at.button}


def test_a_card_for_every_table_preset_with_the_papers_numbers(at: AppTest) -> None:
    assert len(TABLE_PRESETS) == 8  # Tables 1, 2 and two settings each of Tables 3, 4, 5
    for name in TABLE_PRESETS:
        assert {f"preset-{name}-explore", f"preset-{name}-compare"} <= keys(at)
    codes = {c.value for c in at.code}
    assert all(command(n) in codes for n in PRESETS)
    tables = [df.value for df in at.dataframe]
    assert len(tables) == len(TABLE_PRESETS)
    table1 = tables[0]
    assert table1.loc["Test %", "NTK"] == "86.4" and table1.loc["Cos", "NTK"] == "NA"
    assert table1.loc["Test %", "w/o struct."] == "52.0"


def test_every_other_preset_has_a_card_grouped_by_source(at: AppTest) -> None:
    others = [p for p in PRESETS.values() if not p.paper]
    assert others, "quick-parity and theory-parity are always registered"
    for p in others:
        assert f"preset-{p.name}-compare" in keys(at)
    subheaders = {s.value for s in at.subheader}
    assert {p.source for p in others} <= subheaders


def test_figure_cards_name_their_presets(at: AppTest) -> None:
    titles = " ".join(m.value for m in at.markdown)
    for fig in FIGURES:
        assert fig.title in titles
        assert f"fig{FIGURES.index(fig)}-{fig.preset}-compare" in keys(at)


def test_open_in_compare_loads_the_preset_and_switches_page(at: AppTest) -> None:
    at.button(key="preset-paper-parity-n10000-compare").click().run()
    assert not at.exception, [e.value for e in at.exception]
    state = at.session_state["app"]
    assert state.preset == "paper-parity-n10000"
    assert state.cfg == preset_config("paper-parity-n10000")
    assert state.cfg.n == 10000 and state.cfg.m == 50
    assert at.title[0].value.startswith("Compare")
    assert any("preset **paper-parity-n10000**" in m.value for m in at.markdown)


def test_figure_1_opens_compare_with_the_curve_methods(at: AppTest) -> None:
    at.button(key="fig0-paper-parity-compare").click().run()
    state = at.session_state["app"]
    assert state.compare.methods == CURVE_METHODS
    assert at.multiselect(key="compare_methods").value == list(CURVE_METHODS)


def test_open_in_explore_loads_the_preset(at: AppTest) -> None:
    at.button(key="preset-quick-parity-explore").click().run()
    state = at.session_state["app"]
    assert state.preset == "quick-parity"
    assert state.cfg == preset_config("quick-parity")
    assert not at.title or not at.title[0].value.startswith("Reproduce")


def test_paper_table_layout() -> None:
    frame = paper_table(PRESETS["paper-parity-ratio0.8"].paper)
    assert list(frame.index) == ["Train %", "Test %", "Cos"]
    assert frame.loc["Train %", "NTK"] == "62.9" and frame.loc["Cos", "RF"] == "0.293"


def test_cost_note_says_when_the_server_refuses_a_live_compare(monkeypatch) -> None:
    from ui.reproduce_cards import cost_note

    assert cost_note("quick-parity").startswith("Live Compare of the six methods here: about")
    monkeypatch.setenv("FEX_MAX_T", "100")
    note = cost_note("quick-parity")  # T=200
    assert note.startswith("Too large") and "T=200" in note and "command line" in note
