"""The NTK baseline: the network linearised at its initialisation, trained as a linear model
(RF, One Step and Two Step are frozen-layer Runs; engine/methods.py builds every method)."""

from __future__ import annotations

import time

import numpy as np
import torch

from .evaluate import Snapshot
from .finite import check_finite
from .network import Params, activation, indicator, margin_sums
from .run import World
from .trainer import Optimizer, Trainer, step_size


def tangent_parts(p0: Params, z: torch.Tensor, truncated: bool):
    """σ(z_i), a_i σ'(z_i) at the initial network: the NTK features are
    ∂g/∂a_i = σ(z_i), ∂g/∂w_i = a_i σ'(z_i) x, ∂g/∂b_i = a_i σ'(z_i) (σ' = I[z ∈ (0,1)])."""
    pre = torch.addmm(p0.b, z, p0.q.T)
    act, der = activation(pre, 0.0, truncated)
    return act, der * p0.a[None, :]


def ntk_features(p0: Params, z: torch.Tensor, truncated: bool = True) -> torch.Tensor:
    """Explicit tangent features [∂g/∂a, ∂g/∂w (flattened), ∂g/∂b] per sample (small cases only)."""
    act, slope = tangent_parts(p0, z, truncated)
    dw = (slope[:, :, None] * z[:, None, :]).reshape(z.shape[0], -1)
    return torch.cat([act, dw, slope], dim=1)


