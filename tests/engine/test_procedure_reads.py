"""A procedure that names the training settings it reads (ProcedureRecord.reads) hides the others
wherever it trains the run: hidden must mean unread. For every world × procedure and every common
training setting the world reads but the procedure does not, the same tiny run with that setting
changed gives bitwise the same snapshots (test_world_reads' trace); a pinned setting is no
control, follows its rule and refuses another value."""

from __future__ import annotations

import pytest

from engine.config import COMMON, ConfigError, from_dict
from engine.procedures import RECORDS, runs_with
from engine.reads import TRAINING_GROUPS, refuse_unread, sidebar_shows, unread_reason
from engine.scenarios import WORLDS, pinned, reads_common
from engine.scenarios._common import DATA_COMMON
from tests.engine.test_world_reads import OTHER, TINY, base, config, trace


def _unread(world: str, procedure: str) -> list[str]:
    """The common training settings the world reads and the procedure does not."""
    reads = RECORDS[procedure].reads
    return [n for n, s in COMMON.items() if s.group in TRAINING_GROUPS and n != "procedure"
            and reads is not None and n not in reads and reads_common(WORLDS[world], n)]


CASES = [(w, p, n) for w in TINY for p in runs_with(config(w)) for n in _unread(w, p)]


def test_the_data_settings_are_the_common_data_group():
    """DATA_COMMON (what "training" in a world's common leaves out) is COMMON's data group."""
    assert set(DATA_COMMON) == {n for n, s in COMMON.items() if s.group == "data"}


def test_cases_cover_the_procedures_that_name_their_reads():
    """fcb2022 on its world and gfl on the paper's world hide settings they ignore."""
    assert {(w, p) for w, p, _ in CASES} >= {("fcb", "fcb2022"), ("sparse_coding", "gfl")}
    assert {n for _, _, n in CASES} <= set(OTHER)


@pytest.mark.parametrize(("world", "procedure", "name"), CASES,
                         ids=[f"{w}-{p}-{n}" for w, p, n in CASES])
def test_a_setting_the_procedure_hides_changes_no_number(world, procedure, name):
    value, context = OTHER[name]
    context = {**context, "procedure": procedure}
    cfg = config(world, **context)
    assert getattr(cfg, name) != value
    assert not sidebar_shows(name, cfg)
    assert "procedure does not read it" in unread_reason(name, cfg)
    changed = trace(config(world, **context, **{name: value}))
    assert changed == base(world, context), f"{procedure} reads {name}, which its record hides"


def test_a_setting_the_procedure_reads_changes_a_number():
    """Control: η is read by fcb2022, so the comparison sees it."""
    context = {"procedure": "fcb2022"}
    assert trace(config("fcb", eta=0.5, **context)) != base("fcb", context)


def test_the_azl_world_pins_d_and_k_and_ignores_d_upper():
    """d = 30 and k = the variant's outputs are fixed text, not controls; D is not read."""
    cfg = from_dict({"scenario": "azl_hier", "T": "1000"})  # the pins follow the world
    assert (cfg.d, cfg.k) == (30, 8)
    assert set(pinned(cfg)) == {"d", "k"}
    assert not any(sidebar_shows(n, cfg) for n in ("d", "D", "k"))
    assert from_dict({"azl_variant": "k15"}, cfg).k == 15  # a new variant sets its outputs
    with pytest.raises(ConfigError, match=r"^k=9 is not allowed: 8 \(azl_variant=v1v2"):
        from_dict({"k": "9"}, cfg)
    with pytest.raises(ConfigError, match="does not read it"):
        refuse_unread(cfg, ["D"])


def test_d_pins_big_d_in_the_parity_worlds():
    """Uniform parity and parity blocks: D = d follows d, and is no control."""
    cfg = from_dict({"d": "13"}, config("gfl_uniform_parity"))
    assert cfg.D == 13 and not sidebar_shows("D", cfg)
    with pytest.raises(ConfigError, match="^D=12 is not allowed: 13 "):
        from_dict({"D": "12"}, cfg)


IF_CASES = [(w, n) for w in TINY for n in WORLDS[w].reads_if]


@pytest.mark.parametrize(("world", "name"), IF_CASES, ids=[f"{w}-{n}" for w, n in IF_CASES])
def test_a_conditional_read_changes_no_number_where_its_rule_fails(world, name):
    """Real data reads k only through the paper's step-1 formulas: not with schedule=standard,
    where the sidebar hides it; the paper's schedule shows it and its numbers see it."""
    standard = {"schedule": "standard", "eta": 0.05, "lam": 0.02}
    cfg = config(world, **standard)
    assert not sidebar_shows(name, cfg) and "reads it only" in unread_reason(name, cfg)
    assert trace(config(world, **standard, **{name: 2})) == base(world, standard)
    paper = {"schedule": "paper", "eta": None, "lam": None}
    assert sidebar_shows(name, config(world, **paper))
    assert trace(config(world, **paper, **{name: 2})) != base(world, paper)


@pytest.mark.parametrize("preset", ["gfl-xor", "gfl-mog", "fcb-xor", "paper-parity"])
def test_the_limit_tie_break_ridge_is_read_where_a_limit_breaks_ties(preset):
    """GFL's and FCB's readouts train without decay: their converged limits take limit_ridge, so
    the setting is shown and accepted there (the two branches that added it and the per-run
    reads met in a merge that refused it on gfl-xor and fcb-xor); the paper schedule's own decay
    defines its limit (refused, issue 36; its theory schedule has none and reads it); the AZL
    world's limit uses its own weight decay and refuses it."""
    from engine.presets import preset_config

    cfg = preset_config(preset)
    if preset == "paper-parity":
        with pytest.raises(ConfigError, match="own decay λ = 0.0001"):
            refuse_unread(cfg, ["limit_ridge"])
        assert not sidebar_shows("limit_ridge", cfg)
        cfg = cfg.replace(schedule="theory")
    refuse_unread(cfg, ["limit_ridge"])
    assert sidebar_shows("limit_ridge", cfg)
    with pytest.raises(ConfigError, match="does not read it"):
        refuse_unread(preset_config("azl-resnet"), ["limit_ridge"])
