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
from engine.schedule import build_schedule, layer_rule
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


def _evaluate(w, b, a, c, x, y, truncated):
    with torch.no_grad():
        g = smoothed_activation(x @ w.T + b, 0.0, truncated) @ a + (0.0 if c is None else c)
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
    data = {name: torch.as_tensor(getattr(ds, attr), dtype=torch.float32, device=dev)
            for name, attr in (("x", "z_train"), ("y", "y_train"), ("x_test", "z_test"),
                               ("y_test", "y_test"), ("truth", "truth"))}
    theta = {"w": p0.q.to(dev).clone(), "b": p0.b.to(dev).clone(), "a": p0.a.to(dev).clone()}
    batches = _Batches(cfg, data["x"], data["y"])
    state: dict = {}  # momentum / Adam moments per parameter
    avg: dict = {}  # running average of the iterates (the reported model) when the stage averages
    out = ReferenceResult()
    record = _Recorder(out, data, schedule.truncated, probes, on_step)
    record(0, theta)
    for t in range(1, (steps if steps is not None else cfg.T) + 1):
        sp = schedule.at(t)
        xb, yb = batches.draw(sp.full_batch)
        if sp.intercept and "c" not in theta:
            theta["c"] = torch.zeros((), device=dev)
        theta, loss = _step(theta, xb, yb, sp, _eta(sp, t, cfg.T), state, cfg.d,
                            schedule.truncated)
        if sp.ema > 0:
            with torch.no_grad():
                avg = {k: v.clone() if k not in avg else sp.ema * avg[k] + (1 - sp.ema) * v
                       for k, v in theta.items()}
        record(t, avg or theta, loss)
    rep = avg or theta  # the reported model, as the engine's Run.params
    out.w, out.b, out.a = rep["w"].detach(), rep["b"].detach(), rep["a"].detach()
    out.seconds = time.perf_counter() - t_start
    return out


class _Batches:
    """The engine's mini-batch order: a fresh permutation whenever the current one runs out."""

    def __init__(self, cfg: Config, x: torch.Tensor, y: torch.Tensor):
        self.x, self.y, self.batch = x, y, cfg.batch
        self.gen = torch.Generator().manual_seed(cfg.seed * 104729 + 3)
        self.order, self.cursor = np.empty(0, dtype=np.int64), 0

    def draw(self, full_batch: bool):
        n = self.x.shape[0]
        if full_batch or self.batch >= n:
            return self.x, self.y
        if self.cursor + self.batch > len(self.order):
            self.order, self.cursor = torch.randperm(n, generator=self.gen).numpy(), 0
        idx = torch.as_tensor(self.order[self.cursor:self.cursor + self.batch],
                              device=self.x.device)
        self.cursor += self.batch
        return self.x[idx], self.y[idx]


class _Recorder:
    """One row per step: the loss, and with probes the accuracies and max cosine to Σ_A M."""

    def __init__(self, out: ReferenceResult, data: dict, truncated: bool, probes: bool,
                 on_step):
        self.out, self.data, self.truncated = out, data, truncated
        self.probes, self.on_step = probes, on_step

    def __call__(self, t: int, rep: dict, loss: float = float("nan")) -> None:
        row = {"step": t, "loss": loss}
        if self.probes:
            d = self.data
            args = (rep["w"], rep["b"], rep["a"], rep.get("c"))
            row["train_loss"], row["train_acc"] = _evaluate(*args, d["x"], d["y"],
                                                            self.truncated)
            row["test_loss"], row["test_acc"] = _evaluate(*args, d["x_test"], d["y_test"],
                                                          self.truncated)
            w, truth = rep["w"], d["truth"]
            cos = (w @ truth) / (w.norm(dim=1) * truth.norm()).clamp_min(1e-30)
            row["cos_max"] = float(cos.max())
        self.out.steps.append(row)
        if self.on_step is not None:
            self.on_step(row)


def _step(theta: dict, xb, yb, sp, eta: float, state: dict, d: int, truncated: bool):
    """One step: autograd through the smoothed activation and the hinge loss, then the update."""
    names = list(theta)
    params = [theta[k].requires_grad_(True) for k in names]
    g = smoothed_activation(xb @ theta["w"].T + theta["b"], sp.xi, truncated) \
        @ theta["a"] + theta.get("c", 0.0)
    loss = (1.0 - yb * g).clamp_min(0.0).mean()
    grads = dict(zip(names, torch.autograd.grad(loss, params), strict=True))
    lam = {"w": sp.lam_w, "b": 0.0, "a": sp.lam_a, "c": 0.0}
    with torch.no_grad():
        theta = {k: _update(k, theta[k].detach(), grads[k], lam[k], sp, eta, state, d)
                 for k in names}
    return theta, float(loss.detach())


def _eta(sp, t, T):
    """η at step t: constant, or the cosine decay over steps 3…T."""
    if sp.decay != "cosine" or t <= 2 or T <= 3:
        return sp.eta
    return sp.eta * 0.5 * (1.0 + math.cos(math.pi * (t - 3) / (T - 3)))


def _update(name, value, grad, lam, sp, eta, state, d):
    """The engine's rules written out: SGD θ·(1 − 2ηλ) − η∇ (the factor formed in float64;
    λ = 1/(2η) wipes θ; step 1 may keep keep_w·w), SGD with momentum, or Adam with decoupled
    decay and one second moment per neuron (the mean of ∇² over the d inputs) for w."""
    rule, eta = layer_rule(sp, {"w": "q"}.get(name, name), eta)  # the first layer's own rule
    keep = sp.keep_w if (name == "w" and sp.keep_w is not None) else 1.0 - 2.0 * eta * lam
    keep = 0.0 if abs(keep) < 1e-12 else keep
    if rule == "adam":
        sq = (grad * grad).sum(1, keepdim=True) / d if name == "w" else grad * grad
        m, v, k = state.get(name, (torch.zeros_like(grad), torch.zeros_like(sq), 0))
        m, v, k = 0.9 * m + 0.1 * grad, 0.999 * v + 0.001 * sq, k + 1
        state[name] = (m, v, k)
        return value * keep - eta * (m / (1 - 0.9**k)) / ((v / (1 - 0.999**k)).sqrt() + 1e-8)
    if sp.momentum > 0:
        step = grad + 2 * lam * value
        if name in state:
            step = sp.momentum * state[name] + step
        state[name] = step
        return value - eta * step
    if keep == 0.0:
        return -eta * grad
    return value * keep - eta * grad
