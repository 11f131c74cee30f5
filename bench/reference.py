"""The plain reference implementation of the network's training (the benchmark's yardstick).

What a straightforward notebook does: inputs as an n×d matrix in input space, autograd through
the Gaussian-smoothed truncated ReLU and the hinge loss, the per-step hyper-parameters of
`engine.schedule.build_schedule`, and the whole training and test sets evaluated after every
step. No fast paths: no pattern coordinates, no fusion, no chunking, no caching.

It starts from the engine's initial network (`engine.trainer.init_params` with the input-space
dataset) and draws the same mini-batches, so its trajectory equals the engine's to float32
rounding (tests/test_bench_reference.py checks that on a small case, for the paper's and the
standard schedule).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import torch

from engine.config import Config, validate
from engine.data import make_dataset, population_stats
from engine.schedule import build_schedule
from engine.trainer import init_params


def smoothed_activation(z: torch.Tensor, xi: float, truncated: bool) -> torch.Tensor:
    """σ̃(z) = E_ξ σ(z + ξ), ξ ~ N(0, xi²), written out plainly (autograd gives σ̃')."""
    if xi <= 0.0:
        return z.clamp(0.0, 1.0) if truncated else z.clamp_min(0.0)

    def h(v):  # E[relu(v + ξ)] = vΦ(v/s) + sφ(v/s)
        u = v / xi
        cdf = 0.5 * (1.0 + torch.erf(u / math.sqrt(2.0)))
        pdf = torch.exp(-0.5 * u * u) / math.sqrt(2.0 * math.pi)
        return v * cdf + xi * pdf

    return h(z) - h(z - 1.0) if truncated else h(z)


@dataclass
class ReferenceResult:
    """Per-step numbers of a reference run and its final parameters (d-space)."""

    steps: list[dict] = field(default_factory=list)
    w: torch.Tensor | None = None
    b: torch.Tensor | None = None
    a: torch.Tensor | None = None
    seconds: float = 0.0


def _evaluate(w, b, a, x, y, truncated):
    with torch.no_grad():
        g = smoothed_activation(x @ w.T + b, 0.0, truncated) @ a
        margin = y * g
        acc = (margin > 0).float().mean() + 0.5 * (margin == 0).float().mean()
        return float((1.0 - margin).clamp_min(0.0).mean()), float(acc)


def train_reference(cfg: Config, steps: int | None = None, device: str = "cpu",
                    probes: bool = True, on_step=None) -> ReferenceResult:
    """Train the network of cfg for `steps` (default T) steps the plain way."""
    cfg = validate(cfg)
    t_start = time.perf_counter()
    ds = make_dataset(cfg, "input")
    ref_stats = ds.stats if cfg.structure else population_stats(cfg.replace(structure=True))
    schedule = build_schedule(cfg, ref_stats)
    p0 = init_params(cfg, ref_stats, ds, schedule, "cpu")  # basis = I_d: q is w itself
    dev = torch.device(device)
    x = torch.as_tensor(ds.z_train, dtype=torch.float32, device=dev)
    y = torch.as_tensor(ds.y_train, dtype=torch.float32, device=dev)
    x_test = torch.as_tensor(ds.z_test, dtype=torch.float32, device=dev)
    y_test = torch.as_tensor(ds.y_test, dtype=torch.float32, device=dev)
    w, b, a = (p0.q.to(dev).clone(), p0.b.to(dev).clone(), p0.a.to(dev).clone())
    truth = torch.as_tensor(ds.truth, dtype=torch.float32, device=dev)
    gen = torch.Generator().manual_seed(cfg.seed * 104729 + 3)  # the engine's batch order
    order, cursor = np.empty(0, dtype=np.int64), 0
    velocity: dict[str, torch.Tensor] = {}
    out = ReferenceResult()
    n = x.shape[0]

    def record(t, loss=float("nan")):
        row = {"step": t, "loss": loss}
        if probes:
            row["train_loss"], row["train_acc"] = _evaluate(w, b, a, x, y, schedule.truncated)
            row["test_loss"], row["test_acc"] = _evaluate(w, b, a, x_test, y_test,
                                                          schedule.truncated)
            cos = (w @ truth) / (w.norm(dim=1) * truth.norm()).clamp_min(1e-30)
            row["cos_max"] = float(cos.max())
        out.steps.append(row)
        if on_step is not None:
            on_step(row)

    record(0)
    for t in range(1, (steps if steps is not None else cfg.T) + 1):
        sp = schedule.at(t)
        if sp.full_batch or cfg.batch >= n:
            xb, yb = x, y
        else:
            if cursor + cfg.batch > len(order):
                order, cursor = torch.randperm(n, generator=gen).numpy(), 0
            idx = torch.as_tensor(order[cursor:cursor + cfg.batch], device=dev)
            cursor += cfg.batch
            xb, yb = x[idx], y[idx]
        params = [w.requires_grad_(True), b.requires_grad_(True), a.requires_grad_(True)]
        g = smoothed_activation(xb @ w.T + b, sp.xi, schedule.truncated) @ a
        loss = (1.0 - yb * g).clamp_min(0.0).mean()
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            new = []
            for name, value, grad, lam in (("w", w, grads[0], sp.lam_w), ("b", b, grads[1], 0.0),
                                           ("a", a, grads[2], sp.lam_a)):
                new.append(_update(name, value.detach(), grad, lam, sp, velocity))
            w, b, a = new
        record(t, float(loss.detach()))
    out.w, out.b, out.a = w.detach(), b.detach(), a.detach()
    out.seconds = time.perf_counter() - t_start
    return out


def _update(name, value, grad, lam, sp, velocity):
    """θ - η(∇L + 2λθ), the regulariser's factor formed in float64 (λ = 1/(2η) wipes θ), or
    SGD with momentum for the standard schedule: the same rule as engine.trainer."""
    if sp.momentum > 0:
        step = grad + 2 * lam * value
        if name in velocity:
            step = sp.momentum * velocity[name] + step
        velocity[name] = step
        return value - sp.eta * step
    decay = 1.0 - 2.0 * sp.eta * lam
    if abs(decay) < 1e-12:
        return -sp.eta * grad
    return value * decay - sp.eta * grad
