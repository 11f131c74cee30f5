"""Gradient steps of the three-stage schedule, for the network and its frozen-layer variants."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import torch

from .data import Dataset, Stats
from .hinge import hinge_grads
from .network import Grads, Params, frozen_units, layer_features
from .schedule import Schedule, StepParams, init_scales, layer_rule

if TYPE_CHECKING:  # annotations only: the settings sit above the worlds
    from .settings import Settings as Config  # the Protocol: engine/config.py sits above

# Frozen first layers' activations on the training set are kept while all of them together fit
# in this many bytes (paper-parity: 60 MB for RF's twin-folded layer, 120 MB each for One and
# Two Step), so each classifier-stage step of RF/One/Two Step is a row gather instead of a
# batch × d × 2m matmul; engine/guard.py counts them.
FEATURE_CACHE_BYTES = 320 * 2**20


@dataclass
class DeviceData:
    """Train/test coordinates and labels as tensors on the run's device."""

    z_train: torch.Tensor
    y_train: torch.Tensor
    z_test: torch.Tensor
    y_test: torch.Tensor
    # full-batch gradients of recent (params, step) pairs, shared by every trainer on this data:
    # the network, One Step and Two Step take identical full-batch steps 1-2 from the same init
    full_batch_cache: list = field(default_factory=list, repr=False, compare=False)
    # (q, b, activations on z_train) of frozen first layers (RF, One/Two Step after freezing)
    feature_cache: list = field(default_factory=list, repr=False, compare=False)
    feature_budget: int = FEATURE_CACHE_BYTES  # 0: never cache (a server short of memory)

    def frozen_features(self, p: Params, truncated: bool) -> torch.Tensor | None:
        """Activations of a frozen first layer on the whole training set, computed once and
        shared (None above feature_budget: the mini-batch pass then recomputes them).
        Rows equal the per-batch pass bitwise (same addmm per row; tests/engine check it)."""
        q, b = frozen_units(p)
        for q_, b_, feats in self.feature_cache:
            if torch.equal(q_, q) and torch.equal(b_, b):
                return feats
        held = sum(f.numel() * f.element_size() for _, _, f in self.feature_cache)
        if held + self.z_train.shape[0] * q.shape[0] * self.z_train.element_size() \
                > self.feature_budget:
            return None
        feats = layer_features(p, self.z_train, truncated)
        self.feature_cache.append((q.clone(), b.clone(), feats))
        return feats

    @classmethod
    def from_dataset(cls, ds: Dataset, device) -> DeviceData:
        """Move a dataset to a device (float32)."""
        t = lambda a: torch.as_tensor(a, dtype=torch.float32, device=device)  # noqa: E731
        return cls(t(ds.z_train), t(ds.y_train), t(ds.z_test), t(ds.y_test))


def init_params(cfg: Config, st: Stats, ds: Dataset, schedule: Schedule, device) -> Params:
    """The paper's symmetric unbiased init (g⁽⁰⁾ ≡ 0), or independent Gaussian neurons (standard).

    Weights are drawn in d-space on the CPU from the seed, then expressed in the data
    coordinates, so the pattern-space and input-space paths start from the same network.
    """
    gen = torch.Generator().manual_seed(cfg.seed * 7919 + 17)
    sw, sb, sa = init_scales(cfg, st)
    half = cfg.m if schedule.symmetric_init else 2 * cfg.m
    w = sw * torch.randn(half, cfg.d, generator=gen, dtype=torch.float64)
    b = sb * torch.randn(half, generator=gen, dtype=torch.float64)
    a = sa * torch.randn(half, generator=gen, dtype=torch.float64)
    if schedule.symmetric_init:
        w, b, a = torch.cat([w, w]), torch.cat([b, b]), torch.cat([a, -a])
    basis = torch.as_tensor(ds.basis, dtype=torch.float64)
    q = w @ basis
    perp = None
    if not ds.basis.shape[0] == ds.basis.shape[1]:
        perp = (w - q @ basis.T).float().to(device)
    f = lambda x: x.float().to(device)  # noqa: E731
    return Params(f(q), f(b), f(a), perp, 1.0)


