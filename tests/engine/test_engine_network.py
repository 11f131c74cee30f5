"""engine/network.py: the Gaussian-smoothed activation and the closed-form hinge gradients.

References: Monte Carlo over ξ for E_ξ σ(z + ξ), and torch.autograd of an independent float64
implementation of the smoothed network (engine_ref.py) for ∂L/∂(w, b, a).
"""

from __future__ import annotations

import pytest
import torch
from engine_ref import ref_grads, ref_output, rel_err

from engine.hinge import hinge_grads
from engine.network import Params, activation, hinge_loss_acc, predict


def _z_grid() -> torch.Tensor:
    return torch.linspace(-0.6, 1.6, 45, dtype=torch.float64)


@pytest.mark.parametrize("truncated", [True, False])
@pytest.mark.parametrize("xi", [0.05, 0.2, 0.5])
def test_smoothed_activation_matches_monte_carlo(truncated, xi):
    gen = torch.Generator().manual_seed(0)
    n_mc = 200_000
    z = _z_grid()
    noise = xi * torch.randn(n_mc, generator=gen, dtype=torch.float64)
    pert = z[:, None] + noise[None, :]
    sig = pert.clamp(0.0, 1.0) if truncated else pert.clamp_min(0.0)
    inside = ((pert > 0) & (pert < 1)) if truncated else (pert > 0)
    mc_act = sig.mean(1)
    mc_der = inside.double().mean(1)
    act, der = activation(z.clone(), xi, truncated)
    # standard errors: ≤ (xi + 0.5)/√n for σ, ≤ 0.5/√n for the indicator
    assert (act - mc_act).abs().max() < 5 * (xi + 0.5) / n_mc**0.5
    assert (der - mc_der).abs().max() < 5 * 0.5 / n_mc**0.5
    # float32 inputs give the same values to float32 precision
    act32, der32 = activation(z.float(), xi, truncated)
    assert (act32.double() - act).abs().max() < 1e-6
    assert (der32.double() - der).abs().max() < 1e-6


@pytest.mark.parametrize("truncated", [True, False])
def test_smoothed_activation_derivative_is_its_slope(truncated):
    """σ̃' returned with σ̃ is the derivative of σ̃ (central differences, float64)."""
    z = _z_grid()
    h = 1e-6
    xi = 0.15
    up, _ = activation(z + h, xi, truncated)
    dn, _ = activation(z - h, xi, truncated)
    _, der = activation(z.clone(), xi, truncated)
    torch.testing.assert_close(der, (up - dn) / (2 * h), atol=1e-7, rtol=0)


@pytest.mark.parametrize("truncated", [True, False])
def test_activation_reduces_to_plain_sigma_as_xi_vanishes(truncated):
    z = _z_grid()
    plain = z.clamp(0.0, 1.0) if truncated else z.clamp_min(0.0)
    ind = ((z > 0) & (z < 1)) if truncated else (z > 0)
    act0, der0 = activation(z.clone(), 0.0, truncated)
    torch.testing.assert_close(act0, plain, atol=0, rtol=0)
    torch.testing.assert_close(der0, ind.double(), atol=0, rtol=0)
    for xi in (1e-2, 1e-3, 1e-4):
        act, der = activation(z.clone(), xi, truncated)
        # E|σ(z+ξ) − σ(z)| ≤ E|ξ| = xi·√(2/π); the kink error is at most 0.4·xi
        assert (act - plain).abs().max() < 0.4 * xi + 1e-12
        far = ((z.abs() > 8 * xi) & ((z - 1).abs() > 8 * xi)) if truncated else (z.abs() > 8 * xi)
        assert (der[far] - ind.double()[far]).abs().max() < 1e-12


def _params(m: int, r: int, twins: bool, seed: int, a_scale: float = 3.0,
            dtype=torch.float64) -> Params:
    gen = torch.Generator().manual_seed(seed)
    half = m if twins else 2 * m
    q = 0.7 * torch.randn(half, r, generator=gen, dtype=dtype)
    b = 0.3 + 0.2 * torch.randn(half, generator=gen, dtype=dtype)
    a = a_scale * torch.randn(half, generator=gen, dtype=dtype) / m**0.5
    if twins:  # equal first-layer halves (the symmetric init's layout), independent a
        q, b = torch.cat([q, q]), torch.cat([b, b])
        a = torch.cat([a, a_scale * torch.randn(m, generator=gen, dtype=dtype) / m**0.5])
    return Params(q, b, a)


def _data(n: int, r: int, seed: int, dtype=torch.float64):
    gen = torch.Generator().manual_seed(seed + 100)
    z = torch.randn(n, r, generator=gen, dtype=dtype) / r**0.5 * 1.5
    y = torch.where(torch.rand(n, generator=gen) < 0.5, -1.0, 1.0).to(dtype)
    return z, y


CASES = [  # (m, r, n, twins): m=150 without twins gives 300 units, i.e. several sample chunks
    (8, 10, 500, False),
    (8, 10, 500, True),
    (150, 12, 2000, False),
    (150, 12, 2000, True),
]


