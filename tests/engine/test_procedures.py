"""The procedure registry (engine/procedures): every record keeps the contract, everything that
lists procedures derives from it, the guard sizes a run by its procedure (not its world), a
procedure's own settings are read and shown only where it trains the run."""

from __future__ import annotations

import pytest

from engine import guard
from engine.config import SPECS, Config, ConfigError, from_dict
from engine.method_table import Method
from engine.presets import preset_config
from engine.procedures import (
    PROCEDURES,
    RECORDS,
    REGISTRY,
    ProcedureRecord,
    check_methods,
    procedure_of,
)
from engine.reads import sidebar_shows, unread_reason


def test_every_record_keeps_the_contract():
    assert tuple(RECORDS) == REGISTRY and PROCEDURES == ("auto", *REGISTRY)
    assert SPECS["procedure"].choices == PROCEDURES
    for name, record in RECORDS.items():
        assert isinstance(record, ProcedureRecord) and record.name == name
        assert all(isinstance(m, Method) for m in record.methods), name
        assert record.defaults and set(record.defaults) <= set(record.names), name
        assert len(set(record.names)) == len(record.names), name
        assert record.source.citation and record.source.claim, name
        assert record.table.title and record.table.intro and record.glossary, name
        for _, a, b in record.table.headlines:
            assert {a, b} <= set(record.names), (name, a, b)
        assert set(record.aliases.values()) <= set(record.names), name


def test_the_width_is_counted_in_the_procedures_own_neurons():
    assert RECORDS["shi2022"].width_text(300) == "m — 600 neurons"
    assert RECORDS["gfl"].width_text(100) == "m — 400 neurons"
    assert RECORDS["resnet3"].width_text(300) == "m — 300 neurons"


def test_the_guard_sizes_a_run_by_its_procedure():
    """fcb-xor with procedure=gfl is sized as Algorithm 1's 4m neurons, not as FCB's trainer
    (main sized it by the world: the same estimate as procedure=fcb2022)."""
    fcb = preset_config("fcb-xor").replace(n=20_000, n_test=20_000, m=1000)
    gfl = fcb.replace(procedure="gfl")
    own = guard.estimate(fcb, ("network",), embed=False).memory_mb
    by_gfl = guard.estimate(gfl, ("network",), embed=False).memory_mb
    assert by_gfl != pytest.approx(own)
    r = guard.coord_dim(gfl)[0]
    kept, peak = RECORDS["gfl"].run_bytes(gfl, r, 0.0)
    assert peak == 6 * 20_000 * 4000 * 4  # the record's own rule, 4m wide
    assert RECORDS["fcb2022"].run_bytes(fcb, r, 0.0)[1] == 12 * 20_000 * 2000 * 4


def test_a_procedures_settings_are_read_and_shown_only_where_it_trains():
    azl, paper = preset_config("azl-resnet"), Config()
    assert unread_reason("azl_lr", azl) is None and sidebar_shows("azl_lr", azl)
    assert "procedure=resnet3" in unread_reason("azl_lr", paper)
    assert not sidebar_shows("azl_lr", paper) and not sidebar_shows("azl_fc_bias", paper)


def test_methods_are_checked_against_the_procedure():
    azl = preset_config("azl-resnet")
    check_methods(azl, ("resnet3", "fc3", "two_layer", "ntk", "last_layer"))
    with pytest.raises(ConfigError, match="resnet3, fc3, two_layer, ntk, last_layer") as err:
        check_methods(azl, ("network",))
    assert err.value.name == "--methods"
    check_methods(azl, ("network",), legacy=True)  # a stored sweep's older name
    assert procedure_of(from_dict({"scenario": "gfl_xor", "d": 20, "D": 2, "k": 2})).name == "gfl"