class Trainer:
    """Advances one parameter set step by step; the first layer freezes after `freeze_after`."""

    def __init__(self, params: Params, data: DeviceData, schedule: Schedule,
                 batch: int, seed: int, freeze_after: int | None = None):
        self.p, self.data, self.schedule = params, data, schedule
        self.batch, self.freeze_after, self.t = batch, freeze_after, 0
        self._gen = torch.Generator().manual_seed(seed * 104729 + 3)
        self._order, self._cursor = np.empty(0, dtype=np.int64), 0
        self.opt = Optimizer(schedule.dim)
        self._rows: torch.Tensor | None = None  # mini-batch rows of a frozen layer's features

    def params_at(self, t: int) -> tuple[StepParams, bool]:
        """Step parameters at step t and whether the first layer trains."""
        if self.freeze_after is not None and t > self.freeze_after:
            return self.schedule.later, False
        return self.schedule.at(t), True

    def next_batch(self) -> torch.Tensor | None:
        """Row indices of the next mini-batch (reshuffled each epoch); None for the full set."""
        n = self.data.z_train.shape[0]
        if self.batch >= n:
            return None
        if self._cursor + self.batch > len(self._order):  # reshuffle each epoch
            self._order = torch.randperm(n, generator=self._gen).numpy()
            self._cursor = 0
        idx = self._order[self._cursor:self._cursor + self.batch]
        self._cursor += self.batch
        return torch.as_tensor(idx, device=self.data.z_train.device)

    def _batch(self, full: bool) -> tuple[torch.Tensor, torch.Tensor]:
        z, y = self.data.z_train, self.data.y_train
        idx = None if full else self.next_batch()
        return (z, y) if idx is None else (z.index_select(0, idx), y.index_select(0, idx))

    def step(self) -> Grads:
        """One update θ ← θ - η(∇L + 2λθ) (with momentum if set); returns the loss gradients."""
        self.t += 1
        sp, train_first = self.params_at(self.t)
        full = sp.full_batch or self.batch >= self.data.z_train.shape[0]
        if full:
            g = self._full_batch_grads(sp, train_first)
        else:
            idx, d = self.next_batch(), self.data
            z, y = d.z_train.index_select(0, idx), d.y_train.index_select(0, idx)
            feats = None
            if not train_first and sp.xi <= 0.0:
                feats = d.frozen_features(self.p, self.schedule.truncated)
                if feats is not None:  # into a kept buffer: a fresh one costs page faults
                    if self._rows is None or self._rows.shape != (len(idx), feats.shape[1]):
                        self._rows = feats.new_empty(len(idx), feats.shape[1])
                    feats = torch.index_select(feats, 0, idx, out=self._rows)
            g = hinge_grads(self.p, z, y, sp.xi, self.schedule.truncated, train_first,
                            sp.class_weights, feats)
        self._apply(g, sp, train_first)
        return g

    def _full_batch_grads(self, sp: StepParams, train_first: bool) -> Grads:
        """Full-batch gradients, reused when another trainer on the same data already took
        this exact step (bitwise-equal parameters, same ξ and layers)."""
        p, cache = self.p, self.data.full_batch_cache
        key = (sp.xi, self.schedule.truncated, train_first, sp.class_weights)
        for k, q, b, a, g in cache:
            if k == key and torch.equal(q, p.q) and torch.equal(b, p.b) and torch.equal(a, p.a):
                return g
        z, y = self._batch(True)
        g = hinge_grads(p, z, y, sp.xi, self.schedule.truncated, train_first, sp.class_weights)
        cache[:] = [*cache[-3:], (key, p.q.clone(), p.b.clone(), p.a.clone(), g)]
        return g

    def _apply(self, g: Grads, sp: StepParams, train_first: bool) -> None:
        p, eta, opt = self.p, step_size(sp, self.t, self.schedule.T), self.opt
        p.a = opt.move("a", p.a, g.a, sp.lam_a, sp, eta)
        if sp.intercept and g.c is not None:  # the classifier stage's output intercept
            p.c = opt.move("c", torch.zeros_like(g.c) if p.c is None else p.c, g.c, 0.0, sp, eta)
        if train_first:
            p.q = opt.move("q", p.q, g.q, sp.lam_w, sp, eta)
            p.b = opt.move("b", p.b, g.b, 0.0, sp, eta)  # b is not regularised
            if p.perp is not None:  # no loss gradient off the span: only the decay acts
                eta_q = layer_rule(sp, "q", eta)[1]
                p.perp_scale = float(p.perp_scale * opt.keep(sp.lam_w, sp, eta_q, "q"))
        opt.average(p, sp.ema, train_first)

    @property
    def eval_params(self) -> Params:
        """The parameters that are reported: the running average when the stage averages."""
        return self.opt.avg if self.opt.avg is not None else self.p


