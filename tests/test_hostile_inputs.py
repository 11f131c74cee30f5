"""Hostile and careless input (issue 13): CLI arguments, URL query strings and key names.

Every case must be refused before any work with exit code 2 (the CLI) or a warning (the page):
one plain line of bounded length, no traceback, no raw control characters, nothing rendered
as Markdown, and no file changed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import main
from engine.echo import ELLIPSIS, markdown_plain, plain
from ui.state import parse_params

ROOT = Path(__file__).resolve().parents[1]
LONG = "a" * 100_000
PIXEL = "![x](http://127.0.0.1:9/pixel.png)"
MAX_LINE = 600  # one error line, whatever the input

CLI_CASES = {  # id -> arguments after `run --quiet`; every one must be refused with exit 2
    "full-width digit": ["--set", "k=５"],
    "full-width seed": ["--set", "seed=２"],
    "arabic-indic digit": ["--set", "m=٣"],
    "k=0": ["--set", "k=0"],
    "even k for parity": ["--set", "k=4"],
    "p_o above 2/3 for parity": ["--set", "p_o=0.9"],
    "last seed out of range": ["--seed", "2147483647", "--seeds", "2"],
    "negative seed": ["--seed", "-1"],
    "seeds 0": ["--seeds", "0"],
    "seeds 21": ["--seeds", "21"],
    "seeds full-width": ["--seeds", "５"],
    "seeds text": ["--seeds", "many"],
    "duplicate --set": ["--set", "k=3", "--set", "k=5"],
    "duplicate --set, spaced": ["--set", "m=10", "--set", " m =20"],
    "duplicate method": ["--methods", "rf,rf"],
    "duplicate method, spaced": ["--methods", "network, ntk ,network"],
    "empty methods": ["--methods", ""],
    "commas only": ["--methods", ",,,"],
    "markdown method": ["--methods", f"network,{PIXEL}"],
    "html method": ["--methods", "<script>alert(1)</script>"],
    "long method": ["--methods", LONG],
    "long key": ["--set", LONG + "=1"],
    "long value": ["--set", "k=" + LONG],
    "markdown key": ["--set", PIXEL + "=1"],
    "markdown P": ["--set", "labeling=custom", "--set", "P=" + PIXEL],
    "full-width P": ["--set", "labeling=custom", "--set", "P=1,３"],
    "full-width pair": ["--set", "scenario=real", "--set", "d=64", "--set", "D=1",
                        "--set", "k=1", "--set", "pair=0,１"],
    "no equals": ["--set", "k"],
    "empty key": ["--set", "=5"],
    "empty value": ["--set", "k="],
    "overflowing float": ["--set", "d=1e400"],
    "nan": ["--set", "eta=nan"],
    "n above range": ["--set", "n=1e7"],
    "fractional int": ["--set", "k=3.5"],
    "negative step": ["--set", "eta=-1"],
    "T=1": ["--set", "T=1"],
    "bool word": ["--set", "structure=maybe"],
    "escape sequence value": ["--set", "k=\x1b[31m5"],
    "escape sequence key": ["--set", "\x1b[2J=1"],
    "bidi override": ["--set", "k=5\u202e"],
    "unknown preset": ["--preset", "nope"],
    "long preset": ["--preset", LONG],
    "unknown device": ["--device", "tpu"],
    "unknown option": ["--bogus", LONG],
    "batch 0": ["--set", "batch=0"],
    "underscore digits": ["--set", "k=1_1"],  # float() reads 11
    "shell in P": ["--set", "P=1 $(touch x)"],
    "unread pair": ["--set", "pair=0,1; touch x"],
    "logreg beyond the memory limit": ["--set", "classifier=logreg", "--set", "n=200000",
                                       "--set", "n_test=200000", "--set", "m=500", "--set",
                                       "T=2", "--methods", "rf"],
}


@pytest.fixture
def out_dir(tmp_path, monkeypatch):
    """A directory holding an old report; the guard's limits at the server defaults."""
    for name in list(os.environ):
        if name.startswith("FEX_"):
            monkeypatch.delenv(name)
    # the server's memory limit, set as a host would: on the command line an unset one means
    # half of the machine's memory (engine.guard.machine_memory), and the memory case must be
    # refused on any machine
    monkeypatch.setenv("FEX_MAX_MEMORY_MB", "1024")
    (tmp_path / "report.json").write_text('{"old": true}')
    return tmp_path


