"""Whole training runs: reproducibility, the pattern- and input-space paths, snapshot numbers
against direct evaluation, bounded history, divergence (split from test_engine_training.py)."""


from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from engine_ref import d_space_inputs, d_space_weights, ref_output, rel_err

import engine.evaluate
from engine.run import DivergenceError, Run
from engine.worlds import build_world

# ---------------------------------------------------------------- whole runs


def _snap_equal(a, b) -> None:
    sa, sb = a.scalars(), b.scalars()
    sa.pop("elapsed"), sb.pop("elapsed")
    assert sa.keys() == sb.keys()
    for key in sa:
        va, vb = sa[key], sb[key]
        assert va == vb or (isinstance(va, float) and math.isnan(va) and math.isnan(vb)), key
    for name in ("cos", "a", "b", "embedding", "weights"):
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None) == (y is None), name
        if x is not None:
            assert x.tobytes() == y.tobytes(), name
    assert a.grad.keys() == b.grad.keys()
    if "T_pattern" in a.grad:
        assert a.grad["T_pattern"].tobytes() == b.grad["T_pattern"].tobytes()


def test_same_seed_runs_have_identical_histories(tiny_cfg):
    runs = [Run(build_world(tiny_cfg, device="cpu"), embed=True) for _ in range(2)]
    for run in runs:
        list(run)
    assert len(runs[0].history) == len(runs[1].history) == tiny_cfg.T + 1
    for a, b in zip(runs[0].history, runs[1].history, strict=True):
        _snap_equal(a, b)
    assert torch.equal(runs[0].params.q, runs[1].params.q)
    other = Run(build_world(tiny_cfg.replace(seed=5), device="cpu"), embed=False)
    list(other)
    assert not np.array_equal(other.history[-1].cos, runs[0].history[-1].cos)


@pytest.mark.parametrize("schedule", ["paper", "theory", "standard"])
def test_pattern_and_input_space_paths_agree(tiny_cfg, schedule):
    cfg = tiny_cfg.replace(schedule=schedule)
    pat = Run(build_world(cfg, device="cpu", space="pattern"), embed=False)
    inp = Run(build_world(cfg, device="cpu", space="input"), embed=False)
    for a, b in zip(pat, inp, strict=True):
        assert a.step == b.step
        assert a.train_acc == pytest.approx(b.train_acc, abs=2e-3)
        assert a.test_acc == pytest.approx(b.test_acc, abs=2e-3)
        assert a.train_loss == pytest.approx(b.train_loss, rel=1e-3, abs=1e-5)
        assert a.cos_max == pytest.approx(b.cos_max, abs=1e-4)
        assert a.cos_min == pytest.approx(b.cos_min, abs=1e-4)
        np.testing.assert_allclose(a.cos, b.cos, atol=2e-4)
        np.testing.assert_allclose(a.a, b.a, rtol=1e-3, atol=1e-5 * np.abs(a.a).max())
        assert a.weight_ratio == pytest.approx(b.weight_ratio, rel=1e-3)
        if a.grad:
            assert a.grad["grad_ratio"] == pytest.approx(b.grad["grad_ratio"], rel=1e-3)
    w_pat = d_space_weights(pat.params, pat.world.ds.basis)
    w_inp = d_space_weights(inp.params, inp.world.ds.basis)
    assert rel_err(w_inp, w_pat) < 1e-3


def test_off_span_is_kept_at_step1_and_wiped_at_step2_in_input_space(tiny_world_input):
    """Step 1 keeps ν⁽¹⁾η⁽¹⁾ of the initial off-span part; step 2's reset wipes it."""
    run = Run(tiny_world_input, embed=False)
    M = torch.as_tensor(tiny_world_input.ds.M)
    w0 = run.params.q.double()
    off0 = (w0 - (w0 @ M) @ M.T)
    keep = tiny_world_input.schedule.step1.keep_w
    for t in (1, 2):
        s = run.step()
        w = run.params.q.double()
        off = w - (w @ M) @ M.T
        w_rms = float(w.pow(2).sum(1).mean().sqrt())
        if t == 1:
            assert rel_err(off, keep * off0) < 1e-4
            assert s.off_span > 0.05 * w_rms
        else:
            assert float(off.pow(2).sum(1).mean().sqrt()) < 1e-5 * w_rms
            assert s.off_span < 1e-5 * w_rms
        assert s.grad["grad_offdict"] < 1e-5 * s.grad["grad_rel"]