def step_size(sp: StepParams, t: int, T: int) -> float:
    """η at step t: constant, or cosine-decayed to 0 over the classifier stage (t = 3…T)."""
    if sp.decay != "cosine" or t <= 2 or T <= 3:
        return sp.eta
    return sp.eta * 0.5 * (1.0 + math.cos(math.pi * (t - 3) / (T - 3)))


class Optimizer:
    """Update rules of one parameter set: SGD (optionally with momentum) or Adam, each with the
    paper's ℓ2 decay, and an exponential average of the iterates for reporting."""

    def __init__(self, dim: int = 1):
        self._state: dict = {}  # momentum or Adam moments per parameter name
        self.avg: Params | None = None  # running average of the classifier stage's iterates
        self.dim = dim  # input dimension d: the first layer's second moment is per neuron

    @staticmethod
    def keep(lam: float, sp: StepParams, eta: float, key: str) -> float:
        """Factor on the old value: keep_w for w when given, else 1 - 2ηλ; formed in float64 so
        that λ = 1/(2η) wipes the old value exactly instead of leaving float32 rounding residue
        that would swamp the tiny step-1 weights (|w⁽¹⁾| ≈ 1e-9 at the paper's sizes)."""
        if key == "q" and sp.keep_w is not None:
            return sp.keep_w
        keep = 1.0 - 2.0 * eta * lam
        return 0.0 if abs(keep) < 1e-12 else keep

    def move(self, key: str, value, grad, lam: float, sp: StepParams, eta: float):
        """value·keep - η·direction: the gradient (with momentum) or Adam's direction; the first
        layer by its own rule when the stage gives it one (engine.schedule.layer_rule)."""
        rule, eta = layer_rule(sp, key, eta)
        if rule == "adam":  # decoupled decay, as AdamW: the ℓ2 term is not rescaled
            return value * self.keep(lam, sp, eta, key) - eta * self._adam(key, grad)
        if sp.momentum > 0:
            vel = self._state.get(key)
            grad = grad + 2 * lam * value
            grad = grad if vel is None else sp.momentum * vel + grad
            self._state[key] = grad
            return value - eta * grad
        keep = self.keep(lam, sp, eta, key)
        return -eta * grad if keep == 0.0 else value * keep - eta * grad

    def adam(self, key: str, grad: torch.Tensor) -> torch.Tensor:
        """Adam's direction for one named parameter (gfl's classifier stage uses it)."""
        return self._adam(key, grad)

    def _adam(self, key: str, grad: torch.Tensor) -> torch.Tensor:
        """Adam's bias-corrected direction m̂/(√v̂ + ε) (β = 0.9, 0.999; Kingma & Ba defaults).

        For the first layer (a matrix, one row per neuron) v̂ is one number per neuron, the mean
        squared gradient over the d input coordinates: per-coordinate Adam would depend on the
        basis the weights are written in, and the pattern-space path's basis is the unknown
        dictionary M. Per neuron, both paths take the same step and M is never used."""
        rowwise = grad.dim() == 2
        sq = grad.pow(2).sum(1, keepdim=True).div_(self.dim) if rowwise else grad * grad
        m, v, n = self._state.get(key, (torch.zeros_like(grad), torch.zeros_like(sq), 0))
        m.mul_(0.9).add_(grad, alpha=0.1)
        v.mul_(0.999).add_(sq, alpha=0.001)
        n += 1
        self._state[key] = (m, v, n)
        return (m / (1 - 0.9**n)) / ((v / (1 - 0.999**n)).sqrt_().add_(1e-8))

    def average(self, p: Params, beta: float, train_first: bool = True) -> None:
        """Fold the new iterate into the running average (started at the first averaged step);
        a frozen first layer is shared, not averaged, so it stays bitwise what was frozen."""
        if beta <= 0.0:
            return
        if self.avg is None:
            self.avg = p.clone()
        elif train_first:
            for name in ("q", "b", "a"):
                getattr(self.avg, name).mul_(beta).add_(getattr(p, name), alpha=1.0 - beta)
            self.avg.perp_scale = beta * self.avg.perp_scale + (1.0 - beta) * p.perp_scale
        else:
            self.avg.a.mul_(beta).add_(p.a, alpha=1.0 - beta)
        if p.c is not None:
            self.avg.c = p.c.clone() if self.avg.c is None else \
                self.avg.c.mul_(beta).add_(p.c, alpha=1.0 - beta)
        if not train_first:
            self.avg.q, self.avg.b, self.avg.perp_scale = p.q, p.b, p.perp_scale
