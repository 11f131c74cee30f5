"""engine/data.py: dictionary, labelings, exact population statistics, sampling, normalisation.

Every expected number is computed here independently (closed forms of paper-spec §2.2–2.3,
brute-force enumeration or binomial sums), never through the engine's own helpers.
"""

from __future__ import annotations

import itertools
from math import comb

import numpy as np
import pytest
from engine_ref import TINY
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.config import Config, label_set
from engine.data import make_dataset, population_stats

# ---------------------------------------------------------------- independent references


def enumerate_parity_mixture(k: int, D: int, p_o: float):
    """(γ, σ̃², Pr[y=+1], E φ̃_rel, E φ̃_bg) of D_mix = p_o D(0) + (1−p_o) D(1) by enumerating
    every φ̃_A ∈ {0,1}^k; backgrounds are Bern(1/2) in D(0) and Bern(p_o/(2−2p_o)) in D(1)."""
    q1 = p_o / (2 - 2 * p_o)
    e_y = e_rel = e_yrel = 0.0
    for bits in itertools.product((0, 1), repeat=k):
        prob = p_o * 0.5**k
        if all(b == 1 for b in bits) or all(b == 0 for b in bits):
            prob += (1 - p_o) / 2
        y = 1.0 if sum(bits) % 2 == 1 else -1.0
        e_y += prob * y
        e_rel += prob * bits[0]
        e_yrel += prob * y * bits[0]
    e_bg = p_o * 0.5 + (1 - p_o) * q1
    gamma = e_yrel - e_y * e_rel
    sigma2 = k * e_rel * (1 - e_rel) + (D - k) * e_bg * (1 - e_bg)
    return gamma, sigma2, (1 + e_y) / 2, e_rel, e_bg


def independent_stats(k: int, D: int, p_rel: float, p_bg: float, pos: set[int]):
    """(γ, σ̃², Pr[y=+1]) for independent Bern(p_rel) relevant and Bern(p_bg) background bits,
    y = +1 iff the relevant count is in `pos`, from binomial sums."""
    pmf = [comb(k, c) * p_rel**c * (1 - p_rel) ** (k - c) for c in range(k + 1)]
    pos_frac = sum(pmf[c] for c in pos)
    # Pr[y = +1 | one given relevant bit is on] = Pr[1 + Bin(k−1, p) ∈ pos]
    pmf1 = [comb(k - 1, c) * p_rel**c * (1 - p_rel) ** (k - 1 - c) for c in range(k)]
    pos_on = sum(pmf1[c - 1] for c in pos if c >= 1)
    e_y = 2 * pos_frac - 1
    e_yrel = p_rel * (2 * pos_on - 1)
    gamma = e_yrel - e_y * p_rel
    sigma2 = k * p_rel * (1 - p_rel) + (D - k) * p_bg * (1 - p_bg)
    return gamma, sigma2, pos_frac


# ---------------------------------------------------------------- dictionary, A, seeds


def test_dictionary_is_orthonormal_and_A_is_k_sorted_distinct_indices():
    cfg = Config(d=60, D=25, k=5, n=100, n_test=20, batch=50)
    ds = make_dataset(cfg, space="pattern")
    assert ds.M.shape == (60, 25)
    np.testing.assert_allclose(ds.M.T @ ds.M, np.eye(25), atol=1e-10)
    assert ds.A.shape == (5,)
    assert len(set(ds.A.tolist())) == 5
    assert np.all(np.diff(ds.A) > 0)
    assert ds.A.min() >= 0 and ds.A.max() < 25
    np.testing.assert_allclose(ds.truth, ds.M[:, ds.A].sum(axis=1))
    assert np.linalg.norm(ds.truth) == pytest.approx(np.sqrt(5), rel=1e-12)


def test_square_dictionary_is_orthogonal():
    ds = make_dataset(Config(d=12, D=12, k=3, n=100, n_test=20, batch=50), space="pattern")
    np.testing.assert_allclose(ds.M.T @ ds.M, np.eye(12), atol=1e-10)
    np.testing.assert_allclose(ds.M @ ds.M.T, np.eye(12), atol=1e-10)


