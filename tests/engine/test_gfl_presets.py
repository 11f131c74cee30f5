"""The GFL presets (seed 0) against the issue's "Done when" numbers (issue 21): the data oracles
and the step-1 probes here (seconds), the trained accuracies in one slow test per world."""

from __future__ import annotations

import numpy as np
import pytest

from engine.methods import make_run
from engine.presets import preset_config
from engine.scenarios.gfl import datasets
from engine.worlds import build_world


def after_step_one(preset: str, method: str = "one_step", **changes):
    """(step-0, step-1) snapshots of one method on a preset."""
    cfg = preset_config(preset)
    w = build_world(cfg.replace(**changes) if changes else cfg, "cpu")
    run = make_run(method, w, embed=False)
    run.step()
    return run.history[0], run.history[1]


def test_xor_step_one_covers_the_four_centres():
    s0, s1 = after_step_one("gfl-xor")
    assert s0.extra["coverage"] <= 0.30 and s1.extra["coverage"] >= 0.90
    assert s1.frac_aligned >= 0.02  # nice share (spec §3.3.6)


def test_uniform_parity_step_one_moves_weight_onto_the_relevant_bits():
    s0, s1 = after_step_one("gfl-uniform-parity")
    assert s0.extra["relevant_share"] <= 0.65 and s1.extra["relevant_share"] >= 0.75
    # at n = 2000 the sampling noise beats the signal ½ξ₃: the share stays low (spec §3.5.6)
    assert after_step_one("gfl-uniform-parity", n=2000)[1].extra["relevant_share"] < 0.7


def test_multi_index_step_one_projects_onto_the_plane_and_rf_does_not():
    _, s1 = after_step_one("gfl-multi-index")
    _, rf1 = after_step_one("gfl-multi-index", "rf")
    assert s1.extra["relevant_share"] >= 0.80 and rf1.extra["relevant_share"] <= 0.30


def test_parity_blocks_step_one_covers_every_block_and_rf_does_not():
    _, s1 = after_step_one("gfl-parity-blocks")
    _, rf1 = after_step_one("gfl-parity-blocks", "rf")
    assert s1.extra["coverage"] >= 0.90 and rf1.extra["coverage"] <= 0.50


def test_mog_step_one_covers_every_centre():
    s0, s1 = after_step_one("gfl-mog")
    assert s0.extra["coverage"] <= 0.45 and s1.extra["coverage"] >= 0.90


def test_linear_step_one_puts_every_live_neuron_on_the_star():
    """The always-on half lands on ±w* (|cos| ≥ 0.99), the never-on half stays at 0 (§3.7)."""
    _, s1 = after_step_one("gfl-linear")
    norms = np.linalg.norm(s1.weights, axis=1)
    live = norms > 0
    assert live.mean() == pytest.approx(0.5)
    assert np.abs(s1.cos[live]).min() >= 0.99


def test_data_oracles():
    up = datasets.uniform_parity(preset_config("gfl-uniform-parity"))
    assert abs(up.y_train.mean()) <= 0.02
    assert np.array_equal(up.y_test, np.prod(up.z_test[:, up.A], axis=1))
    mi = datasets.multi_index(preset_config("gfl-multi-index").replace(n=20000))
    y = mi.y_train.astype(np.float64)
    assert abs(y.mean()) <= 0.03 and abs((y * y).mean() - 1) <= 0.05
    assert np.linalg.norm((y[:, None] * mi.z_train).mean(axis=0)) <= 0.05
    cfg = preset_config("gfl-parity-blocks")
    pb = datasets.parity_blocks(cfg)
    assert abs((pb.y_test > 0).mean() - 0.5) <= 0.02
    assert abs(pb.extras["uniform_test"].mean() - (1 - 2 * cfg.r * cfg.p_a)) <= 0.02


def trained(preset: str, methods=("network", "ntk", "rf", "one_step"), **settings) -> dict:
    """The preset's methods trained to T (settings changed): method → last snapshot."""
    w = build_world(preset_config(preset).replace(**settings), "cpu")
    out = {}
    for m in methods:
        run = make_run(m, w, embed=False)
        while not run.done:
            run.step()
        out[m] = run.history[-1]
    return out


@pytest.mark.slow
def test_xor_trained():
    last = trained("gfl-xor")
    assert last["network"].test_acc >= 0.95 and last["one_step"].test_acc >= 0.95
    assert last["network"].test_acc - last["rf"].test_acc >= 0.30  # spec §3.3.6's gap


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="issue 21 asks RF ≤ 62 % and NTK ≤ 65 %; with the Adam "
                   "classifier stage we measure RF 63.5 / 66.2 / 65.2 % and NTK 89.2 / 91.5 / "
                   "89.8 % on seeds 0 / 1 / 2 (docs/gfl.md)")
def test_xor_kernels_as_low_as_the_issue_asks():
    last = trained("gfl-xor")
    assert last["rf"].test_acc <= 0.62 and last["ntk"].test_acc <= 0.65


@pytest.mark.slow
def test_xor_kernels_stay_low_with_the_sources_plain_steps():
    """optimizer=sgd (one step c/L for a and W, L = λ_max of the tangent Gram): the kernels stay
    kernels (seed 0: RF 56.1 %, NTK 53.8 %)."""
    last = trained("gfl-xor", ("ntk", "rf"), optimizer="sgd")
    assert last["rf"].test_acc <= 0.62 and last["ntk"].test_acc <= 0.65


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="plain steps c/L do not converge in T = 200: One Step "
                   "90.9 % (seed 0; the mean feature's eigenvalue is 8× the next, docs/gfl.md)")
def test_xor_one_step_converges_with_the_sources_plain_steps():
    assert trained("gfl-xor", ("one_step",), optimizer="sgd")["one_step"].test_acc >= 0.95


@pytest.mark.slow
def test_uniform_parity_trained():
    last = trained("gfl-uniform-parity")
    assert last["one_step"].test_acc >= 0.95 and last["rf"].test_acc <= 0.85


@pytest.mark.slow
def test_multi_index_trained():
    last = trained("gfl-multi-index")
    assert last["one_step"].extra["test_mse_ratio"] <= 0.30
    assert last["rf"].extra["test_mse_ratio"] >= 0.60


@pytest.mark.slow
def test_linear_trained():
    last = trained("gfl-linear")
    for m in ("network", "ntk", "one_step"):
        assert last[m].test_acc >= 0.99, m


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="issue 21 asks every method ≥ 99 % on linear data; RF "
                   "reaches 81.1 / 87.5 / 92.8 % on seeds 0 / 1 / 2 in T = 100 (docs/gfl.md)")
def test_linear_rf_as_high_as_the_issue_asks():
    assert trained("gfl-linear")["rf"].test_acc >= 0.99


@pytest.mark.slow
def test_mog_trained():
    assert trained("gfl-mog")["network"].test_acc >= 0.95
