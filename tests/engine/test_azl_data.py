"""The AZL world's data oracles (spec §3.1.6): population moments, samples, pair stars."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from engine.errors import ConfigError
from engine.procedures.resnet3.probes import fit_numbers
from engine.scenarios.azl.config import AZLConfig, from_dict
from engine.scenarios.azl.data import draw, make_data, pair_stars, population_moments, target


@pytest.mark.parametrize("variant, k, e_y2, threshold",
                         [("v1v2", 8, 8.72, 0.72), ("literal", 8, 8.72, 0.72),
                          ("k15", 15, 16.35, 1.35)])
def test_population_moments_exact(variant, k, e_y2, threshold):
    """E‖y‖² = k(β² + α²) by enumeration; F orthonormal; F ⊥ G; threshold kα²."""
    cfg = AZLConfig(variant=variant)
    mom = population_moments(cfg)
    assert cfg.k == k
    assert mom["E_y2"] == pytest.approx(e_y2, abs=1e-12)
    assert cfg.threshold == pytest.approx(threshold, abs=1e-12)
    np.testing.assert_allclose(mom["FF"], np.eye(k), atol=1e-12)
    np.testing.assert_allclose(mom["FG"], 0.0, atol=1e-12)
    np.testing.assert_allclose(np.diag(mom["GG"]), 1.0, atol=1e-12)


def test_sampled_moments_within_tolerance():
    """On 20 000 samples: E‖y‖² within ±0.1 of 8.72, E[F Fᵀ] = I and E[F Gᵀ] = 0 within ±0.02."""
    cfg = AZLConfig()
    x, y, f, g = draw(np.random.default_rng(123), 20_000, cfg)
    assert set(np.unique(x)) == {-1.0, 1.0}
    assert float((y.astype(np.float64) ** 2).sum(axis=1).mean()) == pytest.approx(8.72, abs=0.1)
    n = len(x)
    np.testing.assert_allclose(f.T @ f / n, np.eye(8), atol=0.02)
    np.testing.assert_allclose(f.T @ g / n, 0.0, atol=0.02)


def test_targets_follow_the_readings():
    """G_r = (−1)^r F₁F₂F₃F₄ by default; the literal reading alternates F₁..F₄ and F₅..F₈."""
    x = np.random.default_rng(0).choice([-1.0, 1.0], size=(50, 30))
    _, f, g = target(x, AZLConfig())
    np.testing.assert_array_equal(f[:, 2], x[:, 4] * x[:, 5])
    first, second = f[:, :4].prod(axis=1), f[:, 4:8].prod(axis=1)
    np.testing.assert_array_equal(g[:, 0], -first)
    np.testing.assert_array_equal(g[:, 5], first)
    _, _, g_lit = target(x, AZLConfig(variant="literal"))
    np.testing.assert_array_equal(g_lit[:, 0], first)
    np.testing.assert_array_equal(g_lit[:, 1], second)
    y15, f15, _ = target(x, AZLConfig(variant="k15"))
    assert y15.shape == (50, 15)
    np.testing.assert_array_equal(f15[:, 14], x[:, 28] * x[:, 29])


def test_fit_numbers_of_exact_parts():
    """out = y gives err 0, c_F = c_G = 1; out = βF (no G) gives err = kα² on every sample."""
    cfg = AZLConfig()
    data = make_data(cfg.replace(n=200, n_test=5000))
    y, f, g = (torch.from_numpy(a) for a in (data.y_test, data.F_test, data.G_test))
    exact = fit_numbers(y, y, f, g, cfg.alpha, cfg.beta)
    assert exact["err"] == pytest.approx(0.0) and exact["c_F"] == pytest.approx(1.0, abs=0.05)
    assert exact["c_G"] == pytest.approx(1.0, abs=0.1)
    no_g = fit_numbers(f, y, f, g, cfg.alpha, cfg.beta)
    assert no_g["err"] == pytest.approx(cfg.threshold, abs=1e-5)


def test_same_seed_same_data_other_seed_differs():
    """Per-run generators: a seed fixes the data; another seed draws other data."""
    a, b = make_data(AZLConfig(n=200, n_test=300)), make_data(AZLConfig(n=200, n_test=300))
    c = make_data(AZLConfig(n=200, n_test=300, seed=1))
    np.testing.assert_array_equal(a.x_train, b.x_train)
    np.testing.assert_array_equal(a.y_test, b.y_test)
    assert not np.array_equal(a.x_train, c.x_train)


def test_pair_stars_are_the_pair_features():
    """32 unit stars; x₁x₂ = σ(x₁+x₂) + σ(−x₁−x₂) − 1 on every ±1 pair (why they are stars)."""
    stars = pair_stars(AZLConfig())
    assert stars.shape == (32, 30)
    np.testing.assert_allclose(np.linalg.norm(stars, axis=1), 1.0)
    assert set(np.flatnonzero(stars[:4].any(axis=0))) == {0, 1}
    relu = lambda v: np.maximum(v, 0)  # noqa: E731
    for x1 in (-1, 1):
        for x2 in (-1, 1):
            assert x1 * x2 == relu(x1 + x2) + relu(-x1 - x2) - 1


@pytest.mark.parametrize("values, field", [({"m": 0}, "m"), ({"variant": "k9"}, "variant"),
                                           ({"lr": "fast"}, "lr"), ({"batch": 5000}, "batch"),
                                           ({"drop_epoch": 40}, "drop_epoch"),
                                           ({"width": 3}, "width"),
                                           ({"fc_bias": "learned"}, "fc_bias")])
def test_bad_settings_name_the_field(values, field):
    """A bad setting raises one ConfigError naming the field and the allowed range."""
    with pytest.raises(ConfigError) as err:
        from_dict(values)
    assert err.value.name == field
    assert "\n" not in str(err.value)


def test_engine_dataset_carries_the_world():
    """The engine Dataset: inputs as x, y n×k, 32 pair stars with sum (+1) / difference (−1)
    labels, F and G in extras; settings read from Config-like fields."""
    from types import SimpleNamespace

    from engine.scenarios.azl.convert import engine_dataset, from_engine

    acfg = from_engine(SimpleNamespace(n=300, n_test=400, seed=3, azl_variant="literal"))
    assert (acfg.n, acfg.seed, acfg.variant, acfg.m) == (300, 3, "literal", 300)
    ds = engine_dataset(acfg)
    assert ds.z_train.shape == (300, 30) and ds.y_test.shape == (400, 8)
    assert not ds.has_truth and ds.centres.shape == (32, 30)
    pair_product = np.array([np.prod(row[row != 0]) for row in ds.centres])
    np.testing.assert_allclose(pair_product, 0.5 * ds.centre_labels)
    np.testing.assert_array_equal(ds.extras["F_test"], make_data(acfg).F_test)
