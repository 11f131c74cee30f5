"""The conformance suite's page part (issue 35): for every registered procedure × every world it
trains with (tests/engine/conformance.py), Compare runs its default methods to the end in the
real app (AppTest) and shows the run's own credit, labels and bands; Explore's offline HTML and
GIF carry that credit. For every registered procedure, the Guide draws its sections (its
package's, or the one its record tells) and Reproduce its figures and its group of cards (or
its presets among the others)."""

from __future__ import annotations

from pathlib import Path

import plotly.io
import pytest
from streamlit.testing.v1 import AppTest

from engine.frames import FrameStream
from engine.procedures import RECORDS, offered, source_of
from engine.procedures.views import sections, text_of
from engine.scenarios import WORLDS, reads_common
from tests.engine.conformance import case_id, cases, tiny
from ui import export, gif
from ui import reproduce_cards as rc
from ui.limit_cells import limit_cell
from ui.state import AppState, url_params

APP = str(Path(__file__).resolve().parents[2] / "app.py")
CASES = cases()
IDS = [case_id(c) for c in CASES]


_COMPARED: dict = {}


def compared(case) -> AppTest:
    """The case's Compare page (its record's defaults) run to the end, once per case: the
    checks below read the same finished page."""
    if case not in _COMPARED:
        cfg, record = tiny(case[1], case[0]), RECORDS[case[0]]
        _COMPARED[case] = compare_to_end(url_params(cfg, record.defaults))
    return _COMPARED[case]


