"""engine/data.py sampling: draws match the population statistics, labels match their definition,
class counts, normalisation and the input-space path (split from test_engine_data.py).

Every expected number is computed here independently, never through the engine's own helpers.
"""

from __future__ import annotations

import numpy as np
import pytest
from engine_ref import TINY

from engine.config import Config, ConfigError
from engine.data import make_dataset, population_stats, sample


def raw_patterns(ds) -> np.ndarray:
    """Recover the un-normalised φ̃ ∈ {0,1}^D of a pattern-space dataset: φ̃ = z σ̃ + E φ̃."""
    st = ds.stats
    mean = np.full(ds.M.shape[1], st.mean_bg)
    mean[ds.A] = st.mean_rel
    return ds.z_train.astype(np.float64) * st.sigma + mean


def _empirical(phi: np.ndarray, y: np.ndarray, A: np.ndarray):
    rel = np.zeros(phi.shape[1], dtype=bool)
    rel[A] = True
    phi = phi.astype(np.float64)
    y = y.astype(np.float64)
    cov = (phi * y[:, None]).mean(0) - phi.mean(0) * y.mean()
    return {"gamma": cov[rel].mean(), "sigma2": phi.var(0).sum(),
            "mean_rel": phi[:, rel].mean(), "mean_bg": phi[:, ~rel].mean(),
            "pos_frac": (y > 0).mean(), "cov_bg": np.abs(cov[~rel]).max()}


@pytest.mark.parametrize("changes", [
    dict(labeling="parity", k=3, p_o=0.5),
    dict(labeling="parity", k=3, p_o=0.3),
    dict(labeling="parity", k=3, p_o=0.5, neg_ratio=0.8),
    dict(labeling="interval", k=7, t1=3, t2=5, p_a=2 / 3, p_o=0.4),
    dict(labeling="threshold", k=5, p_a=0.6, p_o=0.3),
    dict(labeling="custom", k=4, P="1,4", p_a=0.5, p_o=0.5),
    dict(labeling="parity", k=3, structure=False),
])
def test_large_sample_matches_population_stats(changes):
    cfg = Config(d=12, D=12, n=200_000, n_test=10, batch=100, **changes)
    st = population_stats(cfg)
    A = np.array([1, 4, 6, 7, 9, 10, 11][: cfg.k])
    phi, y = sample(cfg, np.random.default_rng(123), cfg.n, A)
    assert phi.shape == (cfg.n, 12) and set(np.unique(phi)) <= {0.0, 1.0}
    emp = _empirical(phi, y, A)
    se = 1 / np.sqrt(cfg.n)
    assert emp["gamma"] == pytest.approx(st.gamma, abs=5 * se)
    assert emp["sigma2"] == pytest.approx(st.sigma2, abs=20 * se)
    assert emp["mean_rel"] == pytest.approx(st.mean_rel, abs=5 * se)
    assert emp["mean_bg"] == pytest.approx(st.mean_bg, abs=5 * se)
    assert emp["pos_frac"] == pytest.approx(st.pos_frac, abs=5 * se)
    if cfg.neg_ratio is None and (cfg.labeling != "parity" or cfg.p_o == 0.5):
        # (A2): background patterns are uncorrelated with the label
        assert emp["cov_bg"] < 5 * se


def test_parity_mixture_background_depends_on_relevant_block_when_p_o_not_half():
    """D(1)'s background probability is p_o/(2 − 2p_o), so the background rate given
    φ̃_A ∈ {0^k, 1^k} differs from p_o (paper-spec §2.2 caveat); given a mixed φ̃_A (only D(0)
    produces those) it is exactly 1/2."""
    cfg = Config(d=12, D=12, k=3, p_o=0.3, n=200_000, n_test=10, batch=100)
    A = np.array([0, 5, 9])
    phi, _ = sample(cfg, np.random.default_rng(7), cfg.n, A)
    rel = phi[:, A].sum(1)
    bg = np.delete(phi, A, axis=1)
    q1 = 0.3 / 1.4
    w0, w1 = 0.3 / 8, 0.35  # Pr[D(0) and φ̃_A = 1^k], Pr[D(1) and φ̃_A = 1^k]
    want_pure = (w0 * 0.5 + w1 * q1) / (w0 + w1)
    pure = (rel == 0) | (rel == 3)
    assert bg[pure].mean() == pytest.approx(want_pure, abs=0.004)
    assert bg[~pure].mean() == pytest.approx(0.5, abs=0.004)
    assert bg.mean() == pytest.approx(0.3, abs=0.003)


# ---------------------------------------------------------------- labels and normalisation


@pytest.mark.parametrize("changes", [
    dict(labeling="parity", k=5),
    dict(labeling="parity", k=3, p_o=0.25),
    dict(labeling="interval", k=7, t1=3, t2=5),
    dict(labeling="threshold", k=5, p_a=0.55),
    dict(labeling="custom", k=5, P="1,4"),
    dict(labeling="parity", k=5, structure=False),
])
def test_labels_match_their_definition(changes):
    cfg = Config(d=40, D=20, n=5000, n_test=100, batch=100, **changes)
    ds = make_dataset(cfg, space="pattern")
    phi = raw_patterns(ds)
    bits = np.rint(phi)
    assert np.abs(phi - bits).max() < 1e-5
    assert set(np.unique(bits)) <= {0.0, 1.0}
    counts = bits[:, ds.A].sum(1).astype(int)
    if cfg.labeling == "parity":
        want = counts % 2 == 1
    elif cfg.labeling == "interval":
        want = (counts >= cfg.t1) & (counts <= cfg.t2) & (counts >= 1)
    elif cfg.labeling == "threshold":
        want = counts > cfg.k / 2
    else:
        want = np.isin(counts, [1, 4])
    np.testing.assert_array_equal(ds.y_train, np.where(want, 1.0, -1.0))
    assert ds.y_train.dtype == np.float32
    assert 0 < (ds.y_train > 0).mean() < 1


