"""The exact pattern-space fast path (issue 6) against the d-space computation.

tests/engine/test_engine_training.py already compares accuracies, train loss, cosines, a,
weight_ratio, grad_ratio and the final weights of the network; this file adds every other
probe of every snapshot (b, test loss, hinge activity, off-span part, the whole gradient
decomposition, the kept weights rebuilt in d-space, the MDS map), all six methods of Table 1,
and the fall-back to d-space for inputs outside span(M).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from engine.compare import Comparison
from engine.config import Config
from engine.methods import DEFAULT_METHODS
from engine.run import Run
from engine.worlds import build_world

TINY = dict(d=40, D=20, k=3, m=16, n=3000, n_test=1000, T=12, batch=200)


def _rel(got, want) -> float:
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return float(np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-300))


def _pairwise(emb: np.ndarray) -> np.ndarray:
    """Distances between map points: the same for maps that differ by a rotation/reflection."""
    e = emb.astype(np.float64)
    return np.linalg.norm(e[:, None, :] - e[None, :, :], axis=-1)


@pytest.fixture(scope="module")
def both_runs():
    """The network trained on the tiny parity setting in pattern and in input coordinates."""
    cfg = Config(**TINY)
    runs = {}
    for space in ("pattern", "input"):
        run = Run(build_world(cfg, device="cpu", space=space), embed=True, keep_weights=6)
        list(run)
        runs[space] = run
    assert runs["pattern"].world.ds.in_pattern_space
    assert not runs["input"].world.ds.in_pattern_space
    return runs["pattern"], runs["input"]


def test_every_snapshot_probe_agrees(both_runs):
    pat, inp = both_runs
    for a, b in zip(pat.history, inp.history, strict=True):
        assert (a.step, a.stage, a.full_eval) == (b.step, b.stage, b.full_eval)
        assert a.test_loss == pytest.approx(b.test_loss, rel=1e-3, abs=1e-5)
        assert a.test_acc == pytest.approx(b.test_acc, abs=2e-3)
        assert a.cos_mean == pytest.approx(b.cos_mean, abs=1e-4)
        np.testing.assert_allclose(a.b, b.b, rtol=1e-3, atol=1e-5 * np.abs(a.b).max())
        if a.step > 0:
            assert a.hinge_active == pytest.approx(b.hinge_active, abs=2e-3)
        # step 1 keeps ν⁽¹⁾η⁽¹⁾ of the initial weights (off-span part included); after the reset
        # of step 2 the weights lie in span(M): both paths see no off-span part
        w_rms = float(np.sqrt((a.weights ** 2).sum(1).mean())) if a.weights is not None else 1
        if a.step >= 2:
            assert a.off_span == 0.0
            assert b.off_span < 1e-5 * max(w_rms, 1e-30) or b.off_span < 1e-12
        else:
            assert a.off_span > 0
            assert a.off_span == pytest.approx(b.off_span, rel=1e-3)


def test_gradient_decomposition_agrees(both_runs):
    pat, inp = both_runs
    checked = 0
    for a, b in zip(pat.history, inp.history, strict=True):
        assert a.grad.keys() == b.grad.keys()
        if not a.grad:
            continue
        for key in ("grad_rel", "grad_bg", "grad_ratio", "grad_ratio_median", "snr_median"):
            assert a.grad[key] == pytest.approx(b.grad[key], rel=2e-3), (a.step, key)
        assert a.grad["grad_offdict"] == 0.0  # pattern coordinates have no off-dictionary part
        assert b.grad["grad_offdict"] < 1e-5 * b.grad["grad_rel"]
        t_a, t_b = a.grad["T_pattern"], b.grad["T_pattern"]
        assert _rel(t_a, t_b) < 2e-3, a.step
        checked += 1
    assert checked == TINY["T"]


def test_kept_weights_rebuilt_in_d_space_agree(both_runs):
    pat, inp = both_runs
    M = pat.world.ds.M
    kept = 0
    for a, b in zip(pat.history, inp.history, strict=True):
        assert (a.weights is None) == (b.weights is None)
        if a.weights is None or a.step <= 1:  # steps 0-1 also have the off-basis part (perp)
            continue
        assert a.weights.shape == (2 * TINY["m"], TINY["D"])
        assert b.weights.shape == (2 * TINY["m"], TINY["d"])
        assert _rel(a.weights.astype(np.float64) @ M.T, b.weights) < 1e-3, a.step
        kept += 1
    assert kept >= 4


def test_mds_maps_agree_up_to_rotation(both_runs):
    pat, inp = both_runs
    for a, b in zip(pat.history, inp.history, strict=True):
        assert a.embedding.shape == b.embedding.shape == (2 * TINY["m"] + 2, 2)
        da, db = _pairwise(a.embedding), _pairwise(b.embedding)
        assert np.abs(da - db).max() < 2e-3 * da.max(), a.step


def test_six_methods_agree_in_both_spaces():
    cfg = Config(**TINY)
    out = {}
    for space in ("pattern", "input"):
        cmp_ = Comparison(cfg, DEFAULT_METHODS, device="cpu", space=space)
        cmp_.run_all()
        out[space] = cmp_.summary()
    for method in DEFAULT_METHODS:
        a, b = out["pattern"][method], out["input"][method]
        assert a["steps"] == b["steps"] == cfg.T
        assert a["train_acc"] == pytest.approx(b["train_acc"], abs=2e-3), method
        assert a["test_acc"] == pytest.approx(b["test_acc"], abs=2e-3), method
        if a["cos"] is not None:
            assert a["cos"] == pytest.approx(b["cos"], abs=1e-4), method


def test_additive_noise_falls_back_to_d_space():
    cfg = Config(**TINY).replace(noise=0.05)
    world = build_world(cfg, device="cpu")  # space="auto"
    assert not world.ds.in_pattern_space
    assert world.data.z_train.shape == (cfg.n, cfg.d)
    assert world.evaluator.geo.patterns is not None  # probes project onto M explicitly
    run = Run(world, embed=False)
    snaps = list(run)
    assert all(np.isfinite(s.cos).all() for s in snaps)
    # noisy inputs leave span(M), so the trained weights and gradients do too: the pattern
    # path (which has no off-span part after the reset) could not represent this run
    w = run.params.q.double()
    M = torch.as_tensor(world.ds.M)
    off = float((w - (w @ M) @ M.T).pow(2).sum(1).mean().sqrt())
    assert off > 1e-3 * float(w.pow(2).sum(1).mean().sqrt())
    assert snaps[-1].off_span == pytest.approx(off, rel=1e-3)
    assert snaps[-1].grad["grad_offdict"] > 0
    clean = Run(build_world(cfg.replace(noise=0.0), device="cpu"), embed=False)
    assert clean.world.ds.in_pattern_space
    list(clean)
    assert clean.history[-1].off_span == 0.0
