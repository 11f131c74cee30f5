"""engine/guard.py (memory/time estimate, server limits) and divergence handling in engine/run.py.

The memory estimate is checked against the peak resident memory of a fresh process that really
builds the world and trains (VmHWM), the time estimate against its CPU time.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine import guard
from engine.config import Config, ConfigError
from engine.report import build_report
from engine.run import DivergenceError, Run
from engine.worlds import build_world

ROOT = Path(__file__).resolve().parents[2]
PAPER = Config()  # n=50000, d=500, D=100, m=300, T=600

CASES = {  # which part of the estimate each case exercises: (settings, methods, embed)
    "generation, pattern space": (dict(n=60000, n_test=10000, d=300, D=150, m=100, T=6),
                                  "network", True),
    "evaluation buffers (wide)": (dict(n=5000, n_test=2000, m=2000, T=6), "network", True),
    "classifier (logreg)": (dict(classifier="logreg", n=30000, n_test=30000, m=300, T=2),
                            "rf,two_step", False),
}


@pytest.fixture(scope="module")
def measured() -> dict:
    """Each case trained in a fresh process by the guard benchmark (VmHWM, see bench/guard.py)."""
    out = {}
    for name, (settings, methods, embed) in CASES.items():
        spec = json.dumps({"settings": settings, "methods": methods, "embed": embed})
        res = subprocess.run([sys.executable, "-m", "bench.guard", "--one", spec], cwd=ROOT,
                             capture_output=True, text=True, timeout=300,
                             env={"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
        assert res.returncode == 0, res.stderr
        out[name] = json.loads(res.stdout.strip().splitlines()[-1])
    return out


@pytest.mark.parametrize("name", list(CASES))
def test_memory_estimate_covers_the_measured_peak(measured, name):
    m = measured[name]
    assert m["measured_mb"] > 100, m  # large enough that the allocations dominate the noise
    # never below the peak by more than 10 %, and not so loose that the guard refuses for nothing
    assert 0.9 <= m["estimate_mb"] / m["measured_mb"] <= 2.0, m


def test_memory_estimate_names_the_dominant_phase(measured):
    assert measured["generation, pattern space"]["dominant"] == "data generation"
    assert measured["evaluation buffers (wide)"]["dominant"] == "training and evaluation"
    assert measured["classifier (logreg)"]["dominant"] == "classifier (logreg)"


def test_time_estimate_is_within_a_factor_of_cpu_time(measured):
    for m in measured.values():
        assert 0.25 <= m["cpu_s"] / m["est_s"] <= 2.0, m


def test_the_issue_logreg_case_is_refused_under_the_default_limits(monkeypatch):
    for env in guard.LIMITS:
        monkeypatch.delenv(env, raising=False)
    cfg = PAPER.replace(classifier="logreg", n=200000, n_test=200000, m=500, T=2)
    est = guard.estimate(cfg, ("rf",), embed=False)
    assert est.dominant == "classifier (logreg)" and est.memory_mb > 2992  # measured in issue 13
    with pytest.raises(guard.ResourceError, match=r"^n=200000 .*mostly classifier \(logreg\)"):
        guard.check(cfg, ("rf",), embed=False)
    assert guard.estimate(cfg.replace(classifier="schedule"), ("rf",)).memory_mb < 1024


def test_estimate_scales_with_the_setting():
    small = guard.estimate(PAPER.replace(n=5000, n_test=2000, T=60))
    assert guard.estimate(PAPER.replace(n=5000, n_test=2000, T=120)).seconds > 1.8 * small.seconds
    gen = guard.estimate(PAPER.replace(n=200000, m=10)).parts["data generation"]
    assert gen == pytest.approx((21 * 200000 * 100 + 8 * 500 * 100) / 2**20)  # 21 B/entry + M
    both = guard.estimate(PAPER, methods=("network", "network_no_structure"))
    assert both.parts["training and evaluation"] > guard.estimate(PAPER).parts[
        "training and evaluation"]


def test_frozen_layers_cost_less_time_when_their_activations_are_cached():
    # measured on paper-parity, one thread: network 7.0 s, RF 1.4 s, Two Step 2.6 s
    net = guard.estimate(PAPER, ("network",), embed=False).seconds
    for method in ("rf", "one_step", "two_step"):
        cached = guard.estimate(PAPER, (method,), embed=False).seconds
        assert cached < 0.4 * net, method
        assert guard.estimate(PAPER, (method,), embed=False, feature_cache=False).seconds \
            == pytest.approx(net, rel=0.01), method  # without the cache: the network's work


def test_paper_default_fits_a_classroom_host(monkeypatch):
    for env in guard.LIMITS:
        monkeypatch.delenv(env, raising=False)
    est = guard.check(PAPER)
    assert est.memory_mb < 256 and est.seconds < 120  # 4 GB / 30 students, 2 cores
    assert "MB" in est.describe()


def test_limits_refuse_with_the_setting_value_and_maximum(monkeypatch):
    monkeypatch.setenv("FEX_MAX_N", "10000")
    with pytest.raises(guard.ResourceError) as err:
        guard.check(PAPER)
    assert (err.value.name, err.value.value) == ("n", 50000)
    assert "at most 10000" in str(err.value) and "FEX_MAX_N" in str(err.value)
    assert isinstance(err.value, ConfigError)
    monkeypatch.delenv("FEX_MAX_N")
    monkeypatch.setenv("FEX_MAX_MEMORY_MB", "120")
    with pytest.raises(guard.ResourceError, match=r"^n=50000 .*about 1\d\d MB.*120 MB"):
        guard.check(PAPER.replace(m=20))  # data generation dominates: reduce n
    with pytest.raises(guard.ResourceError, match=r"^m=2000 "):
        guard.check(PAPER.replace(n=5000, n_test=2000, m=2000))
    monkeypatch.delenv("FEX_MAX_MEMORY_MB")
    monkeypatch.setenv("FEX_MAX_SECONDS", "5")
    with pytest.raises(guard.ResourceError, match=r"^T=600 .*each method needs about"):
        guard.check(PAPER)
    monkeypatch.setenv("FEX_MAX_SECONDS", "-3")
    with pytest.raises(ConfigError, match="FEX_MAX_SECONDS"):
        guard.check(PAPER)


def test_downloads_can_be_switched_off(monkeypatch):
    cfg = Config(scenario="real", real="mnist", d=784, D=1, k=1, m=50, n=1000, n_test=500,
                 batch=100, T=10, schedule="standard")
    monkeypatch.setenv("FEX_ALLOW_DOWNLOADS", "0")
    with pytest.raises(guard.ResourceError, match="^real='mnist'"):
        guard.check(cfg)
    guard.check(cfg.replace(real="digits", d=64, n=250, n_test=100))


# ---------------------------------------------------------------- divergence


def test_a_really_diverging_step_size_stops_at_that_step_with_history_intact(tiny_cfg):
    cfg = tiny_cfg.replace(eta=1e6, T=60)
    run = Run(build_world(cfg, device="cpu"), embed=True)
    with pytest.raises(DivergenceError) as err:
        for _ in run:
            pass
    e = err.value
    # deterministic: the seed fixes the data and the batches (step 17: the first layer keeps its
    # own step η_w, so only the output layer blows up; step 10 with Adam on both layers)
    assert e.step == run.t == 17
    assert str(e).startswith("training diverged at step 17: ")
    assert "lower the step size η (now 1e+06; try 1e+05) or η_w (now 0.5; try 0.05) or raise " \
        "λ" in str(e)
    assert [s.step for s in run.history] == list(range(17))
    for s in run.history:
        assert all(math.isfinite(v) for k, v in s.scalars().items()
                   if isinstance(v, float) and k not in ("hinge_active", "grad_ratio",
                                                         "grad_ratio_median", "snr_median"))
        assert np.isfinite(s.embedding).all()
    # the weights really blew up: the last kept snapshot is far from the start
    assert run.history[-1].train_loss > 100 * run.history[3].train_loss
    # stepping again does not pretend to continue
    with pytest.raises(DivergenceError):
        run.step()


def test_history_after_divergence_is_exportable(tiny_cfg):
    cfg = tiny_cfg.replace(eta=1e6, T=60)
    run = Run(build_world(cfg, device="cpu"), embed=False)
    with pytest.raises(DivergenceError):
        list(run)
    report = build_report(cfg, {"network": run}, "cpu", {"total_s": 1.0, "setup_s": 0.1})
    text = json.dumps(report, allow_nan=False)
    assert '"network"' in text


def test_report_holds_the_schedule_the_run_used(tiny_cfg):
    """Every η, λ, σ_ξ the schedule computed reaches the report (η⁽²⁾ was reported as None)."""
    run = Run(build_world(tiny_cfg, device="cpu"), embed=False)
    report = build_report(tiny_cfg, {"network": run}, "cpu", {"total_s": 1.0, "setup_s": 0.1})
    sched = report["schedule"]
    assert tiny_cfg.eta2 is None and sched["step2"]["eta"] > 1.0  # paper_eta2's value
    assert sched["step1"]["keep_w"] == pytest.approx(run.world.schedule.step1.keep_w)
    assert sched["later"]["optimizer"] == "adam" and sched["later"]["intercept"] is True
    json.dumps(report, allow_nan=False)
