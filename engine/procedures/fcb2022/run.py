"""FCB's trainer: fixed ±1/√(2m) second layer, logistic loss, full-batch gradient descent on W.

Methods map onto the engine's names: `network` trains W every step; `rf`, `one_step`,
`two_step` train W for 0, 1, 2 steps, then freeze it and train a (the fixed-feature readout);
`ntk` trains the model linearised at W⁽⁰⁾ (activation pattern frozen at the init).
"""

from __future__ import annotations

import time

import numpy as np
import torch
import torch.nn.functional as F

from ... import mds
from ...method_table import BY_NAME
from ...network import Params
from ...run import DivergenceError, World
from ...scenarios._common import ScenarioSnapshot
from ..steps import Stepped


class FCBRun(Stepped):
    """One method of the FCB setting, advanced one full-batch step at a time."""

    def __init__(self, world: World, method: str, embed: bool, alpha: float,
                 freeze_after: int | None = None):
        self.world, self.method, self.embed, self.alpha = world, method, embed, alpha
        # the NTK keeps W⁽⁰⁾'s activation pattern (Method.linearised, engine/method_table.py)
        self.linearised, self.freeze_after = BY_NAME[method].linearised, freeze_after
        cfg, ds = world.cfg, world.ds
        self.T, self.t, width = cfg.T, 0, 2 * cfg.m
        gen = torch.Generator().manual_seed(cfg.seed * 7919 + 0xFCB)
        omega = (1.0 / (16 * width * cfg.d)) ** 0.5
        self.w0 = omega * torch.randn(width, cfg.d, generator=gen)
        self.w = self.w0.clone()
        self.a = torch.cat([torch.ones(cfg.m), -torch.ones(cfg.m)]) / width**0.5
        f = lambda v: torch.as_tensor(v, dtype=torch.float32)  # noqa: E731
        self.x_tr, self.y_tr = f(ds.z_train), f(ds.y_train)
        self.x_te, self.y_te = f(ds.z_test), f(ds.y_test)
        self.c_te = f(ds.extras["clean_test"])
        self.mu = f(ds.M.T)  # 2×d: µ1, µ2
        self._begin()

    @property
    def params(self) -> Params:
        """The network in the engine's parameter form (b ≡ 0)."""
        return Params(self.w, torch.zeros(len(self.a)), self.a)

    def outputs(self, x: torch.Tensor) -> torch.Tensor:
        """f(x); for the NTK the activation pattern is the one at W⁽⁰⁾."""
        if self.linearised:
            return ((x @ self.w0.T > 0).float() * (x @ self.w.T)) @ self.a
        return torch.relu(x @ self.w.T) @ self.a

    def _grads(self) -> tuple[torch.Tensor, torch.Tensor, float]:
        """∂L/∂W, ∂L/∂a of the mean logistic loss log(1 + e^{−y f}) on the training set."""
        x, y = self.x_tr, self.y_tr
        pre = x @ self.w.T
        gate = (x @ self.w0.T > 0).float() if self.linearised else (pre > 0).float()
        act = gate * pre
        margin = y * (act @ self.a)
        r = -y * torch.sigmoid(-margin) / len(y)  # ∂L/∂f per sample
        gw = (gate * r[:, None] * self.a[None, :]).T @ x
        return gw, act.T @ r, float(F.softplus(-margin).mean())

    def step(self):
        """One full-batch step on W (or on a once W is frozen)."""
        if self.done:
            return self.history[-1]
        self.t += 1
        gw, ga, loss = self._grads()
        if self.freeze_after is None or self.t <= self.freeze_after:
            self.w = self.w - self.alpha * gw
        else:
            self.a = self.a - self.alpha * ga
        if not (np.isfinite(loss) and bool(torch.isfinite(self.w).all())):
            raise DivergenceError(self.t, "the loss or the weights")
        return self._record()

    def __iter__(self):
        while not self.done:
            yield self.step()

    def _evaluate(self, x, y) -> tuple[float, float]:
        margin = y * self.outputs(x)
        right = (margin > 0).float() + 0.5 * (margin == 0).float()
        return float(F.softplus(-margin).mean()), float(right.mean())

    def correlations(self) -> np.ndarray:
        """2m×2 normalised correlations ⟨w_j/‖w_j‖, µ_i⟩."""
        u = self.w / self.w.norm(dim=1, keepdim=True).clamp_min(1e-30)
        return (u @ self.mu.T).numpy()

    def _record(self):
        trl, tra = self._evaluate(self.x_tr, self.y_tr)
        tel, tea = self._evaluate(self.x_te, self.y_te)
        _, clean = self._evaluate(self.x_te, self.c_te)
        corr = self.correlations()
        own = np.where(self.a.numpy() > 0, np.abs(corr[:, 0]), np.abs(corr[:, 1]))
        best = np.abs(corr).max(axis=1)
        inside = np.linalg.norm(corr, axis=1)
        ratio = float(np.median(inside / np.sqrt(np.clip(1 - inside**2, 1e-30, None))))
        w = self.w.numpy()
        snap = ScenarioSnapshot(
            step=self.t, T=self.T, stage="init" if self.t == 0 else "gradient descent",
            train_acc=tra, test_acc=tea, train_loss=trl, test_loss=tel, full_eval=True,
            cos_max=float(best.max()), cos_min=float(best.min()), cos_mean=float(best.mean()),
            weight_ratio=ratio, off_span=float("nan"), cos=best.astype(np.float32),
            a=self.a.numpy().copy(), b=np.zeros(len(w), dtype=np.float32),
            weights=w.copy(),
            extra={"clean_test_acc": clean, "corr_mu1": float(np.abs(corr[:, 0]).mean()),
                   "corr_mu2": float(np.abs(corr[:, 1]).mean()),
                   "corr_own": float(own.mean()), "corr_own_median": float(np.median(own))})
        if self.embed:
            prev = self.history[-1].embedding if self.history else None
            snap.embedding = mds.embed(w, self.world.ds.M.sum(axis=1), prev)
        snap.elapsed = time.perf_counter() - self._t0
        self.history.append(snap)
        return snap

    whole_sets = True  # every step is scored on the whole training and test sets

    def summary(self) -> dict:
        """Final accuracies and the mean own-mean correlation (the 'cos' column)."""
        last = self.history[-1]
        return {"train_acc": last.train_acc, "test_acc": last.test_acc,
                "cos": last.extra["corr_own"], "steps": last.step,
                "clean_test_acc": last.extra["clean_test_acc"]}

    def history_bytes(self) -> int:
        """Memory held by the history's arrays."""
        return sum(a.nbytes for s in self.history
                   for a in (s.cos, s.a, s.b, s.embedding, s.weights) if a is not None)
