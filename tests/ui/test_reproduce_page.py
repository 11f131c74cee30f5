"""AppTest tests of the Reproduce page: cards for the paper's figures, tables and presets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine.compare import Comparison
from engine.config import summary_line
from engine.presets import PRESETS, preset_config
from engine.procedures import RECORDS
from engine.procedures.gfl.cards import GROUP, stored
from engine.procedures.shi2022.guide import CURVE_METHODS
from engine.report import cell
from ui.reproduce_cards import FIGURES, command, paper_table, presets_of, stored_results

AZL = RECORDS["resnet3"].cards  # the AZL world's group of cards, from its procedure's package


def gfl_presets():
    return presets_of("gfl")


def azl_presets():
    return presets_of("resnet3")

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
    # + the chapter-3 cards and the AZL cards
    assert len(tables) == len(TABLE_PRESETS) + len(gfl_presets()) + len(azl_presets())
    table1 = tables[0]
    assert table1.loc["Test % · paper", "NTK"] == "86.4"
    assert table1.loc["Cos · paper", "NTK"] == "NA"
    assert table1.loc["Test % · paper", "w/o struct."] == "52.0"
    # our stored numbers beside them (docs/results/tables.json)
    ours = stored_results()["paper-parity"]["methods"]
    assert table1.loc["Test % · ours", "NTK"] == cell("test_acc", ours["ntk"]["test_acc"])
    assert table1.loc["Cos · ours", "One Step"] == cell("cos", ours["one_step"]["cos"])
    assert any("Ours: seed 0 on this engine" in c.value for c in at.caption)


def test_every_other_preset_has_a_card_grouped_by_source(at: AppTest) -> None:
    own_groups = {p.name for p in (*gfl_presets(), *azl_presets())}
    others = [p for p in PRESETS.values() if not p.paper and p.name not in own_groups]
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
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value.startswith("Compare")  # the Compare page rendered
    state = at.session_state["app"]
    assert state.compare.methods == CURVE_METHODS
    assert at.multiselect(key="compare_methods").value == list(CURVE_METHODS)


def test_a_world_with_its_own_methods_opens_compare_with_them(at: AppTest) -> None:
    """The AZL card: Compare opens with its procedure's five methods, by their own names."""
    at.button(key="preset-azl-resnet-compare").click().run()
    assert not at.exception, [e.value for e in at.exception]
    state = at.session_state["app"]
    assert state.preset == "azl-resnet"
    assert state.compare.methods == ("resnet3", "fc3", "two_layer", "ntk", "last_layer")


def test_open_in_explore_loads_the_preset(at: AppTest) -> None:
    at.button(key="preset-quick-parity-explore").click().run()
    assert not at.exception, [e.value for e in at.exception]
    state = at.session_state["app"]
    assert state.preset == "quick-parity"
    assert state.cfg == preset_config("quick-parity")
    # Explore rendered the preset: its setting line and the player with the run's first frame
    assert any(summary_line(state.cfg) in m.value for m in at.markdown)
    player = [e for e in at.get("bidi_component") if e.proto.component_name.endswith("player")]
    assert player and json.loads(player[-1].proto.json)["meta"]["T"] == state.cfg.T


def test_paper_table_layout() -> None:
    paper = PRESETS["paper-parity-ratio0.8"].paper
    frame = paper_table(paper)
    assert list(frame.index) == ["Train % · paper", "Test % · paper", "Cos · paper"]
    assert frame.loc["Train % · paper", "NTK"] == "62.9"
    assert frame.loc["Cos · paper", "RF"] == "0.293"
    frame = paper_table(paper, {"rf": {"train_acc": 0.5, "test_acc": None, "cos": 0.1234}})
    assert list(frame.index)[:2] == ["Train % · paper", "Train % · ours"] and len(frame) == 6
    assert frame.loc["Train % · ours", "RF"] == "50.0" and frame.loc["Cos · ours", "RF"] == "0.123"
    assert frame.loc["Test % · ours", "RF"] == "NA" and frame.loc["Test % · ours", "NTK"] == "NA"


def test_stored_results_cover_every_table_and_match_the_engine() -> None:
    tables = stored_results()
    assert set(TABLE_PRESETS) | {"paper-parity-seeds5"} == set(tables)
    for name in TABLE_PRESETS:
        assert set(tables[name]["methods"]) == set(PRESETS[name].paper), name
    ours = tables["paper-parity"]["methods"]  # Figure 1's card quotes them
    ntk, rf = (round(100 * ours[m]["test_acc"]) for m in ("ntk", "rf"))
    assert f"this engine at seed 0: {ntk} % and {rf} %" in FIGURES[0].look_for
    # the cheapest full-size Table preset, re-run now: the stored numbers are this engine's
    # (a tolerance for another CPU's float rounding, far below any real change)
    comp = Comparison(preset_config("paper-interval"), device="cpu", embed=False)
    comp.run_all()
    for method, got in comp.summary().items():
        want = tables["paper-interval"]["methods"][method]
        assert abs(got["test_acc"] - want["test_acc"]) <= 0.005, method
        assert abs(got["train_acc"] - want["train_acc"]) <= 0.005, method
        if want["cos"] is not None:
            assert abs(got["cos"] - want["cos"]) <= 0.005, method


