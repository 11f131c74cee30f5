"""The computed schedule reaches the reader: Schedule.rows() for Explore, the report's schedule."""

from __future__ import annotations

import pytest

from engine.compare import Comparison
from engine.config import Config
from engine.report import build_report
from engine.worlds import build_world


def test_rows_are_the_step_sizes_the_trainer_uses():
    cfg = Config(d=40, D=20, k=3, m=16, n=2000, n_test=400, T=9, batch=200, seed=1)
    sch = build_world(cfg, "cpu").schedule
    rows = sch.rows()
    assert [r["stage"] for r in rows] == ["step 1", "step 2", "steps 3-9"]
    for row, sp in zip(rows, (sch.at(1), sch.at(2), sch.at(3)), strict=True):
        assert (row["η"], row["λ_w"], row["λ_a"], row["σ_ξ"]) == (sp.eta, sp.lam_w, sp.lam_a,
                                                                   sp.xi)
    assert rows[1]["η"] > 1  # the automatic η⁽²⁾ (Lemma 23 form), not a placeholder
    nu = float(rows[0]["rule"].split("ν = ")[1].split()[0])
    assert nu == pytest.approx(sch.step1.keep_w / sch.step1.eta, rel=1e-3)
    assert rows[2]["batch"] == "mini-batch" and rows[0]["batch"] == "full"
    assert rows[2]["rule"].startswith("adam")
    assert rows[2]["rule"].endswith("first layer: sgd with η_w = 0.5")  # its own rule (t > 2)


def test_report_carries_the_computed_step_sizes():
    cfg = Config(d=40, D=20, k=3, m=16, n=2000, n_test=400, T=4, batch=200, seed=1)
    comp = Comparison(cfg, ("network",), "cpu")
    comp.run_all()
    sched = build_report(cfg, comp.runs, "cpu", {})["schedule"]
    assert sched["step2"]["eta"] == comp.world.schedule.step2.eta > 1
    assert sched["step1"]["keep_w"] is not None
