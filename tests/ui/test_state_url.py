"""The settings' round-trip through the URL query string (ui.state), without a browser."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.config import Config, summary_line
from engine.methods import DEFAULT_METHODS
from engine.presets import PRESETS, preset_config
from engine.reads import read_diff
from ui.state import parse_params, url_params


def test_default_setting_has_an_empty_query():
    assert url_params(Config()) == {}
    assert parse_params({}) == (Config(), DEFAULT_METHODS, [])


def test_every_preset_round_trips():
    """A link without the preset's name gives every setting the run reads; a value its world
    does not read (gfl-xor's D = 2) is left out of links and comes back as the default."""
    for name in PRESETS:
        cfg = preset_config(name)
        back, methods, warnings = parse_params(url_params(cfg))
        assert (read_diff(back), warnings) == (read_diff(cfg), []), name
        assert parse_params({}, cfg)[0] == cfg, name  # a link naming the preset: all of it


@settings(max_examples=40, deadline=None)
@given(k=st.integers(0, 20).map(lambda i: 2 * i + 1), p_o=st.floats(0.01, 0.66),
       m=st.integers(1, 2000), structure=st.booleans(), seed=st.integers(0, 2**31 - 1),
       schedule=st.sampled_from(["paper", "theory", "standard"]),
       eta=st.one_of(st.none(), st.floats(1e-6, 1e3)))
def test_random_settings_round_trip(k, p_o, m, structure, seed, schedule, eta):
    cfg = Config(k=k, p_o=p_o, m=m, structure=structure, seed=seed, schedule=schedule, eta=eta)
    params = url_params(cfg)
    assert all(isinstance(v, str) for v in params.values())
    assert parse_params(params) == (cfg, DEFAULT_METHODS, [])


def test_url_values_are_read_with_their_types():
    cfg, _, warnings = parse_params({"k": "7", "p_o": "0.3", "structure": "false", "eta": "auto"})
    assert warnings == []
    assert (cfg.k, cfg.p_o, cfg.structure, cfg.eta) == (7, 0.3, False, None)


def test_bad_values_are_dropped_with_a_message_naming_them():
    cfg, _, warnings = parse_params({"k": "abc", "m": "50"})
    assert cfg == Config(m=50)
    assert len(warnings) == 1 and "k='abc'" in warnings[0] and "default k" in warnings[0]
    cfg, _, warnings = parse_params({"p_o": "1.5"})
    assert cfg == Config() and "p_o" in warnings[0] and "(0, 1)" in warnings[0]


def test_relations_between_settings_are_checked():
    cfg, _, warnings = parse_params({"k": "6"})  # parity needs an odd k
    assert cfg.k == Config().k and "odd" in warnings[0]
    cfg, _, warnings = parse_params({"D": "600"})  # D ≤ d = 500
    assert cfg.D == Config().D and "D ≤ d" in warnings[0]
    cfg, _, warnings = parse_params({"nonsense": "1", "k": "9"})
    assert cfg.k == 9 and "nonsense" in warnings[0]


def test_methods_parameter():
    _, methods, warnings = parse_params({"methods": "network,rf"})
    assert methods == ("network", "rf") and warnings == []
    _, methods, warnings = parse_params({"methods": "network,bogus"})
    assert methods == DEFAULT_METHODS and "bogus" in warnings[0]


def test_summary_line_format():
    assert summary_line(Config()) == "d=500 · D=100 · k=5 · p_o=0.5 · m=300"
    assert summary_line(Config(k=7, p_o=0.3)) == "d=500 · D=100 · k=7 · p_o=0.3 · m=300"