@pytest.mark.parametrize("m,r,n,twins", CASES)
@pytest.mark.parametrize("truncated", [True, False])
@pytest.mark.parametrize("xi", [0.0, 0.12])
def test_hinge_grads_equal_autograd(m, r, n, twins, truncated, xi):
    p = _params(m, r, twins, seed=m + r)
    z, y = _data(n, r, seed=n)
    gw, gb, ga, loss = ref_grads(p.q, p.b, p.a, z, y, xi, truncated)
    g = hinge_grads(p, z, y, xi, truncated)
    margin = y * ref_output(p.q, p.b, p.a, z, xi, truncated)
    active = float((margin <= 1).double().mean())
    assert 0.1 < active < 0.95  # both sides of the hinge are exercised
    assert rel_err(g.q, gw) < 1e-10
    assert rel_err(g.b, gb) < 1e-10
    assert rel_err(g.a, ga) < 1e-10
    assert g.loss == pytest.approx(loss, rel=1e-12)
    assert g.hinge_active == pytest.approx(active, abs=1e-12)


@pytest.mark.parametrize("truncated", [True, False])
def test_hinge_grads_float32_matches_float64_autograd(truncated):
    p64 = _params(40, 16, False, seed=3)
    z64, y64 = _data(2000, 16, seed=4)
    p32 = Params(p64.q.float(), p64.b.float(), p64.a.float())
    gw, gb, ga, loss = ref_grads(p32.q, p32.b, p32.a, z64.float(), y64.float(), 0.1, truncated)
    g = hinge_grads(p32, z64.float(), y64.float(), 0.1, truncated)
    assert g.q.dtype == torch.float32
    assert rel_err(g.q, gw) < 1e-5
    assert rel_err(g.b, gb) < 1e-5
    assert rel_err(g.a, ga) < 1e-5
    assert g.loss == pytest.approx(loss, rel=1e-5)


def test_hinge_grads_without_first_layer_training_returns_zero_first_layer_grads():
    p = _params(8, 10, False, seed=5)
    z, y = _data(400, 10, seed=6)
    full = hinge_grads(p, z, y, 0.0, True)
    frozen = hinge_grads(p, z, y, 0.0, True, train_first=False)
    assert torch.count_nonzero(frozen.q) == 0 and torch.count_nonzero(frozen.b) == 0
    torch.testing.assert_close(frozen.a, full.a, rtol=0, atol=0)
    assert frozen.loss == full.loss and frozen.hinge_active == full.hinge_active


def test_hinge_grads_at_symmetric_init_sees_g_identically_zero():
    """With w_{m+i} = w_i, b_{m+i} = b_i, a_{m+i} = −a_i, g ≡ 0: loss 1, every hinge active,
    and twin neurons get opposite first-layer gradients and equal a-gradients."""
    p = _params(12, 10, True, seed=7)
    p.a[12:] = -p.a[:12]
    z, y = _data(700, 10, seed=8)
    g = hinge_grads(p, z, y, 0.1, True)
    assert g.loss == 1.0 and g.hinge_active == 1.0
    torch.testing.assert_close(g.q[12:], -g.q[:12], rtol=0, atol=0)
    torch.testing.assert_close(g.b[12:], -g.b[:12], rtol=0, atol=0)
    torch.testing.assert_close(g.a[12:], g.a[:12], rtol=0, atol=0)
    gw, gb, ga, _ = ref_grads(p.q, p.b, p.a, z, y, 0.1, True)
    assert rel_err(g.q, gw) < 1e-10 and rel_err(g.a, ga) < 1e-10


@pytest.mark.parametrize("truncated", [True, False])
def test_predict_and_smoothed_activation_match_reference(truncated):
    p = _params(10, 6, False, seed=9)
    z, y = _data(300, 6, seed=10)
    want = ref_output(p.q, p.b, p.a, z, 0.0, truncated)
    torch.testing.assert_close(predict(p, z, truncated, chunk=64), want, rtol=1e-12, atol=1e-12)
    smooth = activation(torch.addmm(p.b, z, p.q.T), 0.2, truncated)[0] @ p.a
    torch.testing.assert_close(smooth, ref_output(p.q, p.b, p.a, z, 0.2, truncated),
                               rtol=1e-12, atol=1e-12)
    loss, acc = hinge_loss_acc(p, z, y, truncated)
    margin = y * want
    assert loss == pytest.approx(float((1 - margin).clamp_min(0).mean()), rel=1e-12)
    assert acc == pytest.approx(float((margin > 0).double().mean()), abs=1e-12)


def test_accuracy_counts_ties_as_half():
    p = Params(torch.zeros(2, 3), torch.zeros(2), torch.tensor([1.0, -1.0]))
    z = torch.randn(10, 3)
    y = torch.tensor([1.0, -1.0] * 5)
    loss, acc = hinge_loss_acc(p, z, y)
    assert acc == 0.5 and loss == 1.0