def test_same_seed_gives_bitwise_identical_data_and_other_seed_differs():
    cfg = Config(**TINY)
    a, b = make_dataset(cfg), make_dataset(cfg)
    for name in ("M", "A", "z_train", "y_train", "z_test", "y_test"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape
        assert x.tobytes() == y.tobytes(), name
    c = make_dataset(cfg.replace(seed=1))
    assert not np.array_equal(a.M, c.M)
    assert not np.array_equal(a.z_train, c.z_train)
    assert not np.array_equal(a.y_train, c.y_train)
    # the train and test sets are independent draws, not copies of one another
    assert not np.array_equal(a.z_train[:1000], a.z_test[:1000])


# ---------------------------------------------------------------- population statistics


def test_parity_defaults_give_gamma_quarter_and_sigma_five():
    st = population_stats(Config())
    assert st.gamma == pytest.approx(0.25, abs=1e-12)
    assert st.sigma2 == pytest.approx(25.0, abs=1e-9)
    assert st.sigma == pytest.approx(5.0, abs=1e-10)
    assert st.pos_frac == pytest.approx(0.5, abs=1e-12)
    assert st.mean_rel == pytest.approx(0.5) and st.mean_bg == pytest.approx(0.5)
    # σ_φ² = p_o(1 − p_o)/σ̃² = 0.01 (paper-spec §2.2)
    assert st.mean_bg * (1 - st.mean_bg) / st.sigma2 == pytest.approx(0.01)


@pytest.mark.parametrize("k,D,p_o", [(3, 20, 0.5), (3, 20, 0.3), (5, 100, 0.3), (5, 40, 0.6),
                                     (7, 30, 0.1), (1, 10, 0.4)])
def test_parity_mixture_stats_match_enumeration(k, D, p_o):
    cfg = Config(d=max(D, 2), D=D, k=k, p_o=p_o, n=100, n_test=20, batch=50)
    gamma, sigma2, pos, e_rel, e_bg = enumerate_parity_mixture(k, D, p_o)
    st = population_stats(cfg)
    assert st.gamma == pytest.approx(gamma, abs=1e-12)
    assert st.sigma2 == pytest.approx(sigma2, rel=1e-12)
    assert st.pos_frac == pytest.approx(pos, abs=1e-12)
    assert st.mean_rel == pytest.approx(e_rel, abs=1e-12)
    assert st.mean_bg == pytest.approx(e_bg, abs=1e-12)
    if k >= 3:  # the closed forms of paper-spec §2.2 (k = 1 is a degenerate parity)
        assert st.gamma == pytest.approx((1 - p_o) / 2, abs=1e-12)
        assert st.sigma2 == pytest.approx(k / 4 + (D - k) * p_o * (1 - p_o), rel=1e-12)
        assert st.mean_bg == pytest.approx(p_o, abs=1e-12)


def test_parity_p_o_point_three_gamma():
    st = population_stats(Config(k=5, D=100, p_o=0.3))
    assert st.gamma == pytest.approx(0.35, abs=1e-12)
    assert st.sigma2 == pytest.approx(5 / 4 + 95 * 0.21, rel=1e-12)


def test_interval_paper_setting_stats_from_binomials():
    cfg = Config(labeling="interval", k=30, t1=20, t2=30, p_a=2 / 3, p_o=0.5)
    st = population_stats(cfg)
    gamma, sigma2, pos = independent_stats(30, 100, 2 / 3, 0.5, set(range(20, 31)))
    assert st.pos_frac == pytest.approx(pos, abs=1e-12)
    assert st.gamma == pytest.approx(gamma, abs=1e-12)
    assert st.sigma2 == pytest.approx(sigma2, rel=1e-12)
    # the numbers quoted in paper-spec §2.3
    assert pos == pytest.approx(0.585, abs=0.0015)
    assert gamma == pytest.approx(0.068, abs=0.0015)
    assert sigma2 == pytest.approx(30 * 2 / 9 + 70 / 4, rel=1e-12)
    assert sigma2 == pytest.approx(24.17, abs=0.005)


def test_interval_without_structure_stats():
    cfg = Config(labeling="interval", k=30, t1=20, t2=30, p_a=2 / 3, p_o=0.5, structure=False)
    st = population_stats(cfg)
    gamma, sigma2, pos = independent_stats(30, 100, 0.5, 0.5, set(range(20, 31)))
    assert st.pos_frac == pytest.approx(pos, abs=1e-12)
    assert pos == pytest.approx(0.049, abs=0.001)  # paper-spec §2.3
    assert st.gamma == pytest.approx(gamma, abs=1e-12)
    assert gamma == pytest.approx(0.019, abs=0.001)
    assert st.sigma2 == pytest.approx(25.0, rel=1e-12)


@pytest.mark.parametrize("labeling", ["parity", "threshold", "custom"])
def test_without_structure_all_patterns_are_half(labeling):
    cfg = Config(labeling=labeling, k=5, D=30, d=40, P="1,4", p_o=0.2, p_a=0.9, structure=False,
                 n=100, n_test=20, batch=50)
    st = population_stats(cfg)
    assert st.mean_rel == 0.5 and st.mean_bg == 0.5
    assert st.sigma2 == pytest.approx(30 / 4)
    pos = {"parity": {1, 3, 5}, "threshold": {3, 4, 5}, "custom": {1, 4}}[labeling]
    gamma, _, pos_frac = independent_stats(5, 30, 0.5, 0.5, pos)
    assert st.pos_frac == pytest.approx(pos_frac, abs=1e-12)
    assert st.gamma == pytest.approx(gamma, abs=1e-12)
    if labeling == "parity":
        assert st.gamma == pytest.approx(0.0, abs=1e-12)  # (A1') parity: no correlation


def test_threshold_and_custom_stats_from_binomials():
    for cfg, pos in [(Config(labeling="threshold", k=7, D=30, d=30, p_a=0.6, p_o=0.3),
                      {4, 5, 6, 7}),
                     (Config(labeling="custom", P="2,3,6", k=6, D=30, d=30, p_a=0.4, p_o=0.2),
                      {2, 3, 6})]:
        st = population_stats(cfg)
        gamma, sigma2, pos_frac = independent_stats(cfg.k, cfg.D, cfg.p_a, cfg.p_o, pos)
        assert set(label_set(cfg)) == pos
        assert st.gamma == pytest.approx(gamma, abs=1e-12)
        assert st.sigma2 == pytest.approx(sigma2, rel=1e-12)
        assert st.pos_frac == pytest.approx(pos_frac, abs=1e-12)


@st.composite
def _custom_settings(draw):
    k = draw(st.integers(1, 6))
    pos = draw(st.sets(st.integers(1, k), min_size=1))
    return dict(k=k, D=k + draw(st.integers(0, 5)), P=",".join(map(str, sorted(pos))),
                p_a=draw(st.floats(0.05, 0.95)), p_o=draw(st.floats(0.05, 0.95)),
                neg_ratio=draw(st.one_of(st.none(), st.floats(0.1, 0.9))))


@settings(max_examples=60, deadline=None)
@given(_custom_settings())
def test_population_stats_equal_brute_force_enumeration(s):
    """Any custom label set, relevant/background probabilities and class reweighting: γ, σ̃²,
    means and class balance equal a brute-force sum over all φ̃_A ∈ {0,1}^k."""
    pos = {int(c) for c in s["P"].split(",")}
    k, p = s["k"], s["p_a"]
    mass = np.zeros(2)  # [neg, pos]
    rel = np.zeros(2)  # E[φ̃_first 1{y = v}]
    for bits in itertools.product((0, 1), repeat=k):
        prob = np.prod([p if b else 1 - p for b in bits])
        v = int(sum(bits) in pos)
        mass[v] += prob
        rel[v] += prob * bits[0]
    natural = mass[1]
    if s["neg_ratio"] is not None:
        w = np.array([s["neg_ratio"], 1 - s["neg_ratio"]]) / mass
        mass, rel = mass * w, rel * w
    mean_rel = rel.sum()
    gamma = (rel[1] - rel[0]) - (mass[1] - mass[0]) * mean_rel
    sigma2 = k * mean_rel * (1 - mean_rel) + (s["D"] - k) * s["p_o"] * (1 - s["p_o"])
    cfg = Config(labeling="custom", d=max(s["D"], 2), n=100, n_test=20, batch=50, **s)
    got = population_stats(cfg)
    assert got.natural_pos_frac == pytest.approx(natural, abs=1e-12)
    assert got.pos_frac == pytest.approx(mass[1], abs=1e-12)
    assert got.mean_rel == pytest.approx(mean_rel, abs=1e-12)
    assert got.mean_bg == pytest.approx(s["p_o"], abs=1e-12)  # independent of y: unchanged
    assert got.gamma == pytest.approx(gamma, abs=1e-12)
    assert got.sigma2 == pytest.approx(sigma2, abs=1e-12)


def test_neg_ratio_reweights_population_stats():
    st = population_stats(Config(neg_ratio=0.8))
    assert st.pos_frac == pytest.approx(0.2, abs=1e-12)
    assert st.natural_pos_frac == pytest.approx(0.5, abs=1e-12)


def test_noise_adds_d_sigma_zeta_squared_to_sigma2():
    base, noisy = Config(), Config(noise=0.1)
    assert population_stats(noisy).sigma2 == pytest.approx(
        population_stats(base).sigma2 + 500 * 0.01, rel=1e-12)


# ---------------------------------------------------------------- sampling vs population