def test_cost_note_says_when_the_server_refuses_a_live_compare(monkeypatch) -> None:
    from ui.reproduce_cards import cost_note

    assert cost_note("quick-parity").startswith("Live Compare of its 6 methods here: about")
    monkeypatch.setenv("FEX_MAX_T", "100")
    note = cost_note("quick-parity")  # T=200
    assert note.startswith("Too large") and "T=200" in note and "command line" in note


def test_the_dissertation_chapter_3_group_has_a_card_per_gfl_preset(at: AppTest) -> None:
    """Issue 21 item 4: the source's claim beside our stored numbers, no numbers claimed for it."""
    names = [p.name for p in gfl_presets()]
    assert len(names) == 6 and all(f"preset-{n}-compare" in keys(at) for n in names)
    assert GROUP in {h.value for h in at.header}
    assert any("runs no experiments" in c.value and "every number is ours" in c.value
               for c in at.caption)
    claims = [m.value for m in at.markdown if m.value.startswith("**The source's claim:**")]
    assert len(claims) == 6
    ours = [df.value for df in at.dataframe if "coverage 0 → 1 → T" in df.value.columns]
    assert len(ours) == 6
    results = stored()
    rf = results["gfl-multi-index"]["methods"]["rf"]  # the regression world: MSE / Var(y)
    assert any(df.loc["rf", "test"] == f"MSE/Var {rf['test_mse_ratio']:.3f}" for df in ours)
    xor = results["gfl-xor"]["methods"]["network"]
    assert any(df.loc["network", "test"] == f"{100 * xor['test_acc']:.1f} %" for df in ours)


def test_the_azl_group_has_a_card_per_preset_with_the_stored_numbers(at: AppTest) -> None:
    """Issue 24 item 4: Figure 2's claims beside our numbers over three seeds, per method, with
    whether each is below kα² (the source gives no per-method numbers)."""
    names = [p.name for p in azl_presets()]
    assert names == ["azl-resnet", "azl-literal", "azl-k15", "azl-n1000"]
    assert all(f"preset-{n}-explore" in keys(at) for n in names)
    assert AZL.title in {h.value for h in at.header}
    assert any("every number here is ours" in c.value for c in at.caption)
    claims = [m.value for m in at.markdown if m.value.startswith("**The source's claims:**")]
    assert len(claims) == 4 and "[L241]" in claims[0]
    ours = [df.value for df in at.dataframe if "c_G" in df.value.columns]
    assert len(ours) == 4
    entry = AZL.stored()["azl-resnet"]
    res, two = entry["methods"]["resnet3"], entry["methods"]["two_layer"]
    table = ours[0]
    assert table.loc["3-layer ResNet", "test error"].startswith(f"{res['test_err']:.3f}")
    assert table.loc["3-layer ResNet", "below kα² = 0.72"] == "yes"
    assert table.loc["2-layer", "below kα² = 0.72"] == "no"
    assert table.loc["2-layer", "c_G"] == f"{two['c_G']:.2f}"
    k15 = ours[2]  # its own line: kα² = 1.35 with k = 15 outputs
    assert any(c.startswith("below kα² = 1.35") for c in k15.columns)


def test_the_title_and_intro_name_every_registered_source(at: AppTest) -> None:
    """Issue 35: the page speaks for no one paper; its intro lists each registered procedure's
    and world's citation, read from the records, so a new one's appears by registering."""
    from engine import scenarios
    assert at.title[0].value == "Reproduce the sources"
    intro = " ".join(m.value for m in at.markdown)
    found = [r.source for r in RECORDS.values()]
    found += [w.source for w in scenarios.WORLDS.values() if w.source is not None]
    for source in found:
        assert source.citation in intro, source.citation
    assert "Daniely & Malach" in intro and "Allen-Zhu & Li" in intro


def test_the_tables_header_is_the_one_its_procedure_tells(at: AppTest) -> None:
    """The header and caption over the paper's table presets are the shi2022 record's data."""
    tables = RECORDS["shi2022"].tables
    assert tables.title in {h.value for h in at.header}
    assert tables.note in {c.value for c in at.caption}
