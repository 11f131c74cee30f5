"""Algorithm 1's per-world options (engine.gfl.options.GFLOptions) are settings of the gfl
procedure (gfl_w_init, gfl_a_init, gfl_bias, gfl_eta1_rule, gfl_step1_moves_a, gfl_rebias,
gfl_centre_target): auto keeps each world's own choice, so every preset runs as before; a value
changes the run; a bad one is one line naming the setting and its choices; they are shown and
read only where gfl trains the run, and round-trip through the URL and the CLI's --set."""

from __future__ import annotations

import pytest

from engine.cli import build_parser, main, parse_settings
from engine.config import SPECS, Config, ConfigError, from_dict
from engine.presets import PRESETS, preset_config
from engine.procedures import RECORDS, procedure_of
from engine.procedures.gfl import SETTINGS, options
from engine.reads import read_diff, refuse_unread, sidebar_shows
from engine.scenarios import WORLDS
from tests.engine.test_world_reads import base, config, trace
from ui.state import parse_params, url_params

GFL_PRESETS = [n for n in PRESETS if procedure_of(preset_config(n)).name == "gfl"]


def test_the_options_are_the_gfl_procedures_own_settings():
    assert set(RECORDS["gfl"].settings) == set(SETTINGS) == {
        "gfl_w_init", "gfl_a_init", "gfl_bias", "gfl_eta1_rule", "gfl_step1_moves_a",
        "gfl_rebias", "gfl_centre_target"}
    assert all(SPECS[n].default in ("auto", None) for n in SETTINGS)


@pytest.mark.parametrize("preset", GFL_PRESETS)
def test_auto_keeps_each_worlds_own_options(preset):
    cfg = preset_config(preset)
    assert options(cfg) == WORLDS[cfg.scenario].procedure_options["gfl"]


def test_a_set_option_changes_the_run_and_the_worlds_own_value_does_not():
    assert trace(config("gfl_xor", gfl_bias="zero")) != base("gfl_xor", {})
    assert trace(config("gfl_xor", gfl_eta1_rule="rms")) != base("gfl_xor", {})
    # uniform parity's own init is sign (Algorithm 6): naming it is the same run as auto
    same = config("gfl_uniform_parity", gfl_w_init="sign", gfl_a_init="sign")
    assert trace(same) == base("gfl_uniform_parity", {})
    assert options(config("gfl_multi_index", gfl_rebias=False)).rebias is False


def test_a_bad_value_is_one_line_naming_the_setting_and_its_choices():
    with pytest.raises(ConfigError) as err:
        from_dict({"gfl_bias": "huge"}, preset_config("gfl-xor"))
    text = str(err.value)
    assert text == "gfl_bias='huge' is not allowed: one of auto, unit, large, zero, bit, grid"
    with pytest.raises(ConfigError, match="gfl_rebias=.*true or false"):
        from_dict({"gfl_rebias": "maybe"}, preset_config("gfl-xor"))


def test_shown_and_read_only_where_gfl_trains_the_run():
    for name in SETTINGS:
        assert sidebar_shows(name, preset_config("gfl-xor"))
        assert sidebar_shows(name, Config(procedure="gfl"))  # the paper's world under gfl
        assert not sidebar_shows(name, Config())
        assert not sidebar_shows(name, preset_config("azl-resnet"))
    with pytest.raises(ConfigError, match="only read by procedure=gfl"):
        refuse_unread(Config(gfl_bias="zero"), ["gfl_bias"])


def test_round_trip_through_the_url_and_the_cli():
    cfg = from_dict({"gfl_bias": "bit", "gfl_rebias": "true"}, preset_config("gfl-xor"))
    params = url_params(cfg)
    assert params["gfl_bias"] == "bit" and params["gfl_rebias"] == "true"
    back, _, warnings = parse_params(params)  # no preset in the link: unread D, k differ
    assert read_diff(back) == read_diff(cfg) and options(back) == options(cfg) and not warnings
    args = build_parser().parse_args(["run", "--preset", "gfl-xor", "--set", "gfl_bias=bit",
                                      "--set", "gfl_rebias=true"])
    assert parse_settings(args)[0] == cfg


def test_the_cli_refuses_a_bad_option_in_one_line(capsys):
    assert main(["run", "--preset", "gfl-xor", "--set", "gfl_eta1_rule=fast"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "gfl_eta1_rule" in err and "p90, rms, alg6" in err
    assert main(["run", "--preset", "paper-parity", "--set", "gfl_bias=zero"]) == 2
    assert "only read by procedure=gfl" in capsys.readouterr().err