def test_snapshot_accuracy_and_loss_match_direct_evaluation(tiny_cfg, monkeypatch):
    """With a probe size ≥ n every step is evaluated on the whole sets: compare with a float64
    d-space evaluation of the current network after each step."""
    monkeypatch.setattr(engine.evaluate, "PROBE_SAMPLES", 4096)
    tiny_world = build_world(tiny_cfg, device="cpu", space="pattern")  # its probe: whole sets
    run = Run(tiny_world, embed=False)
    x_tr = d_space_inputs(tiny_world.ds, "train")
    x_te = d_space_inputs(tiny_world.ds, "test")
    y_tr = torch.as_tensor(tiny_world.ds.y_train, dtype=torch.float64)
    y_te = torch.as_tensor(tiny_world.ds.y_test, dtype=torch.float64)
    checked = 0
    for s in run:
        w = d_space_weights(run.params, tiny_world.ds.basis)
        for x, y, acc, loss in ((x_tr, y_tr, s.train_acc, s.train_loss),
                                (x_te, y_te, s.test_acc, s.test_loss)):
            c = 0.0 if run.params.c is None else float(run.params.c)  # output intercept
            margin = y * (ref_output(w, run.params.b.double(), run.params.a.double(), x) + c)
            assert acc == pytest.approx(float((margin > 0).double().mean()), abs=2.5e-3)
            assert loss == pytest.approx(float((1 - margin).clamp_min(0).mean()), rel=1e-4)
        checked += 1
    assert checked == tiny_world.cfg.T
    assert run.history[-1].step == tiny_world.cfg.T and run.done
    assert [s.stage for s in run.history[:4]] == ["init", "step 1", "step 2", "classifier"]


def test_history_memory_is_bounded(tiny_cfg):
    cfg = tiny_cfg.replace(T=70)
    run = Run(build_world(cfg, device="cpu"), embed=True, keep_weights=10)
    list(run)
    width, r = 2 * cfg.m, cfg.D
    kept = [s.step for s in run.history if s.weights is not None]
    assert kept[:3] == [0, 1, 2] and kept[-1] == cfg.T
    assert len(kept) <= 10 + 4
    per_step = 4 * (3 * width + 2 * (width + 2) + r)  # cos, a, b, embedding, T_pattern
    bound = (cfg.T + 1) * per_step + len(kept) * 4 * width * r
    assert 0 < run.history_bytes() <= bound
    assert run.history_bytes() < 250_000


def test_divergence_error_names_the_step(tiny_cfg):
    run = Run(build_world(tiny_cfg.replace(eta=1e6, T=60), device="cpu"), embed=False)
    with pytest.raises(DivergenceError) as err:
        list(run)
    step = err.value.step
    assert step > 2  # steps 1–2 use their own (finite) step sizes
    assert step == run.t
    assert f"step {step}" in str(err.value)
    assert err.value.what in str(err.value)
    assert len(run.history) == step  # the failing step is not recorded
    assert all(np.isfinite(s.a).all() and np.isfinite(s.b).all() for s in run.history)


def test_no_snapshot_shows_non_finite_numbers_before_divergence_is_raised(tiny_cfg):
    run = Run(build_world(tiny_cfg.replace(eta=1e6, T=60), device="cpu"), embed=False)
    with pytest.raises(DivergenceError):
        list(run)
    for s in run.history:
        assert math.isfinite(s.train_loss) and math.isfinite(s.test_loss), s.step
        assert math.isfinite(s.weight_ratio) or s.step == 0, s.step