def compare_to_end(params: dict, max_ticks: int = 300) -> AppTest:
    """The Compare page of the URL query, Play pressed, ticked until its summary."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(params)
    at.switch_page("pages/compare.py").run()
    assert not at.exception, [e.value for e in at.exception]
    at.button(key="compare_play").click().run()
    for _ in range(max_ticks):
        cs = at.session_state["app"].compare
        if cs.summary is not None or cs.error or at.exception:
            break
        at.run()
    return at


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_compare_runs_to_the_end_in_the_runs_own_words(case):
    cfg, record = tiny(case[1], case[0]), RECORDS[case[0]]
    at = compared(case)
    cs = at.session_state["app"].compare
    errors = [e.value for e in (*at.error, *at.exception)] + ([cs.error] if cs.error else [])
    assert errors == [] and cs.summary is not None, (case, errors)
    assert set(cs.summary["methods"]) == set(offered(cfg).defaults)
    captions = " ".join(c.value for c in at.caption)
    assert source_of(cfg).citation in captions, case
    if not reads_common(WORLDS[case[1]], "structure"):  # no run without it to speak of
        assert "A1′" not in captions and "without it" not in captions, (case, captions)
    labels = set(record.labels().values())
    for chart in at.get("plotly_chart"):  # every curve is named by the record's labels
        fig = plotly.io.from_json(chart.proto.spec)
        names = {t.name.split(" · ")[-1] for t in fig.data
                 if t.name and t.showlegend is not False and "limit" not in t.name}
        assert names <= labels, (case, names - labels)
        groups = {t.legendgrouptitle.text for t in fig.data if t.legendgrouptitle.text}
        assert len(groups) != 1, (case, groups)  # one group's title is a claim about nothing


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_compare_offers_no_structure_methods_only_where_the_world_reads_structure(case):
    """Compare's method list (its options and its default choice) has a w/o-structure method
    only for a world that reads the `structure` setting (its record's `common`): elsewhere it
    would train the same world twice ("+0.0 points")."""
    record = RECORDS[case[0]]
    at = compared(case)  # the page of the record's defaults; its list is the same after Play
    assert not at.exception, [e.value for e in at.exception]
    box = at.multiselect(key="compare_methods")
    names = {text: m for m, text in record.labels().items()}  # the options show labels
    shown = {names.get(o, o) for o in box.options} | set(box.value)
    without = {m for m in shown if not record.method(m).structure}
    if not reads_common(WORLDS[case[1]], "structure"):
        assert without == set(), (case, without)
    assert shown, case


@pytest.mark.parametrize("case", [c for c in CASES if not RECORDS[c[0]].schedule],
                         ids=[case_id(c) for c in CASES if not RECORDS[c[0]].schedule])
def test_the_sidebar_speaks_of_no_schedule_where_the_procedure_has_none(case):
    """Explore's sidebar: no "schedule" in a group's title where the run trains by none."""
    cfg, record = tiny(case[1], case[0]), RECORDS[case[0]]
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(url_params(cfg, record.defaults))
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    titles = [e.label for e in at.sidebar.expander] + [h.value for h in at.sidebar.subheader]
    assert titles and not [t for t in titles if "schedule" in t.lower()], (case, titles)


def explored(case) -> AppState:
    """The case's AppState with its Explore stream played to the end (no page: the exports
    read the stream, as the download buttons do); only the selected cases are played."""
    cfg = tiny(case[1], case[0])
    state = AppState(cfg=cfg)
    state.explore.stream, state.explore.run_cfg = FrameStream(cfg, device="cpu"), cfg
    state.explore.stream.advance()
    return state


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_offline_html_and_gif_carry_the_runs_credit(case):
    state = explored(case)
    credit = source_of(state.explore.run_cfg)
    page = export.export_html(state, "conformance")
    assert credit.citation in page.replace("&amp;", "&"), case
    meta = gif.gif_meta(state)
    assert meta["credit"] == credit.citation
    shot = gif.decode(meta, gif.playback.pack(state, 0, 1))
    assert gif.frame(shot, meta, 1.0).info["credit"] == credit.citation


def test_the_compare_legend_and_bands_are_the_records():
    """shi2022's chart: its groups' titles and its steps 1–2 band; fcb2022's: its own step-1
    band and no "with structure" group (the paper's defaults on main)."""
    for name, world in (("shi2022", "sparse_coding"), ("fcb2022", "fcb")):
        record = RECORDS[name]
        at = compared((name, world))
        fig = plotly.io.from_json(at.get("plotly_chart")[0].proto.spec)
        groups = {t.legendgrouptitle.text for t in fig.data if t.legendgrouptitle.text}
        assert groups <= {title for title, _ in record.table.groups}, (name, groups)
        notes = {a.text for a in fig.layout.annotations or ()}
        assert {w for _, _, w in record.table.bands} <= notes, (name, notes)
        if name == "fcb2022":
            assert "steps 1–2" not in notes and "with structure" not in groups


def opened(page: str) -> AppTest:
    """A page of the app, drawn once, with no exception."""
    at = AppTest.from_file(APP, default_timeout=300)
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown_text(at: AppTest) -> str:
    """Every text a page draws (st.write of a string is Markdown)."""
    parts = (at.markdown, at.latex, at.info, at.caption, at.subheader, at.header)
    return "\n".join(e.value for part in parts for e in part)


@pytest.fixture(scope="module")
def guide_page() -> AppTest:
    return opened("pages/guide.py")


@pytest.fixture(scope="module")
def reproduce_page() -> AppTest:
    return opened("pages/reproduce.py")


@pytest.mark.parametrize("name", list(RECORDS))
def test_the_guide_tells_every_procedure(guide_page, name):
    """Each of its sections is a numbered header with every block's text under it."""
    headers, text = [h.value for h in guide_page.header], shown_text(guide_page)
    for section in sections(RECORDS[name]):
        assert any(h.split(" · ", 1)[-1] == section.title for h in headers), (name, headers)
        for kind, body in section.blocks:
            assert kind == "table" or text_of(body) in text, (name, section.title, kind)


@pytest.mark.parametrize("name", list(RECORDS))
def test_reproduce_shows_every_procedures_figures_and_cards(reproduce_page, name):
    """Its figures' cards; its group's header, note and each card's body (texts and tables);
    without a group, each of its presets as a card among the others (or the download note)."""
    at, record = reproduce_page, RECORDS[name]
    keys, text = {b.key for b in at.button}, shown_text(at)
    for fig in record.figures:
        assert f"### {fig.title}" in text, (name, fig.title)
    presets = rc.presets_of(name)
    for p in presets:
        assert f"preset-{p.name}-explore" in keys or rc.needs_download(p.name), (name, p.name)
    if record.cards is None or not presets:
        return
    assert record.cards.title in {h.value for h in at.header} and record.cards.note in text
    frames = [df.value for df in at.dataframe]
    for p in presets:
        entry = record.cards.stored().get(p.name)
        for kind, body in record.cards.body(p, entry, limit_cell):
            if kind == "table":
                assert any(list(f.index) == list(body[1]) for f in frames), (name, p.name)
            else:
                assert text_of(body) in text, (name, p.name, kind)