def test_parity_classes_are_balanced(tiny_cfg):
    cfg = tiny_cfg.replace(n=40_000, batch=100)
    ds = make_dataset(cfg)
    se = 0.5 / np.sqrt(cfg.n)
    assert (ds.y_train > 0).mean() == pytest.approx(0.5, abs=4 * se)


@pytest.mark.parametrize("n,n_test", [(3000, 1000), (2999, 1001)])
def test_neg_ratio_gives_exact_negative_count(n, n_test):
    cfg = Config(**{**TINY, "n": n, "n_test": n_test}, neg_ratio=0.8)
    ds = make_dataset(cfg)
    assert len(ds.y_train) == n and len(ds.y_test) == n_test
    assert int((ds.y_train < 0).sum()) == int(round(0.8 * n))
    assert int((ds.y_test < 0).sum()) == int(round(0.8 * n_test))
    # the rejection sampler shuffles: negatives are not all at the front
    first = (ds.y_train[: n // 5] < 0).mean()
    assert 0.6 < first < 0.95
    # labels still follow the parity rule
    counts = np.rint(raw_patterns(ds))[:, ds.A].sum(1).astype(int)
    np.testing.assert_array_equal(ds.y_train, np.where(counts % 2 == 1, 1.0, -1.0))


@pytest.mark.parametrize("changes", [dict(), dict(p_o=0.3), dict(labeling="interval", k=7, t1=3,
                                                                     t2=5, p_a=0.7),
                                     dict(structure=False)])
def test_normalised_inputs_have_unit_trace_and_zero_mean(changes):
    cfg = Config(**{**TINY, "n": 40_000, "batch": 100, **changes})
    ds = make_dataset(cfg, space="pattern")
    z = ds.z_train.astype(np.float64)
    assert (z**2).sum(1).mean() == pytest.approx(1.0, abs=0.02)
    # each coordinate φ_j has std ≤ 0.5/σ̃: its sample mean is 0 within 5 standard errors
    assert np.abs(z.mean(0)).max() < 5 * 0.5 / (ds.stats.sigma * np.sqrt(cfg.n))


def test_input_space_is_pattern_space_times_M_transposed(tiny_cfg):
    pat = make_dataset(tiny_cfg, space="pattern")
    inp = make_dataset(tiny_cfg, space="input")
    assert pat.in_pattern_space and not inp.in_pattern_space
    np.testing.assert_array_equal(pat.M, inp.M)
    np.testing.assert_array_equal(pat.A, inp.A)
    np.testing.assert_array_equal(pat.y_train, inp.y_train)
    np.testing.assert_array_equal(pat.y_test, inp.y_test)
    np.testing.assert_array_equal(inp.basis, np.eye(tiny_cfg.d))
    assert inp.z_train.shape == (tiny_cfg.n, tiny_cfg.d)
    np.testing.assert_allclose(inp.z_train, pat.z_train.astype(np.float64) @ pat.M.T, atol=2e-6)
    np.testing.assert_allclose(inp.z_test, pat.z_test.astype(np.float64) @ pat.M.T, atol=2e-6)
    # ⟨M_j, x⟩ = φ_j and the truth in coordinates is Σ_A M either way
    np.testing.assert_allclose(inp.z_train @ inp.M, pat.z_train, atol=2e-6)
    np.testing.assert_allclose(inp.truth_coords, inp.truth, atol=1e-12)
    ind = np.zeros(tiny_cfg.D)
    ind[pat.A] = 1
    np.testing.assert_array_equal(pat.truth_coords, ind)
    np.testing.assert_allclose(inp.patterns_in_coords, inp.M, atol=1e-12)


def test_noise_forces_input_space_and_adds_isotropic_noise(tiny_cfg):
    cfg = tiny_cfg.replace(noise=0.2, n=20_000)
    ds = make_dataset(cfg)  # auto
    assert not ds.in_pattern_space
    assert ds.z_train.shape == (cfg.n, cfg.d)
    with pytest.raises(ConfigError) as err:
        make_dataset(cfg, space="pattern")
    assert err.value.name == "noise"
    clean = make_dataset(cfg.replace(noise=0.0), space="pattern")
    # same draws of φ̃ and y; the difference is N(0, (σ_ζ/σ̃)² I_d) noise
    np.testing.assert_array_equal(ds.y_train, clean.y_train)
    sigma = ds.stats.sigma
    st_clean = population_stats(cfg.replace(noise=0.0))
    noise = ds.z_train - (clean.z_train * st_clean.sigma / sigma) @ ds.M.T
    assert noise.std() == pytest.approx(0.2 / sigma, rel=0.01)
    assert (noise @ ds.M).std() == pytest.approx(0.2 / sigma, rel=0.02)
    assert abs(noise.mean()) < 0.01 * 0.2 / sigma
    # the trace normalisation includes the noise: E‖x‖² = 1
    assert (ds.z_train.astype(np.float64) ** 2).sum(1).mean() == pytest.approx(1.0, abs=0.02)
