"""Headline observations of the extra worlds (issue 8), each at a reduced size, real training."""

from __future__ import annotations

import numpy as np
import pytest

from engine import presets
from engine.cli import main
from engine.compare import Comparison
from engine.config import ConfigError, from_dict
from engine.network import hinge_loss_acc
from engine.probes import weight_decomposition
from engine.scenarios import centre_coverage, make_run, two_cluster_score
from engine.scenarios._common import torch_threads
from engine.trainer import Trainer
from engine.worlds import build_world


def preset_cfg(name: str, **changes):
    """A preset's validated Config with some settings changed."""
    return from_dict({**presets.get(name).settings, **changes})


def train(cfg, method: str = "network"):
    """Train one method on cfg's world (CPU, no map) and return the run."""
    world = build_world(cfg, device="cpu")
    run = make_run(method, world, embed=False)
    if run is None:
        from engine.methods import make_run as engine_run

        run = engine_run(method, world, embed=False)
    for _ in run:
        pass
    return world, run


def fit(cfg):
    """The engine's trainer alone (no per-step probes) for T steps: (world, final params)."""
    world = build_world(cfg, device="cpu")
    trainer = Trainer(world.init.clone(), world.data, world.schedule, cfg.batch, cfg.seed)
    with torch_threads(1):  # small matrices: a second spinning thread only costs time
        for _ in range(cfg.T):
            trainer.step()
    return world, trainer.p


def accuracy(world, params) -> float:
    """Test accuracy of a network state."""
    return hinge_loss_acc(params, world.data.z_test, world.data.y_test,
                          world.schedule.truncated)[1]


def test_mog_every_centre_has_an_aligned_neuron():
    cfg = preset_cfg("paper-mog-2", m=100, n=3000, n_test=1000, T=1200)
    world, params = fit(cfg)
    cov = centre_coverage(params.q.numpy(), world.ds.centres)
    assert len(cov) == 16 and world.ds.centre_labels.tolist().count(1.0) == 8
    assert world.ds.has_truth is False  # the map shows centres, not stars
    assert cov.min() >= 0.9, cov
    assert accuracy(world, params) >= 0.95
    init_cov = centre_coverage(world.init.q.numpy(), world.ds.centres)
    assert init_cov.min() < 0.8  # the alignment is learned, not present at init


def test_digits_01_weights_form_two_clusters():
    world, params = fit(preset_cfg("real-digits-01"))
    score, centres = two_cluster_score(params.q.numpy(), top=0.5)
    assert score >= 0.9
    assert centres[0] @ centres[1] < -0.5  # two distinct (here opposite) directions
    assert two_cluster_score(world.init.q.numpy(), top=0.5)[0] < 0.5
    assert accuracy(world, params) >= 0.95


def test_hidden_representation_learns_and_aligns():
    cfg = preset_cfg("paper-hidden-repr", d=200, D=100, k=20, vectors=20, n=4000,
                     n_test=1000, m=50, T=300)
    world, params = fit(cfg)
    assert accuracy(world, params) >= 0.85
    ratio = weight_decomposition(params, world.evaluator.geo)["weight_ratio"]
    init = weight_decomposition(world.init, world.evaluator.geo)["weight_ratio"]
    assert ratio > 1.15 * init  # the weights move into span(M_A)
    assert world.ds.centres.shape == (40, 100)


def test_dm_sparse_parity_one_step_and_random_features():
    cfg = preset_cfg("dm-sparse-parity", d=50, D=50, n=6000, n_test=2000, m=60, T=250,
                     batch=500)
    comp = Comparison(cfg, ("network", "rf"), device="cpu")
    comp.run_all()
    net, rf = comp.runs["network"], comp.runs["rf"]
    assert net.history[1].cos_max >= 0.95  # neurons ∝ Σ_A e_j after one step
    assert net.history[0].cos_max < 0.6
    assert net.history[-1].test_acc >= 0.95
    assert rf.history[-1].test_acc <= net.history[-1].test_acc - 0.15


def test_fcb_one_step_amplification_and_noise_rate():
    cfg = preset_cfg("fcb-xor", d=50, n=600, n_test=3000, m=50, T=8)
    world, run = train(cfg)
    h = run.history
    assert h[1].extra["corr_own"] >= 2.5 * h[0].extra["corr_own"]
    assert h[-1].extra["corr_own"] >= 0.6
    assert h[-1].extra["clean_test_acc"] >= 0.97
    assert abs((1 - h[-1].test_acc) - cfg.flip) <= 0.03
    assert "corr_mu1" in h[-1].scalars() and world.ds.has_truth is False


