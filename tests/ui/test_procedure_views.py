"""What a class sees follows the procedure's record (issue 28 item 3): Explore's header and the
offline HTML name the procedure's own source, the width control shows the true neuron count,
Compare's words, methods, table and printed command are the procedure's, the Guide's glossary
is every record's. AppTest of the real app; no run is faked."""

from __future__ import annotations

import json
import shlex
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine.procedures import RECORDS
from ui.compare_view import cli_argv
from ui.export import export_html

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
SOURCES = {"paper-parity": "Shi, Wei & Liang, ICLR 2022", "gfl-xor": "Algorithm 1",
           "azl-resnet": "Allen-Zhu & Li 2019", "fcb-xor": "Frei, Chatterji & Bartlett"}


def open_page(page: str, **params: str) -> AppTest:
    """The app on a page with the given URL query."""
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params.update(params)
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("preset, neurons", [("gfl-xor", 400), ("azl-resnet", 300),
                                             ("paper-parity", 600)])
def test_explore_names_the_procedures_source_and_its_true_width(preset, neurons):
    """The header's credit is the record's; no ICLR 2022 over the ResNet or GFL; the width
    control reads "m — N neurons" with N = 4m (gfl), m (resnet3), 2m (shi2022)."""
    at = open_page("pages/explore.py", preset=preset)
    captions = " ".join(c.value for c in at.caption)
    assert SOURCES[preset] in captions
    assert ("ICLR 2022" in captions) is (preset == "paper-parity")
    width = [w.label for w in at.number_input if w.label.startswith("m")]
    assert width == [f"m — {neurons} neurons"], width
    # the resnet3 procedure's own settings, under its heading, only where it trains the run
    labels = {w.label for kind in ("number_input", "selectbox") for w in at.get(kind)}
    own = {"step size (ResNet, FC, 2-layer)", "FC nets' biases"}
    assert (own <= labels) is (preset == "azl-resnet"), labels
    assert ({"bias b̃", "η⁽¹⁾ rule"} <= labels) is (preset == "gfl-xor"), labels  # gfl's own
    headings = [h.value for h in at.sidebar.subheader]
    assert ("Procedure settings" in headings) is (preset in ("azl-resnet", "gfl-xor")), headings


def test_the_offline_html_credits_the_procedures_source():
    at = open_page("pages/explore.py", preset="gfl-xor")
    page = export_html(at.session_state["app"], "gfl")
    assert SOURCES["gfl-xor"] in page and "ICLR 2022" not in page


def test_compare_on_gfl_xor_has_the_gfl_words_methods_and_command():
    """Intro from the record, the gfl procedure's four methods, its table title (coverage, not
    Table 1's cosine with Σ_A M) and the printed command with --preset gfl-xor."""
    at = open_page("pages/compare.py", preset="gfl-xor")
    captions = " ".join(c.value for c in at.caption)
    assert "Algorithm 1" in captions and "ICLR 2022" not in captions
    assert at.multiselect(key="compare_methods").options == ["Network", "NTK", "RF", "One Step"]
    state = at.session_state["app"]
    argv = cli_argv(state)
    assert argv[argv.index("--preset") + 1] == "gfl-xor" and "--set" not in argv
    assert "Table 1" not in RECORDS["gfl"].table.title and "coverage" in RECORDS["gfl"].table.title


@pytest.mark.slow
def test_the_printed_gfl_command_prints_the_procedures_table(tmp_path):
    """Running Compare's command for gfl-xor (one seed, a tiny size) prints the gfl table:
    Coverage rows, no paper rows, no "paper-parity:" headline."""
    at = open_page("pages/compare.py", preset="gfl-xor")
    argv = cli_argv(at.session_state["app"], seeds=1)
    tiny = ["--set", "n=400", "--set", "n_test=400", "--set", "m=8", "--set", "T=4", "--quiet"]
    proc = subprocess.run([sys.executable, *argv[1:], *tiny], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.startswith("gfl-xor:") and "Coverage" in out, shlex.join(argv) + "\n" + out
    assert "paper" not in out.split("\n", 1)[1] and "paper-parity" not in out


def test_a_set_world_change_drops_the_presets_name_and_numbers(tmp_path):
    """--set scenario=gfl_xor under the default preset: not "paper-parity:", no Table 1."""
    proc = subprocess.run(
        [sys.executable, "-m", "engine", "run", "--set", "scenario=gfl_xor", "--set", "d=20",
         "--set", "n=400", "--set", "n_test=400", "--set",
         "m=8", "--set", "T=4", "--set", "batch=100", "--quiet"], cwd=ROOT,
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("scenario=gfl_xor:") and "paper" not in proc.stdout


def test_the_guides_glossary_is_every_records():
    """Every term of every procedure's glossary is in the Guide (coverage, c_F, kα², …)."""
    at = open_page("pages/guide.py")
    text = " ".join(m.value for m in at.markdown)
    for record in RECORDS.values():
        for term, _ in record.glossary:
            assert f"| {term} |" in text, (record.name, term)
    assert "neuron pairs (2m hidden neurons)" not in text  # the paper's alone, said as such


def test_an_older_azl_sweep_names_the_resnet_by_its_procedures_label(tmp_path):
    """Stores written before 2026-11-26 name the ResNet `network` (its older name; the stored
    docs/results sweep did until then): the Sweep page's lines call it "3-layer ResNet"."""
    from ui.state import STATE_KEY, AppState

    older = tmp_path / "older.sqlite"
    shutil.copy(ROOT / "docs" / "results" / "sweep-azl-error-vs-n.sqlite", older)
    with sqlite3.connect(older) as con:
        assert con.execute("UPDATE results SET method = 'network' "
                           "WHERE method = 'resnet3'").rowcount == 12
    at = AppTest.from_file(str(ROOT / "pages" / "sweep.py"), default_timeout=120)
    state = AppState()
    state.sweep.sources["azl"] = older
    at.session_state[STATE_KEY] = state
    at.session_state["sweep_pick"] = "azl"
    at.run()
    assert not at.exception, at.exception
    names = [t["name"] for c in at.get("plotly_chart")
             for t in json.loads(c.proto.spec)["data"] if t.get("name")]
    assert "3-layer ResNet" in names and "2-layer" in names and "Network" not in names, names
