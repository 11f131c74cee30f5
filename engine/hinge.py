"""∂L/∂(q, b, a) of the mean hinge loss: one fused, chunked pass over the samples (forward,
residual, backward), as the performance notes of engine/network.py describe."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .network import CHUNK_ELEMENTS, Grads, Params, _smooth_u, _twins, indicator


def hinge_grads(p: Params, z: torch.Tensor, y: torch.Tensor, xi: float, truncated: bool,
                train_first: bool = True, class_weights: tuple[float, float] | None = None,
                feats: torch.Tensor | None = None) -> Grads:
    """∂L/∂(q, b, a) of the mean hinge loss max(0, 1 - y g(x; ξ)) (Lemma 12, closed form).

    `class_weights` (α_+, α_-) weight each sample's loss by its class, as App. F does in
    steps 1-2 for unbalanced classes (α_v = 1/(2 Pr[y = v])); None is the plain mean.

    Fused and chunked over samples (see the module notes); the result equals the plain
    computation (forward, residual r_n = -y_n 1[y_n g_n ≤ 1]/n, backward) to float rounding.
    `feats`: the activations of z's rows for a frozen first layer (train_first False, ξ = 0),
    twin-folded like the pass itself (see `frozen_units`); the matmul is then skipped.
    """
    if feats is not None and (train_first or xi > 0.0):
        raise ValueError("precomputed activations serve only a frozen, noise-free first layer")
    n, layer = z.shape[0], _fused_layer(p, xi)
    units, dev, dt = layer.qt.shape[1], z.device, z.dtype
    # the GPU is not cache-bound at these sizes: one pass there
    rows = n if z.is_cuda else max(64, min(n, CHUNK_ELEMENTS // max(1, units)))
    ga = torch.zeros(units, dtype=dt, device=dev)
    k_ext = torch.zeros(units, z.shape[1] + 1, dtype=dt, device=dev) if train_first else None
    loss_sum, gc, active_sum = (torch.zeros((), dtype=dt, device=dev) for _ in range(3))
    buf = _Buffers(units, z.shape[1] + 1, xi > 0.0, train_first)
    for i in range(0, n, rows):
        zc, yc = z[i:i + rows], y[i:i + rows]
        buf.fit(zc)
        if feats is not None:  # a frozen layer's activations, computed once for the whole set
            act, der = feats[i:i + rows], None
        else:
            act, der = _chunk_acts(layer, zc, buf, truncated, train_first)
        r, hinge, active = _residual(act, layer.a_fwd, p.c, yc, 1.0 / n, class_weights)
        loss_sum += hinge.sum()
        active_sum += active.sum()
        gc += r.sum()
        ga.addmv_(act.T, r)
        if train_first:
            torch.mul(zc, r[:, None], out=buf.rhs[:, :-1])
            buf.rhs[:, -1] = r
            k_ext.addmm_(der.T, buf.rhs)  # Σ_n σ'_ni r_n [x_n, 1]
    return _grads(p, layer, ga, k_ext, float(loss_sum) / n, float(active_sum) / n, gc)


@dataclass
class _Layer:
    """The first layer as the fused pass uses it: twin pairs folded into one unit, and in u =
    z/σ_ξ (weights scaled by 1/σ_ξ, output weights by σ_ξ) when the activation is smoothed."""

    qt: torch.Tensor  # r × units
    bias: torch.Tensor
    a_fwd: torch.Tensor
    twins: bool
    xi: float


def _fused_layer(p: Params, xi: float) -> _Layer:
    twins = _twins(p)
    if twins:  # evaluate each twin pair once: g = Σ_i σ_i (a_i + a_{m+i})
        h = p.q.shape[0] // 2
        q, b, a = p.q[:h], p.b[:h], p.a[:h] + p.a[h:]
    else:
        q, b, a = p.q, p.b, p.a
    if xi > 0.0:  # u = pre/σ_ξ straight from the matmul; σ̃ = σ_ξ · (h(u) - h(u - 1/σ_ξ))
        return _Layer((q * (1.0 / xi)).T, b * (1.0 / xi), a * xi, twins, xi)
    return _Layer(q.T, b, a, twins, xi)


class _Buffers:
    """The fused pass's per-chunk work buffers, reused while the chunk size stays the same."""

    def __init__(self, units: int, ext: int, smooth: bool, train_first: bool):
        self.units, self.ext, self.smooth, self.train_first = units, ext, smooth, train_first
        self.rows = -1

    def fit(self, zc: torch.Tensor) -> None:
        """(Re)allocate for a chunk of zc's rows."""
        c = zc.shape[0]
        if c == self.rows:
            return
        self.rows = c
        self.pre = torch.empty(c, self.units, dtype=zc.dtype, device=zc.device)
        self.work = [torch.empty_like(self.pre) for _ in range(3)] if self.smooth else None
        self.der = [torch.empty_like(self.pre) for _ in range(2)] \
            if self.train_first and not self.smooth else None
        self.rhs = torch.empty(c, self.ext, dtype=zc.dtype, device=zc.device) \
            if self.train_first else None


def _chunk_acts(layer: _Layer, zc: torch.Tensor, buf: _Buffers, truncated: bool,
                train_first: bool):
    """(σ, σ') of one chunk; σ' is None unless the first layer trains (or comes smoothed)."""
    pre = torch.addmm(layer.bias, zc, layer.qt, out=buf.pre)
    if layer.xi > 0.0:
        return _smooth_u(pre, layer.xi, truncated, buf.work)
    act = pre.clamp_(0.0, 1.0) if truncated else pre.clamp_min_(0.0)
    return act, (indicator(act, truncated, *buf.der) if train_first else None)


def _residual(act: torch.Tensor, a_fwd: torch.Tensor, c: torch.Tensor | None, yc: torch.Tensor,
              inv_n: float, class_weights: tuple[float, float] | None):
    """(r = ∂L/∂g per sample, hinge losses, active mask) of one chunk."""
    margin = torch.mv(act, a_fwd)
    if c is not None:
        margin.add_(c)
    margin.mul_(yc)
    active = margin <= 1.0
    hinge = (1.0 - margin).clamp_min_(0.0)
    r = torch.where(active, yc, 0.0).mul_(-inv_n)
    if class_weights is not None:
        alpha = torch.where(yc > 0, class_weights[0], class_weights[1])
        hinge.mul_(alpha)
        r.mul_(alpha)
    return r, hinge, active


def _grads(p: Params, layer: _Layer, ga: torch.Tensor, k_ext: torch.Tensor | None, loss: float,
           hinge_active: float, gc: torch.Tensor) -> Grads:
    """Unfold the twins and put a_i back into ∂L/∂w_i = a_i Σ_n σ'_ni r_n x_n."""
    if layer.xi > 0.0:
        ga.mul_(layer.xi)
    if layer.twins:
        ga = torch.cat([ga, ga])
    if k_ext is None:
        return Grads(torch.zeros_like(p.q), torch.zeros_like(p.b), ga, loss, hinge_active, gc)
    if layer.twins:
        k_ext = torch.cat([k_ext, k_ext])
    scaled = k_ext * p.a[:, None]
    return Grads(scaled[:, :-1].contiguous(), scaled[:, -1].contiguous(), ga, loss, hinge_active,
                 gc)