def test_fcb_test_error_follows_noise_rate():
    for rate in (0.05, 0.3):
        _, run = train(preset_cfg("fcb-xor", d=50, n=600, n_test=3000, m=50, T=6, flip=rate))
        last = run.history[-1]
        assert abs((1 - last.test_acc) - rate) <= 0.04, (rate, last.test_acc)
        assert 1 - last.extra["clean_test_acc"] <= 0.03, (rate, last.extra)


def test_fcb_fixed_features_lag_the_network():
    cfg = preset_cfg("fcb-xor", d=50, n=600, n_test=2000, m=50, T=6)
    comp = Comparison(cfg, ("network", "rf"), device="cpu")
    comp.run_all()
    summary = comp.summary()
    assert summary["rf"]["test_acc"] <= summary["network"]["test_acc"] - 0.15


def test_teacher_student_real_part_learned_better():
    cfg = preset_cfg("digits-teacher-student", T=150)
    world, run = train(cfg)
    assert world.ds.teacher_agreement >= 0.95
    real = world.ds.extras["real_test"]
    assert real.sum() == pytest.approx((~real).sum(), abs=1)
    last = run.history[-1].extra
    assert last["acc_real"] >= 0.8
    assert last["acc_real"] - last["acc_gauss"] >= 0.2
    whole = last["acc_all"]
    assert min(last["acc_real"], last["acc_gauss"]) <= whole <= max(last["acc_real"],
                                                                      last["acc_gauss"])


def test_scenario_presets_run_from_the_cli(capsys):
    code = main(["run", "--preset", "fcb-xor", "--set", "T=2", "--set", "n=300",
                 "--methods", "network,rf", "--quiet"])
    assert code == 0
    assert "fcb-xor" in capsys.readouterr().out


def test_torchvision_datasets_fail_with_one_clear_line(capsys):
    try:
        import torchvision  # noqa: F401
    except ImportError:
        code = main(["run", "--preset", "real-mnist-01", "--set", "T=2", "--quiet"])
        err = capsys.readouterr().err.strip()
        assert code == 2 and "\n" not in err and "torchvision" in err
    else:
        pytest.skip("torchvision is installed here; the offline message is not reachable")


def test_a_torchvision_that_does_not_load_is_one_clear_line(capsys, monkeypatch):
    """A CUDA torchvision wheel next to a CPU torch raises RuntimeError on import (seen with
    torchvision 0.28.0 from PyPI): still exit 2 with one line, never a traceback."""
    import builtins

    real_import = builtins.__import__

    def failing(name, *args, **kwargs):
        if name == "torchvision" or name.startswith("torchvision."):
            raise RuntimeError("operator torchvision::nms does not exist")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", failing)
    code = main(["run", "--preset", "real-mnist-01", "--set", "T=2", "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err
    assert "torchvision does not load" in err and "RuntimeError" in err


def test_bad_scenario_settings_name_the_setting():
    with pytest.raises(ConfigError, match="flip"):
        preset_cfg("fcb-xor", flip=0.5)
    with pytest.raises(ConfigError, match="alpha"):
        preset_cfg("digits-teacher-student", alpha=1.0)
    with pytest.raises(ConfigError, match="d=65"):
        build_world(preset_cfg("digits-teacher-student", d=65), device="cpu")
    assert np.isfinite(preset_cfg("paper-mog-1").sigma_r)


@pytest.mark.parametrize(("preset", "train", "test"), [("real-digits-01", 252, 108),
                                                         ("real-digits-38", 250, 107)])
def test_real_digits_refuse_more_images_than_the_pair_has(preset, train, test):
    """n or n_test beyond the bundled digits' pair were cut silently (the presets asked for
    110 test images of 108 / 107): now a one-line refusal with the count, and the presets ask
    for what they get."""
    from engine.scenarios.real import load_pair

    cfg = preset_cfg(preset)
    x_tr, _, x_te, _ = load_pair(cfg)
    assert (len(x_tr), len(x_te)) == (cfg.n, cfg.n_test) == (min(250, train), test)
    for name, have in (("n", train), ("n_test", test)):
        with pytest.raises(ConfigError, match=f"^{name}={have + 1} is not allowed: at most "
                                              f"{have}: the bundled 8×8 digits hold {have} "
                                              "(training|test) images of classes [0-9]/[0-9]$"):
            preset_cfg(preset, **{name: have + 1})
        assert getattr(preset_cfg(preset, **{name: have}), name) == have
