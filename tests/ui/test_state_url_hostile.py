"""Issue 38 Low 12: links parsed as a hostile user writes them. A repeated key is dropped with a
warning (the CLI refuses a setting given twice), a bad value is echoed as the link wrote it,
a fallback says which default broke the rule, and methods of another world are named."""

from __future__ import annotations

from engine.config import Config
from ui.state import parse_params


def test_a_repeated_key_is_dropped_with_a_warning():
    cfg, _, warnings = parse_params({"seed": "4", "m": "50"}, None, ["seed"])
    assert cfg == Config(m=50)
    assert len(warnings) == 1 and "seed is given more than once" in warnings[0]


def test_a_huge_seed_is_echoed_as_written():
    _, _, warnings = parse_params({"seed": "99999999999999999999999"})
    assert "seed='99999999999999999999999'" in warnings[0]
    assert "99999999999999991611392" not in warnings[0]


def test_a_fallback_names_the_default_that_broke_the_rule():
    cfg, _, warnings = parse_params({"scenario": "gfl_parity_blocks", "r": "0"})
    assert cfg == Config()
    last = warnings[-1]
    assert last.startswith("scenario='gfl_parity_blocks' cannot run with the default p_a")
    assert "using the default settings instead" in last


def test_methods_of_another_world_are_named():
    _, methods, warnings = parse_params({"scenario": "sparse_coding", "methods": "resnet3,fc3"})
    assert len(warnings) == 1 and "resnet3,fc3" in warnings[0]
    assert "default methods" in warnings[0]
    _, _, warnings = parse_params({"methods": "network,rf"})
    assert warnings == []


def test_twelve_thousand_unknown_keys_give_one_bounded_warning():
    _, _, warnings = parse_params({f"x{i}": "1" for i in range(12_000)})
    assert len(warnings) == 1 and "11995 more" in warnings[0] and len(warnings[0]) < 300
