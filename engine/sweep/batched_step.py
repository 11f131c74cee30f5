"""Batched hinge gradients and updates: E networks (seeds × frozen-layer variants) at once.

The same formulas as engine.hinge.hinge_grads and engine.trainer.Trainer/Optimizer, with a
leading batch dimension; entry e trains on its own seed's data.
"""

from __future__ import annotations

import torch

from ..network import activation, indicator
from ..schedule import layer_rule
from ..trainer import step_size

# How the per-entry products run: "loop" (one BLAS call per entry: fastest on a CPU), "bmm" (one
# batched kernel for all entries: one launch on a GPU, where per-call overhead dominates at these
# sizes), or "auto" (bmm on CUDA tensors, loop otherwise). Same numbers to float rounding.
KERNELS = "auto"


def _batched(t: torch.Tensor) -> bool:
    return KERNELS == "bmm" or (KERNELS == "auto" and t.is_cuda)


def bmv(mats: torch.Tensor, vecs: torch.Tensor, transpose: bool = False) -> torch.Tensor:
    """Per-entry matrix-vector products (E×N×U by E×U, or its transpose by E×N): on a CPU a
    loop of torch.mv, 2-5× faster there than torch.bmm with one column and the same kernel as
    the unbatched engine's torch.mv."""
    if _batched(mats):
        m = mats.transpose(1, 2) if transpose else mats
        return torch.bmm(m, vecs.unsqueeze(-1)).squeeze(-1)
    pairs = zip(mats, vecs, strict=True)
    return torch.stack([torch.mv(m.T if transpose else m, v) for m, v in pairs])