def run_cli(args: list[str], capsys) -> tuple[int, str, str]:
    """main() in-process (argparse's exit included): (code, stdout, stderr)."""
    try:
        code = main(["run", "--quiet", *args])
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def assert_plain_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip("\n").split("\n")
    assert len(lines) == 1, err[:2000]
    line = lines[0]
    assert line.startswith("error: ") and len(line) <= MAX_LINE, line[:2000]
    assert line.isprintable(), ascii(line[:300])  # no escape sequence, no bidi override
    return line


@pytest.mark.parametrize("args", CLI_CASES.values(), ids=CLI_CASES.keys())
def test_hostile_cli_argument_exits_2_with_one_plain_line(args, out_dir, capsys):
    before = sorted(os.listdir(out_dir))
    code, out, err = run_cli([*args, "--out", str(out_dir / "report.json")], capsys)
    assert code == 2, err[:2000]
    assert out == ""
    line = assert_plain_line(err)
    if any(len(a) > 1000 for a in args):
        assert ELLIPSIS in line  # the long input is cut, not echoed whole
    assert sorted(os.listdir(out_dir)) == before
    assert (out_dir / "report.json").read_text() == '{"old": true}'


def test_the_issue_cases_name_what_is_wrong(out_dir, capsys):
    expect = {
        "full-width digit": "k='５' is not allowed: an integer in [1, 500]",
        "last seed out of range": "--seed=2147483647 is not allowed: an integer in "
                                  "[0, 2147483646] with --seeds 2",
        "duplicate --set": "k is given twice",
        "duplicate method": "each method once (rf twice)",
        "logreg beyond the memory limit": "n=200000 is not allowed: a smaller value",
    }
    for case, text in expect.items():
        _, _, err = run_cli(CLI_CASES[case], capsys)
        assert text in err, (case, err)


def test_the_real_cli_in_a_subprocess_refuses_before_training(tmp_path):
    out = tmp_path / "r.json"
    res = subprocess.run([sys.executable, "-m", "engine", "run", "--seed", "2147483647",
                          "--seeds", "2", "--set", LONG[:5000] + "=1", "--out", str(out)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert res.returncode == 2 and res.stdout == ""
    assert_plain_line(res.stderr)
    assert not out.exists()


# ---------------------------------------------------------------- URL query strings

QUERY_CASES = {  # id -> query parameters of a link
    "markdown image in P": {"labeling": "custom", "P": PIXEL},
    "markdown image as a key": {PIXEL: "1"},
    "markdown image in methods": {"methods": PIXEL},
    "html in k": {"k": "<img src=http://127.0.0.1:9/x.png>"},
    "link in d": {"d": "[click](http://127.0.0.1:9/)"},
    "streamlit colour directive": {"m": ":red[big]"},
    "material icon shortcode": {"T": ":material/warning:"},
    "latex": {"n": "$x^2$"},
    "long k": {"k": "9" * 60_000},
    "long key": {"k" * 60_000: "1"},
    "full-width digit": {"k": "５"},
    "duplicate methods": {"methods": "rf,rf"},
    "newline in a key": {"a\nb": "1"},
    "escape sequence": {"seed": "\x1b[31m1"},
}
SPECIAL = set("\\`*_{}[]()<>#+-.!|~$:&\"'=%@/")


def unescaped_specials(text: str) -> list[str]:
    """Markdown-special characters in text that are not backslash-escaped."""
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] in SPECIAL:
            out.append(text[i])
        i += 1
    return out


@pytest.mark.parametrize("params", QUERY_CASES.values(), ids=QUERY_CASES.keys())
def test_hostile_query_is_dropped_with_a_warning_that_renders_literally(params):
    cfg, methods, warnings = parse_params(params)
    assert warnings, params  # the value was refused
    for text in warnings:
        assert len(text) <= MAX_LINE and text.isprintable(), ascii(text[:300])
        shown = markdown_plain(text)
        assert unescaped_specials(shown) == [], shown
        assert "\n" not in shown


def test_plain_cuts_and_escapes():
    assert plain("x" * 100) == "x" * 80 + ELLIPSIS
    assert plain("a\x1b[2Jb\u202e") == "a\\x1b[2Jb\\u202e"
    assert markdown_plain(PIXEL).startswith("\\!\\[x\\]\\(http\\:")
    assert not re.search(r"(?<!\\)[!\[\]()]", markdown_plain(PIXEL))
