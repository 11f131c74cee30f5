"""engine/probes.py and engine/mds.py: cosines, gradient/weight decompositions, the 2-D maps.

Cosines are recomputed in d-space from w_i = B q_i + perp_scale·perp_i; decompositions are fed
gradients whose answer is known by construction; classical MDS is compared with classical MDS
done from scratch on the chord-distance matrix (double centring), and Procrustes alignment with
known rotations and reflections.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from engine_ref import d_space_weights

from engine import mds
from engine.evaluate import star_counts
from engine.network import Params
from engine.probes import Geometry, cosines, grad_decomposition, map_features, weight_decomposition
from engine.run import Run

# ---------------------------------------------------------------- cosines


def _direct_cos(p, ds) -> np.ndarray:
    w = d_space_weights(p, ds.basis).numpy()
    s = ds.truth
    return (w @ s) / (np.linalg.norm(w, axis=1) * np.linalg.norm(s))


@pytest.mark.parametrize("space", ["pattern", "input"])
def test_cosines_match_direct_d_space_computation(space, tiny_world, tiny_world_input):
    world = tiny_world if space == "pattern" else tiny_world_input
    geo = Geometry(world.ds.truth_coords, world.ds.patterns_in_coords, world.ds.A, "cpu")
    got0 = cosines(world.init, geo).double().numpy()
    want0 = _direct_cos(world.init, world.ds)
    np.testing.assert_allclose(got0, want0, atol=1e-6)
    # random init in d = 40: no alignment yet (paper-spec §8.1); E|cos| ≈ √(2/(πd))·... small
    assert np.abs(want0).max() < 0.8
    run = Run(world, embed=False)
    for _ in range(3):
        snap = run.step()
        want = _direct_cos(run.params, world.ds)
        np.testing.assert_allclose(snap.cos, want, atol=1e-5)
        assert snap.cos_max == pytest.approx(want.max(), abs=1e-5)
        assert snap.cos_min == pytest.approx(want.min(), abs=1e-5)
        assert snap.cos_mean == pytest.approx(np.abs(want).mean(), abs=1e-5)


def test_cosines_count_the_off_span_part_of_the_weights(tiny_world):
    """At init the pattern-space q only holds Mᵀw; dropping perp would inflate |cos|."""
    p = tiny_world.init
    geo = Geometry(tiny_world.ds.truth_coords, tiny_world.ds.patterns_in_coords,
                   tiny_world.ds.A, "cpu")
    with_perp = cosines(p, geo).double()
    without = cosines(Params(p.q, p.b, p.a), geo).double()
    ratio = (without / with_perp).numpy()
    want = (p.sq_norms() / (p.q * p.q).sum(1)).sqrt().numpy()
    np.testing.assert_allclose(ratio, want, rtol=1e-5)
    assert ratio.mean() > 1.3  # d = 2D: about half of ‖w‖² lies off span(M)


# ---------------------------------------------------------------- gradient decomposition


def _geometries(ds):
    """(pattern geometry, input geometry, basis change) for one dataset."""
    pat = Geometry(ds.truth_coords if ds.in_pattern_space else ds.M.T @ ds.truth,
                   np.eye(ds.M.shape[1]), ds.A, "cpu")
    inp = Geometry(ds.truth, ds.M, ds.A, "cpu")
    return pat, inp


def test_grad_decomposition_along_the_truth(tiny_world):
    ds = tiny_world.ds
    pat, inp = _geometries(ds)
    gen = torch.Generator().manual_seed(0)
    a = torch.randn(10, generator=gen)
    beta = 0.5 + torch.rand(10, generator=gen)
    ind = torch.zeros(ds.M.shape[1])
    ind[ds.A] = 1.0
    # ∂L/∂w_i = −a_i β_i Σ_A M  ⇒  T_ij = β_i on A, 0 elsewhere
    g_pat = -(a * beta)[:, None] * ind[None, :]
    g_inp = g_pat @ torch.as_tensor(ds.M.T, dtype=torch.float32)
    for geo, g in ((pat, g_pat), (inp, g_inp)):
        out = grad_decomposition(g, a, geo)
        want_rel = float(((a * beta) ** 2).mean().sqrt()) * np.sqrt(ds.A.size)
        assert out["grad_rel"] == pytest.approx(want_rel, rel=1e-5)
        assert out["grad_bg"] < 1e-3 * out["grad_rel"]
        assert out["grad_ratio"] > 1e3
        assert out["snr_median"] > 1e3
        assert out["grad_offdict"] < 1e-3 * out["grad_rel"]
        t = out["T_pattern"]
        np.testing.assert_allclose(t[ds.A], float(beta.mean()), rtol=1e-5)
        np.testing.assert_allclose(np.delete(t, ds.A), 0.0, atol=1e-5)


def test_grad_decomposition_along_a_background_pattern(tiny_world):
    ds = tiny_world.ds
    pat, inp = _geometries(ds)
    j = int(np.setdiff1d(np.arange(ds.M.shape[1]), ds.A)[0])
    a = torch.tensor([1.0, -2.0, 0.5, 3.0])
    c = torch.tensor([0.3, 0.1, -0.2, 0.4])
    g_pat = torch.zeros(4, ds.M.shape[1])
    g_pat[:, j] = c
    g_inp = g_pat @ torch.as_tensor(ds.M.T, dtype=torch.float32)
    for geo, g in ((pat, g_pat), (inp, g_inp)):
        out = grad_decomposition(g, a, geo)
        assert out["grad_rel"] < 1e-6
        assert out["grad_bg"] == pytest.approx(float((c**2).mean().sqrt()), rel=1e-5)
        assert out["grad_ratio"] < 1e-4
        t = out["T_pattern"]
        assert t[j] == pytest.approx(float((-c / a).mean()), rel=1e-5)
        np.testing.assert_allclose(np.delete(t, j), 0.0, atol=1e-6)


def test_grad_decomposition_mixed_signs_and_off_dictionary_part(tiny_world):
    """Per-neuron SNR = mean_A T / mean_¬A |T| with its sign; the off-dictionary residual of an
    input-space gradient is measured separately (and counted as background)."""
    ds = tiny_world.ds
    _, inp = _geometries(ds)
    D = ds.M.shape[1]
    bg = np.setdiff1d(np.arange(D), ds.A)
    a = torch.tensor([2.0, -1.0, 1.0])
    t_rows = torch.zeros(3, D)
    t_rows[:, ds.A] = torch.tensor([[1.0], [0.5], [-0.5]])  # signal (last neuron: wrong sign)
    t_rows[:, bg] = 0.01
    g_coords = -a[:, None] * t_rows  # c_ij = −a_i T_ij
    g = g_coords @ torch.as_tensor(ds.M.T, dtype=torch.float32)
    off = torch.as_tensor(np.linalg.qr(np.hstack([ds.M, np.ones((ds.M.shape[0], 1))]))[0][:, -1],
                          dtype=torch.float32)  # a unit vector orthogonal to span(M)
    g = g + 0.2 * off[None, :]
    out = grad_decomposition(g, a, inp)
    snr = (t_rows[:, ds.A].mean(1) / t_rows[:, bg].abs().mean(1)).numpy()
    assert out["snr_median"] == pytest.approx(float(np.median(snr)), rel=1e-4)
    assert out["grad_offdict"] == pytest.approx(0.2, rel=1e-3)
    rel_n = (g_coords[:, ds.A] ** 2).sum(1).sqrt()
    bg_n = ((g_coords[:, bg] ** 2).sum(1) + 0.04).sqrt()
    assert out["grad_rel"] == pytest.approx(float((rel_n**2).mean().sqrt()), rel=1e-4)
    assert out["grad_bg"] == pytest.approx(float((bg_n**2).mean().sqrt()), rel=1e-4)
    assert out["grad_ratio_median"] == pytest.approx(float((rel_n / bg_n).median()), rel=1e-4)
    np.testing.assert_allclose(out["T_pattern"], t_rows.mean(0).numpy(), atol=1e-5)


def test_grad_decomposition_ignores_dead_neurons(tiny_world):
    ds = tiny_world.ds
    pat, _ = _geometries(ds)
    D = ds.M.shape[1]
    g = torch.zeros(3, D)
    g[0, ds.A] = -1.0
    g[1, ds.A] = -2.0
    g[0, 0 if 0 not in ds.A else int(np.setdiff1d(np.arange(D), ds.A)[0])] = 0.1
    a = torch.ones(3)
    live_only = grad_decomposition(g[:2], a[:2], pat)
    with_dead = grad_decomposition(g, a, pat)  # row 2 is a neuron that never fired
    assert with_dead["snr_median"] == pytest.approx(live_only["snr_median"])
    np.testing.assert_allclose(with_dead["T_pattern"], live_only["T_pattern"])
    assert np.isnan(grad_decomposition(torch.zeros(2, D), a[:2], pat)["grad_ratio"])


# ---------------------------------------------------------------- weight decomposition


def test_weight_ratio_and_off_span(tiny_world):
    ds = tiny_world.ds
    pat, _ = _geometries(ds)
    D = ds.M.shape[1]
    bg = np.setdiff1d(np.arange(D), ds.A)
    ratios = torch.tensor([0.5, 2.0, 8.0, 3.0, 1.0])
    q = torch.zeros(5, D)
    q[:, ds.A[0]] = ratios  # ‖q_A‖ = ratio
    q[:, bg[0]] = 0.6
    q[:, bg[1]] = 0.8  # ‖q_¬A‖ = 1
    perp = torch.zeros(5, ds.M.shape[0])
    perp[:, 0] = torch.tensor([1.0, 2.0, 0.0, 0.0, 1.0])
    p = Params(q, torch.zeros(5), torch.ones(5), perp, 0.5)
    out = weight_decomposition(p, pat)
    assert out["weight_ratio"] == pytest.approx(2.0, rel=1e-6)  # the median
    assert out["off_span"] == pytest.approx(float(np.sqrt(0.25 * (1 + 4 + 0 + 0 + 1) / 5)),
                                            rel=1e-5)
    p.perp_scale = 0.0
    assert weight_decomposition(p, pat)["off_span"] == pytest.approx(0.0, abs=1e-7)


def test_map_features_preserve_d_space_inner_products(tiny_world):
    p = tiny_world.init
    f = map_features(p).astype(np.float64)
    w = d_space_weights(p, tiny_world.ds.basis).numpy()
    np.testing.assert_allclose(f @ f.T, w @ w.T, atol=1e-5)


# ---------------------------------------------------------------- MDS


def _mds_from_chords(points: np.ndarray) -> np.ndarray:
    """Textbook classical MDS: D_ij = ‖u_i − u_j‖ (unit rows), B = −½ J D² J, top-2 of B."""
    u = points / np.linalg.norm(points, axis=1, keepdims=True)
    d2 = np.clip(2 - 2 * (u @ u.T), 0, None)
    n = len(u)
    j = np.eye(n) - np.ones((n, n)) / n
    b = -0.5 * j @ d2 @ j
    vals, vecs = np.linalg.eigh(b)
    return vecs[:, ::-1][:, :2] * np.sqrt(np.clip(vals[::-1][:2], 0, None))


@pytest.mark.parametrize("n,f", [(30, 10), (30, 200), (200, 170), (170, 400), (40, 3)])
def test_classical_mds_matches_textbook_mds_of_chord_distances(n, f):
    rng = np.random.default_rng(n + f)
    # anisotropic cloud: a well-separated top-2 eigen-gap
    pts = rng.standard_normal((n, f)) * np.linspace(3.0, 0.5, f)[None, :]
    got = mds.classical(pts)
    want = _mds_from_chords(pts)
    assert got.shape == (n, 2)
    # equal up to a sign per axis: compare Gram matrices
    np.testing.assert_allclose(got @ got.T, want @ want.T, atol=1e-8)
    # a projection never stretches: 2-D distances ≤ chord distances
    u = pts / np.linalg.norm(pts, axis=1, keepdims=True)
    chord = np.sqrt(np.clip(2 - 2 * (u @ u.T), 0, None))
    emb = np.linalg.norm(got[:, None] - got[None], axis=-1)
    assert (emb <= chord + 1e-7).all()
    np.testing.assert_allclose(got.mean(0), 0.0, atol=1e-10)


def test_classical_mds_is_exact_for_planar_directions():
    rng = np.random.default_rng(3)
    basis = np.linalg.qr(rng.standard_normal((50, 2)))[0]
    pts = rng.standard_normal((25, 2)) @ basis.T * rng.uniform(0.5, 3, (25, 1))
    got = mds.classical(pts)
    u = pts / np.linalg.norm(pts, axis=1, keepdims=True)
    chord = np.linalg.norm(u[:, None] - u[None], axis=-1)
    np.testing.assert_allclose(np.linalg.norm(got[:, None] - got[None], axis=-1), chord,
                               atol=1e-10)


def test_classical_mds_one_dimensional_input_is_padded():
    got = mds.classical(np.array([[1.0], [-2.0], [3.0], [0.5]]))
    assert got.shape == (4, 2)
    np.testing.assert_allclose(got[:, 1], 0.0)
    # unit rows are ±1 with mean 0.5: centred coordinates 0.5, −1.5, 0.5, 0.5 (up to sign)
    np.testing.assert_allclose(np.abs(got[:, 0]), [0.5, 1.5, 0.5, 0.5], atol=1e-12)


def _rotation(theta: float, reflect: bool) -> np.ndarray:
    c, s = np.cos(theta), np.sin(theta)
    r = np.array([[c, -s], [s, c]])
    return r @ np.diag([1.0, -1.0]) if reflect else r


@pytest.mark.parametrize("reflect", [False, True])
def test_align_undoes_a_rotation_or_reflection(reflect):
    rng = np.random.default_rng(11)
    prev = rng.standard_normal((34, 2))
    moved = prev @ _rotation(1.1, reflect)
    np.testing.assert_allclose(mds.align(moved, prev), prev, atol=1e-10)


def test_align_is_the_closest_orthogonal_transform():
    rng = np.random.default_rng(12)
    prev = rng.standard_normal((20, 2))
    emb = prev @ _rotation(0.7, False) + 0.3 * rng.standard_normal((20, 2))
    out = mds.align(emb, prev)
    # an orthogonal transform of emb: all pairwise inner products preserved
    np.testing.assert_allclose(out @ out.T, emb @ emb.T, atol=1e-10)
    best = np.linalg.norm(out - prev)
    for theta in np.linspace(0, 2 * np.pi, 73):
        for reflect in (False, True):
            assert best <= np.linalg.norm(emb @ _rotation(theta, reflect) - prev) + 1e-12


def test_first_frame_puts_the_plus_star_on_the_positive_x_axis():
    rng = np.random.default_rng(13)
    emb = rng.standard_normal((10, 2))
    for prev in (None, np.zeros((3, 2))):  # no previous frame, or one of another shape
        out = mds.align(emb, prev)
        assert out[-2, 1] == pytest.approx(0.0, abs=1e-12)
        assert out[-2, 0] == pytest.approx(np.linalg.norm(emb[-2]), rel=1e-12)
        np.testing.assert_allclose(out @ out.T, emb @ emb.T, atol=1e-10)


def test_embed_stars_are_last_rows_and_antipodal_for_a_symmetric_cloud():
    rng = np.random.default_rng(14)
    truth = np.zeros(30)
    truth[[2, 5, 9]] = 1.0
    half = rng.standard_normal((12, 30)) + 2.0 * truth  # leaning towards +Σ_A M
    weights = np.vstack([half, -half])  # the antipodal cloud after step 1
    emb = mds.embed(weights, truth)
    assert emb.shape == (26, 2) and emb.dtype == np.float32
    np.testing.assert_allclose(emb.mean(0), 0.0, atol=1e-6)
    np.testing.assert_allclose(emb[-1], -emb[-2], atol=1e-6)
    assert emb[-2, 0] > 0 and abs(emb[-2, 1]) < 1e-6
    # the star coincides with the direction of the truth: neurons aligned with it sit close
    u = weights / np.linalg.norm(weights, axis=1, keepdims=True)
    cos = u @ truth / np.linalg.norm(truth)
    nearest = np.argmax(cos)
    d_star = np.linalg.norm(emb[:-2] - emb[-2], axis=1)
    assert d_star[nearest] <= np.sort(d_star)[2]
    # the general (non-symmetric) cloud is still centred with both stars appended last
    emb2 = mds.embed(half, truth)
    assert emb2.shape == (14, 2)
    np.testing.assert_allclose(emb2.mean(0), 0.0, atol=1e-6)
    unit = truth / np.linalg.norm(truth)
    full = mds.classical(mds.with_stars(half, truth))
    np.testing.assert_allclose(np.linalg.norm(emb2[-2] - emb2[-1]),
                               np.linalg.norm(full[-2] - full[-1]), rtol=1e-5)
    assert np.linalg.norm(emb2[-2] - emb2[-1]) <= 2 * np.linalg.norm(unit) + 1e-6


def test_embed_aligns_to_the_previous_frame():
    rng = np.random.default_rng(15)
    truth = np.ones(8)
    w0 = rng.standard_normal((10, 8))
    f0 = mds.embed(w0, truth)
    f1 = mds.embed(w0 + 1e-3 * rng.standard_normal((10, 8)), truth, f0)
    assert np.abs(f1 - f0).max() < 0.05  # no flips or rotations between close frames


def test_star_counts_are_exact_at_the_threshold():
    # -0.901 is on the star although its int8 colour (-114/127 = -0.8976) is not
    assert star_counts([0.95, 0.9, 0.9001, -0.901, -0.9, 0.2, -0.95]) == (2, 2)