def affine(b: torch.Tensor, z: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """z_e q_eᵀ + b_e for every entry e (E×N×U): on a CPU a loop of addmm into one buffer, 5-7×
    faster there than torch.baddbmm with a broadcast bias, and the unbatched engine's kernel."""
    if _batched(z):
        return torch.baddbmm(b.unsqueeze(1), z, q.transpose(1, 2))
    out = torch.empty(z.shape[0], z.shape[1], q.shape[1], dtype=z.dtype, device=z.device)
    for e in range(z.shape[0]):
        torch.addmm(b[e], z[e], q[e].T, out=out[e])
    return out


def bmm_t(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """a_eᵀ b_e for every entry e (E×N×U, E×N×V → E×U×V)."""
    if _batched(a):
        return torch.bmm(a.transpose(1, 2), b)
    return torch.stack([x.T @ y for x, y in zip(a, b, strict=True)])


def twins(q: torch.Tensor, b: torch.Tensor) -> bool:
    """True when every entry's second half of neurons equals its first (the symmetric init)."""
    h = q.shape[1] // 2
    return h > 0 and 2 * h == q.shape[1] and torch.equal(q[:, :h], q[:, h:]) \
        and torch.equal(b[:, :h], b[:, h:])


def outputs(q, b, a, c, z, truncated: bool, xi: float = 0.0, need_der: bool = False):
    """(g, act, der, folded) of E networks on z (E×N×r); twin pairs evaluated once; der is
    None unless asked for (the backward pass of a trained first layer is its only user)."""
    folded = twins(q, b)
    if folded:  # g = Σ_i σ_i (a_i + a_{m+i}), exactly 0 at the symmetric init
        h = q.shape[1] // 2
        q, b, a = q[:, :h], b[:, :h], a[:, :h] + a[:, h:]
    pre = affine(b, z, q)
    if xi > 0.0:
        act, der = activation(pre, xi, truncated)
    else:  # in place: pre is ours
        act = pre.clamp_(0.0, 1.0) if truncated else pre.clamp_min_(0.0)
        der = indicator(act, truncated) if need_der else None
    return bmv(act, a) + c[:, None], act, der, folded


def layer_acts(q, b, z, truncated: bool):
    """(σ(z qᵀ + b), folded) of E frozen layers on z (E×N×r), twins evaluated once as in
    `outputs`: the activations a frozen entry's later steps and probes reuse."""
    folded = twins(q, b)
    if folded:
        h = q.shape[1] // 2
        q, b = q[:, :h], b[:, :h]
    pre = affine(b, z, q)
    return (pre.clamp_(0.0, 1.0) if truncated else pre.clamp_min_(0.0)), folded


def frozen_outputs(a, c, acts, folded: bool):
    """g of E frozen layers from their cached activations (E×N×units)."""
    if folded:
        h = a.shape[1] // 2
        a = a[:, :h] + a[:, h:]
    return bmv(acts, a) + c[:, None]


def hinge_grads(st, z, y, xi: float, truncated: bool, train_first: bool, weights,
                cached=None):
    """Per-entry ∂L/∂(q, b, a, c) and loss of the mean hinge loss (regulariser excluded).
    cached: (activations of z's rows, folded) of frozen layers; the forward pass is skipped."""
    n = y.shape[1]
    if cached is not None:
        act, folded = cached
        g, der = frozen_outputs(st["a"], st["c"], act, folded), None
    else:
        g, act, der, folded = outputs(st["q"], st["b"], st["a"], st["c"], z, truncated, xi,
                                      train_first)
    margin = g * y
    active = margin <= 1.0
    hinge = (1.0 - margin).clamp_min(0.0)
    r = torch.where(active, y, 0.0) * (-1.0 / n)
    if weights is not None:
        alpha = torch.where(y > 0, weights[0], weights[1])
        hinge, r = hinge * alpha, r * alpha
    out = {"loss": hinge.sum(1) / n, "c": r.sum(1)}
    ga = bmv(act, r, transpose=True)
    out["a"] = torch.cat([ga, ga], 1) if folded else ga
    if train_first:
        rhs = torch.cat([z * r[:, :, None], r[:, :, None]], dim=2)
        k_ext = bmm_t(der, rhs)
        if folded:
            k_ext = torch.cat([k_ext, k_ext], 1)
        scaled = k_ext * st["a"][:, :, None]
        out["q"], out["b"] = scaled[:, :, :-1], scaled[:, :, -1]
    return out


def keep(lam: float, sp, eta: float, key: str) -> float:
    """engine.trainer.Optimizer.keep: keep_w for w when given, else 1 - 2ηλ (0 when tiny)."""
    if key == "q" and sp.keep_w is not None:
        return sp.keep_w
    k = 1.0 - 2.0 * eta * lam
    return 0.0 if abs(k) < 1e-12 else k


def adam(state: dict, key: str, ix, grad, dim: int):
    """Adam's direction for entries ix (per-entry step counts); row-wise v for the first layer."""
    sq = grad.pow(2).sum(-1, keepdim=True) / dim if grad.dim() == 3 else grad * grad
    if key not in state:
        state[key] = [None, None, None]
    m_all, v_all, n_all = state[key]
    if m_all is None:
        e = state["E"]
        m_all = torch.zeros((e, *grad.shape[1:]), dtype=grad.dtype, device=grad.device)
        v_all = torch.zeros((e, *sq.shape[1:]), dtype=grad.dtype, device=grad.device)
        n_all = torch.zeros(e, dtype=torch.float64)
    m = m_all[ix] * 0.9 + grad * 0.1
    v = v_all[ix] * 0.999 + sq * 0.001
    n = n_all[ix] + 1
    m_all[ix], v_all[ix], n_all[ix] = m, v, n
    state[key] = [m_all, v_all, n_all]
    shape = (-1,) + (1,) * (grad.dim() - 1)
    c1 = (1 - 0.9 ** n).to(grad.dtype).to(grad.device).view(shape)
    c2 = (1 - 0.999 ** n).to(grad.dtype).to(grad.device).view(shape)
    return (m / c1) / ((v / c2).sqrt() + 1e-8)


def move(opt: dict, key: str, ix, value, grad, lam: float, sp, eta: float, dim: int):
    """engine.trainer.Optimizer.move for the entries ix (SGD without momentum, or Adam)."""
    rule, eta = layer_rule(sp, key, eta)
    if rule == "adam":
        return value * keep(lam, sp, eta, key) - eta * adam(opt, key, ix, grad, dim)
    k = keep(lam, sp, eta, key)
    return -eta * grad if k == 0.0 else value * k - eta * grad


def apply(st: dict, ix, g: dict, sp, train_first: bool, t: int, T: int, dim: int) -> None:
    """One update of entries ix (Trainer._apply), then the running average (Optimizer.average)."""
    eta, opt = step_size(sp, t, T), st["opt"]
    st["a"][ix] = move(opt, "a", ix, st["a"][ix], g["a"], sp.lam_a, sp, eta, dim)
    if sp.intercept:
        st["c"][ix] = move(opt, "c", ix, st["c"][ix], g["c"], 0.0, sp, eta, dim)
    if train_first:
        st["q"][ix] = move(opt, "q", ix, st["q"][ix], g["q"], sp.lam_w, sp, eta, dim)
        st["b"][ix] = move(opt, "b", ix, st["b"][ix], g["b"], 0.0, sp, eta, dim)
        st["perp"][ix] = st["perp"][ix] * keep(sp.lam_w, sp, layer_rule(sp, "q", eta)[1], "q")
    if sp.ema > 0.0:
        average(st, ix, sp.ema, train_first)


def average(st: dict, ix, beta: float, train_first: bool) -> None:
    """Exponential average of the iterates, started at each entry's first averaged step."""
    avg, started = st["avg"], st["avg_on"][ix]
    new = ix[~started]
    for name in ("q", "b", "a", "c", "perp"):
        avg[name][new] = st[name][new]
    old = ix[started]
    names = ("q", "b", "a", "perp") if train_first else ("a",)
    for name in names:
        avg[name][old] = avg[name][old] * beta + st[name][old] * (1.0 - beta)
    # the intercept is averaged from its first step on (Optimizer.average folds it in at once)
    avg["c"][ix] = avg["c"][ix] * beta + st["c"][ix] * (1.0 - beta)
    if not train_first:
        for name in ("q", "b", "perp"):
            avg[name][ix] = st[name][ix]
    st["avg_on"][ix] = True
