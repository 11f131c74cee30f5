"""The Guide's glossary defines every probe a view shows. The names come from the engine: each
procedure record's chart terms and its frame maker's TERMS (what its probes text, curves and
narration name); the Guide page (AppTest) must have a row for each, naming that procedure, and
each maker's terms must appear in its own probes text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine.frames import MAKERS
from engine.presets import preset_config
from engine.procedures import RECORDS, shown_terms
from engine.procedures.resnet3.frames import PROBES as AZL_PROBES
from engine.worlds import build_world

APP = str(Path(__file__).resolve().parents[2] / "app.py")


@pytest.fixture(scope="module")
def rows() -> list[tuple[str, str, str]]:
    """(symbol, meaning, procedures) of every row of the Guide's symbol tables."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("pages/guide.py").run()
    assert not at.exception
    out = []
    for md in at.markdown:
        for line in md.value.splitlines():
            cells = [c.strip().replace("\\|", "|")
                     for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
            if line.startswith("|") and len(cells) >= 2 and not set(cells[0]) <= set("-"):
                out.append((cells[0], cells[1], cells[2] if len(cells) > 2 else ""))
    return out


CASES = [(name, term) for name, r in RECORDS.items()
         for term in shown_terms(r, MAKERS[r.frame].TERMS)]


def test_the_named_probes_are_there():
    """The probes issue 28 names are among the engine's shown terms."""
    named = {t for _, t in CASES}
    assert {"coverage", "relevant share", "c_F", "c_G", "kα²", "pair purity"} <= named


@pytest.mark.parametrize(("procedure", "term"), CASES, ids=[f"{p}-{t}" for p, t in CASES])
def test_the_guide_defines_each_probe_a_view_shows(rows, procedure, term):
    short = RECORDS[procedure].source.short
    found = [r for r in rows if r[0] == term and short in r[2]]
    assert found, f"the Guide does not define {term!r} for {procedure} ({short})"
    assert all(len(r[1]) > 15 for r in found)  # a meaning, not a placeholder


def test_each_makers_terms_are_in_its_probes_text():
    """A maker's TERMS are what its 'Measured' text names (so the list follows the text)."""
    gfl = MAKERS["gfl"].__new__(MAKERS["gfl"])
    gfl.world = build_world(preset_config("gfl-xor").replace(n=300, n_test=200, m=8,
                                                               batch=50), "cpu")
    paper = MAKERS["engine"].__new__(MAKERS["engine"])
    paper.world = build_world(preset_config("quick-parity").replace(n=300, n_test=200,
                                                                    batch=50), "cpu")
    texts = {"gfl": gfl.probes(), "engine": paper.probes(), "azl": AZL_PROBES}
    words = {"test accuracy": "accuracy", "cos": "cosine", "V's support share": "V's share",
             "on a pair star": "within cos 0.9", "on a direction": "on a direction",
             "D_j": "D_j", "relevant share": "relevant", "MDS map": "classical MDS"}
    for name, maker in MAKERS.items():
        text = texts[name].lower()
        for term in maker.TERMS:
            assert words.get(term, term).lower() in text, (name, term)


def test_the_guide_defines_each_worlds_symbols_from_its_record(rows):
    """Issue 35: the data's symbols (the paper's d, D, k, A, p_o, γ, σ̃) are the sparse-coding
    world's record's, shown under its name; the Guide page's own file holds none of them."""
    from engine import scenarios
    world = scenarios.WORLDS["sparse_coding"]
    assert {"d, D", "k, A", "p_o", "γ, σ̃"} <= {term for term, _ in world.glossary}
    for w in scenarios.WORLDS.values():
        for term, meaning in w.glossary:
            assert (term, meaning, w.label.split(":")[0]) in rows, term
    page = (Path(__file__).resolve().parents[2] / "pages" / "guide.py").read_text()
    assert "p_o" not in page and "dictionary patterns" not in page