class NTKRun:
    """A linear classifier on the tangent features at the network's initialisation.

    f(x) = ⟨θ - θ₀, ∇g(x; θ₀)⟩ / κ, trained from θ = θ₀ with the classifier-stage schedule
    (η, λ, batch) for T steps on the hinge loss. κ = √E‖∇g(x; θ₀)‖² (on the probe sample)
    puts the kernel on unit scale, so one step size serves the network and the NTK.
    """

    def __init__(self, world: World, method: str = "ntk"):
        self.world, self.method, self.T = world, method, world.cfg.T
        self.p0, self.t = world.init, 0
        p0 = self.p0
        self.da, self.dq, self.db = (torch.zeros_like(p0.a), torch.zeros_like(p0.q),
                                     torch.zeros_like(p0.b))
        # the same seeded batch order as the network's trainer
        self._batcher = Trainer(p0, world.data, world.schedule, world.cfg.batch, world.cfg.seed, 0)
        self._opt = Optimizer(world.schedule.dim)
        self.dc: torch.Tensor | None = None  # output intercept of the classifier stage
        probe = world.data.z_train[:4096]
        act, slope = tangent_parts(p0, probe, world.schedule.truncated)
        sq = (act**2).sum(1) + (slope**2).sum(1) * ((probe**2).sum(1) + 1.0)
        self.kappa = float(sq.mean().sqrt().clamp_min(1e-12))
        # θ₀ is fixed, so the tangent parts of the per-step probe samples are computed once
        ev = world.evaluator
        self._probe_parts = tangent_parts(p0, ev.probe_z, world.schedule.truncated)
        self._lin: torch.Tensor | None = None
        self._bufs: dict[str, torch.Tensor] = {}  # per-step buffers (see _buf)
        self.history: list[Snapshot] = []
        self._t0 = time.perf_counter()
        self._record()

    @property
    def done(self) -> bool:
        """True once T steps have been taken."""
        return self.t >= self.T

    def outputs(self, z: torch.Tensor) -> torch.Tensor:
        """f(x) for coordinates z."""
        act, slope = tangent_parts(self.p0, z, self.world.schedule.truncated)
        da, dq, db, dc = self.reported()
        lin = torch.addmm(db, z, dq.T)
        out = (act @ da + (slope * lin).sum(1)) / self.kappa
        return out if dc is None else out + dc

    def step(self) -> Snapshot:
        """One mini-batch hinge-loss step on the linearised model."""
        if self.done:
            return self.history[-1]
        self.t += 1
        sp = self.world.schedule.later
        z, y, act, slope = self._batch_parts()
        lin = torch.addmm(self.db, z, self.dq.T, out=self._buf("lin", act)).mul_(slope)
        f = torch.addmv(lin.sum(1), act, self.da).div_(self.kappa)
        if self.dc is not None:
            f = f + self.dc
        active = (y * f <= 1.0).to(z.dtype)
        r = -(y * active) / (z.shape[0] * self.kappa)
        cw = self.world.schedule.at(self.t).class_weights  # the network's weighting at step t
        if cw is not None:
            r = r * torch.where(y > 0, cw[0], cw[1])
        # ∂/∂dq_i = Σ_n slope_ni r_n x_n and ∂/∂db_i = Σ_n slope_ni r_n in one matmul
        k_ext = slope.T @ torch.cat([z * r[:, None], r[:, None]], dim=1)
        grads = (act.T @ r, k_ext[:, :-1], k_ext[:, -1])
        # the network's classifier-stage rule (optimizer, decay, averaging) on θ - θ₀
        eta, opt = step_size(sp, self.t, self.T), self._opt
        self.da = opt.move("a", self.da, grads[0], sp.lam_a, sp, eta)
        self.dq = opt.move("dq", self.dq, grads[1], sp.lam_a, sp, eta)
        self.db = opt.move("db", self.db, grads[2], sp.lam_a, sp, eta)
        if sp.intercept:  # the same output intercept as the network's classifier stage
            dc = torch.zeros((), dtype=z.dtype, device=z.device) if self.dc is None else self.dc
            self.dc = opt.move("c", dc, r.sum() * self.kappa, 0.0, sp, eta)
        opt.average(Params(self.dq, self.db, self.da, c=self.dc), sp.ema)
        loss = float((1 - y * f).clamp_min(0).mean())
        check_finite(self.t, loss, Params(self.dq, self.db, self.da), _G(grads))
        return self._record()

    def _batch_parts(self):
        """(z, y, σ, a₀σ') of the next mini-batch at θ₀; σ comes from the training-set
        activations of the initial layer (shared with RF, computed once) when they fit."""
        d, truncated = self.world.data, self.world.schedule.truncated
        idx = self._batcher.next_batch()
        z, y = (d.z_train, d.y_train) if idx is None else \
            (d.z_train.index_select(0, idx), d.y_train.index_select(0, idx))
        feats = d.frozen_features(self.p0, truncated)
        if feats is None:
            return (z, y, *tangent_parts(self.p0, z, truncated))
        rows = feats if idx is None else \
            torch.index_select(feats, 0, idx, out=self._buf("rows", feats[:len(idx)]))
        act = rows
        if rows.shape[1] != self.p0.q.shape[0]:  # twin-folded: the two halves are equal
            act = torch.cat([rows, rows], 1, out=self._buf("act", rows, 2))
        slope = indicator(act, truncated, self._buf("slope", act), self._buf("work", act))
        return z, y, act, slope.mul_(self.p0.a)

    def _buf(self, name: str, like: torch.Tensor, widen: int = 1) -> torch.Tensor:
        """A step buffer reused across steps: fresh multi-MB tensors each step cost page faults
        (≈ 1 ms per 2.4 MB on this CPU, as much as the arithmetic)."""
        shape = (like.shape[0], like.shape[1] * widen)
        buf = self._bufs.get(name)
        if buf is None or buf.shape != shape:
            buf = self._bufs[name] = torch.empty(shape, dtype=like.dtype, device=like.device)
        return buf

    def reported(self) -> tuple:
        """(da, dq, db, dc) of the reported model: the running average when the stage averages
        (dc, the output intercept, is None when the stage trains none)."""
        avg = self._opt.avg
        if avg is None:
            return self.da, self.dq, self.db, self.dc
        return avg.a, avg.q, avg.b, avg.c

    def __iter__(self):
        while not self.done:
            yield self.step()

    def _probe_outputs(self) -> torch.Tensor:
        """f(x) on the evaluator's probe samples from the cached tangent parts."""
        act, slope = self._probe_parts
        z = self.world.evaluator.probe_z
        if self._lin is None:
            self._lin = torch.empty_like(act)
        da, dq, db, dc = self.reported()
        lin = torch.addmm(db, z, dq.T, out=self._lin).mul_(slope)
        out = torch.addmv(lin.sum(1), act, da).div_(self.kappa)
        return out if dc is None else out.add_(dc)

    def _record(self) -> Snapshot:
        ev, d = self.world.evaluator, self.world.data
        # whole sets only at T: the NTK's steps 1-2 are ordinary mini-batch steps (the network's
        # full-batch steps 1-2 are what make its whole-set numbers there worth the time)
        full = self.t >= self.T
        if full:
            parts = []
            for z, y in ((d.z_train, d.y_train), (d.z_test, d.y_test)):
                margin = y * torch.cat([self.outputs(z[i:i + 16384])
                                        for i in range(0, len(z), 16384)])
                parts.append(margin_sums(margin) / len(margin))
            stats = torch.cat(parts)
        else:
            margin = self._probe_outputs().mul_(ev.probe_y)
            k = ev.n_probe_train
            stats = torch.cat([margin_sums(margin[:k]) / k,
                               margin_sums(margin[k:]) / (len(margin) - k)])
        out = stats.double().cpu().tolist()
        nan = float("nan")
        trl, tra, tel, tea = out
        # no first layer of its own: the geometry fields are undefined for the NTK
        snap = Snapshot(step=self.t, T=self.T, stage=self.world.schedule.stage(self.t),
                        train_acc=tra, test_acc=tea, train_loss=trl, test_loss=tel,
                        full_eval=full, cos_max=nan, cos_min=nan, cos_mean=nan,
                        weight_ratio=nan, off_span=nan,
                        elapsed=time.perf_counter() - self._t0)
        self.history.append(snap)
        return snap

    def summary(self) -> dict:
        """Final accuracies; the cosine is not defined for the NTK ('NA')."""
        last = self.history[-1]
        return {"train_acc": last.train_acc, "test_acc": last.test_acc, "cos": None,
                "steps": last.step}


class _G:
    """Adapter so check_finite can inspect the NTK's gradients."""

    def __init__(self, grads):
        self.a, self.q = grads[0], grads[1]


def tangent_kernel(p0: Params, z: torch.Tensor, truncated: bool = True) -> np.ndarray:
    """Empirical NTK Gram matrix ⟨∇g(x), ∇g(x')⟩ from the closed-form features (unscaled)."""
    f = ntk_features(p0, z, truncated)
    return (f @ f.T).double().cpu().numpy()
