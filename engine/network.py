"""The two-layer network g(x) = Σ a_i σ(⟨w_i, x⟩ + b_i), its activations and hinge-loss gradients."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

SQRT2 = math.sqrt(2.0)
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


@dataclass
class Params:
    """Network parameters; w_i = B q_i + perp_scale · perp_i (perp is the off-basis part at init)."""

    q: torch.Tensor  # 2m×r weights in the data coordinates
    b: torch.Tensor  # 2m
    a: torch.Tensor  # 2m
    perp: torch.Tensor | None = None  # 2m×d off-basis part of the initial weights
    perp_scale: float = 1.0

    def clone(self) -> Params:
        """Deep copy (perp is never modified, so it is shared)."""
        return Params(self.q.clone(), self.b.clone(), self.a.clone(), self.perp, self.perp_scale)

    def sq_norms(self) -> torch.Tensor:
        """‖w_i‖² including the off-basis part."""
        out = (self.q * self.q).sum(1)
        if self.perp is not None and self.perp_scale != 0.0:
            out = out + self.perp_scale**2 * (self.perp * self.perp).sum(1)
        return out


def activation(z: torch.Tensor, xi: float, truncated: bool):
    """σ(z) and σ'(z), Gaussian-smoothed in closed form when xi > 0 (E_ξ σ(z + ξ))."""
    if xi <= 0.0:
        if truncated:
            return z.clamp(0.0, 1.0), ((z > 0) & (z < 1)).to(z.dtype)
        return z.clamp_min(0.0), (z > 0).to(z.dtype)
    h0, d0 = _smooth_relu(z, xi)
    if not truncated:
        return h0, d0
    h1, d1 = _smooth_relu(z - 1.0, xi)
    return h0 - h1, d0 - d1


def _smooth_relu(z: torch.Tensor, s: float):
    """E[relu(z + ξ)] = zΦ(z/s) + sφ(z/s) and its derivative Φ(z/s), ξ ~ N(0, s²)."""
    u = z / s
    cdf = 0.5 * (1.0 + torch.erf(u / SQRT2))
    pdf = torch.exp(-0.5 * u * u) * INV_SQRT_2PI
    return z * cdf + s * pdf, cdf


def forward(p: Params, z: torch.Tensor, xi: float = 0.0, truncated: bool = True):
    """Outputs g(x), activations and their derivatives for coordinates z (n×r)."""
    pre = torch.addmm(p.b, z, p.q.T)
    act, der = activation(pre, xi, truncated)
    return act @ p.a, act, der


def predict(p: Params, z: torch.Tensor, truncated: bool = True, chunk: int = 16384):
    """Noise-free outputs g(x), evaluated in chunks to bound memory."""
    outs = []
    for i in range(0, z.shape[0], chunk):
        pre = torch.addmm(p.b, z[i:i + chunk], p.q.T)
        act = pre.clamp(0.0, 1.0) if truncated else pre.clamp_min(0.0)
        outs.append(act @ p.a)
    return torch.cat(outs)


@dataclass
class Grads:
    """Loss gradients (regulariser excluded) and by-products of one evaluation."""

    q: torch.Tensor
    b: torch.Tensor
    a: torch.Tensor
    loss: float
    hinge_active: float


def hinge_grads(p: Params, z: torch.Tensor, y: torch.Tensor, xi: float, truncated: bool,
                train_first: bool = True) -> Grads:
    """∂L/∂(q, b, a) of the mean hinge loss max(0, 1 - y g(x; ξ)) (Lemma 12, closed form)."""
    g, act, der = forward(p, z, xi, truncated)
    margin = y * g
    active = (margin <= 1.0).to(z.dtype)
    loss = float((1.0 - margin).clamp_min(0.0).mean())
    r = -(y * active) / z.shape[0]  # ∂L/∂g per sample
    ga = act.T @ r
    if not train_first:
        return Grads(torch.zeros_like(p.q), torch.zeros_like(p.b), ga, loss, float(active.mean()))
    dpre = der.mul_(r[:, None]).mul_(p.a[None, :])  # in place: der is not needed afterwards
    return Grads(dpre.T @ z, dpre.sum(0), ga, loss, float(active.mean()))


def hinge_loss_acc(p: Params, z: torch.Tensor, y: torch.Tensor, truncated: bool = True):
    """Mean hinge loss and accuracy of sign(g) without noise; a tie g = 0 scores 1/2 (a coin)."""
    g = predict(p, z, truncated)
    margin = y * g
    acc = (margin > 0).float().mean() + 0.5 * (margin == 0).float().mean()
    return float((1.0 - margin).clamp_min(0.0).mean()), float(acc)
