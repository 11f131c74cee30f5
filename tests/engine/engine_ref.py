"""Independent float64 reference of the paper's network (paper-spec §3), written from the
formulas rather than from engine code, plus small numeric helpers for the engine tests."""

from __future__ import annotations

import math

import numpy as np
import torch

TINY = dict(d=40, D=20, k=3, m=16, n=3000, n_test=1000, T=12, batch=200)


def smooth_sigma(z: torch.Tensor, s: float, truncated: bool) -> torch.Tensor:
    """E_ξ σ(z + ξ), ξ ~ N(0, s²), in closed form (paper-spec §3.3); s = 0 gives σ itself.

    h(z) = zΦ(z/s) + sφ(z/s) = E relu(z + ξ); the truncated ReLU is relu(z) − relu(z − 1).
    Differentiable by autograd, so its derivative is Φ(z/s) − Φ((z−1)/s) by construction.
    """
    if s <= 0:
        return z.clamp(0.0, 1.0) if truncated else z.clamp_min(0.0)

    def h(v):
        u = v / s
        return v * torch.special.ndtr(u) + s * torch.exp(-0.5 * u * u) / math.sqrt(2 * math.pi)

    return h(z) - h(z - 1.0) if truncated else h(z)


def ref_output(w, b, a, x, xi: float = 0.0, truncated: bool = True):
    """g(x; ξ) = Σ_i a_i E σ(⟨w_i, x⟩ + b_i + ξ_i) in d-space."""
    return smooth_sigma(x @ w.T + b, xi, truncated) @ a


def ref_loss(w, b, a, x, y, xi: float = 0.0, truncated: bool = True):
    """Mean hinge loss max(0, 1 − y g(x; ξ)) of the smoothed network."""
    return (1.0 - y * ref_output(w, b, a, x, xi, truncated)).clamp_min(0.0).mean()


def ref_grads(w, b, a, x, y, xi: float = 0.0, truncated: bool = True):
    """Autograd gradients (∂L/∂w, ∂L/∂b, ∂L/∂a) of ref_loss in float64."""
    w, b, a = (t.detach().double().clone().requires_grad_(True) for t in (w, b, a))
    loss = ref_loss(w, b, a, x.double(), y.double(), xi, truncated)
    gw, gb, ga = torch.autograd.grad(loss, (w, b, a))
    return gw, gb, ga, float(loss.detach())


def d_space_weights(p, basis: np.ndarray) -> torch.Tensor:
    """w_i = B q_i + perp_scale · perp_i in float64 (B = M in pattern space, I_d in input space)."""
    B = torch.as_tensor(basis, dtype=torch.float64)
    w = p.q.double() @ B.T
    if p.perp is not None and p.perp_scale != 0.0:
        w = w + p.perp_scale * p.perp.double()
    return w


def d_space_inputs(ds, which: str = "train") -> torch.Tensor:
    """x = B z in float64 for the train or test coordinates."""
    z = ds.z_train if which == "train" else ds.z_test
    return torch.as_tensor(z, dtype=torch.float64) @ torch.as_tensor(ds.basis).T


def rel_err(got, want) -> float:
    """‖got − want‖ / ‖want‖ for tensors or arrays (float64)."""
    got = torch.as_tensor(np.asarray(got, dtype=np.float64) if not torch.is_tensor(got) else got)
    want = torch.as_tensor(np.asarray(want, dtype=np.float64) if not torch.is_tensor(want)
                           else want)
    got, want = got.double(), want.double()
    return float((got - want).norm() / want.norm().clamp_min(1e-300))


def max_drop_after(acc: list[float], level: float = 0.95) -> float:
    """Largest fall between consecutive steps after the first step at or above `level`."""
    first = next((i for i, a in enumerate(acc) if a >= level), None)
    if first is None:
        return 0.0
    return max([acc[i] - acc[i + 1] for i in range(first, len(acc) - 1)] + [0.0])
