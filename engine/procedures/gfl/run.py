"""GFLRun: one method of the GFL procedure, stepped and measured (the MethodRun protocol of
engine/methods.py: step() → Snapshot, done, history, summary())."""

from __future__ import annotations

import math
import time

import numpy as np
import torch

from ... import mds, regression
from ...finite import DivergenceError
from ...scenarios._common import ScenarioSnapshot
from ...scenarios.gfl.options import (
    DEFAULT_ETA,
    DEFAULT_SGD_ETA,
    ETA1_RULE_TEXT,
    KEEP_WEIGHTS,
    GFLOptions,
)
from .learners import Learner
from .net import init_net, loss_of
from .prepare import prepare
from .probes import layer_probes, plane_basis, plane_map


def stage_rule(cfg) -> dict[str, tuple[str, float]]:
    """The classifier stage's rule per block: a by the setting optimizer (auto: adam) with η,
    W by optimizer_w (auto or same: a's rule) with η_w; Adam's η auto is 0.01, plain steps'
    c auto is 1 (the step is c/L)."""
    rule_a = "adam" if cfg.optimizer == "auto" else cfg.optimizer
    rule_w = rule_a if cfg.optimizer_w in ("auto", "same") else cfg.optimizer_w
    auto = {"adam": DEFAULT_ETA, "sgd": DEFAULT_SGD_ETA}
    eta_a = cfg.eta or auto[rule_a]
    eta_w = cfg.eta_w or (eta_a if rule_w == rule_a else auto[rule_w])
    return {"a": (rule_a, eta_a), "w": (rule_w, eta_w)}


def start_net(cfg, prep, opts: GFLOptions):
    """W⁽⁰⁾, b, a⁽⁰⁾ of (3.9) from the seed: the same for every method of a world."""
    gen = torch.Generator().manual_seed(cfg.seed * 7919 + 0x9F1)
    return init_net(cfg.m, prep.x_train.shape[1], prep.b_tilde, opts, gen, prep.relevant.shape[1])


class GFLRun:
    """One of network, ntk, rf, one_step trained by Algorithm 1 on a world's data."""

    def __init__(self, world, method: str, opts: GFLOptions, embed: bool = True):
        cfg = world.cfg
        self.world, self.method, self.embed, self.opts = world, method, embed, opts
        self.T, self.t = cfg.T, 0
        with torch.no_grad():
            self.prep = prepare(world.ds, opts, cfg.seed)
            net0 = start_net(cfg, self.prep, opts)
        self.learner = Learner(method, net0, self.prep, opts, stage_rule(cfg),
                               min(cfg.batch, len(self.prep.y_train)), cfg.seed)
        self.history: list = []
        self._keep_every = max(1, self.T // KEEP_WEIGHTS)
        self._t0 = time.perf_counter()
        self._record(float("nan"))

    @property
    def done(self) -> bool:
        """True once T steps have been taken."""
        return self.t >= self.T

    @property
    def eta1(self) -> float | None:
        """The step-1 scale η⁽¹⁾ of W (None for RF and the NTK)."""
        return self.learner.eta1

    def step_sizes(self) -> list[dict]:
        """The step sizes this run uses, one row per stage (the columns of Schedule.rows()):
        None where a value is set by a step not yet taken (η⁽¹⁾ at step 1, SGD's L at step 2)."""
        lrn, rows = self.learner, []
        if not lrn.linear:  # the NTK has no reset step: its classifier stage starts at step 1
            rows.append(_step_one_row(self.method, lrn.eta1, self.opts))
        trained = ("a", "w") if lrn.trains_w else ("a",)
        steps = lrn.stage_eta or {}
        for block in trained:  # one row per block: Algorithm 1 may give a and W different rules
            rows.append(_stage_row(block, lrn.stage[block], steps.get(block),
                                   1 if lrn.linear else 2, self.T, lrn.batch))
        return rows

    def step(self):
        """Take one step and return its snapshot (DivergenceError on NaN or Inf)."""
        if self.done:
            return self.history[-1]
        self.t += 1
        loss = self.learner.step(self.t)
        if not math.isfinite(loss) or not bool(torch.isfinite(self.learner.weights()).all()):
            raise DivergenceError(self.t, "the loss or the weights", self.world.cfg.eta)
        return self._record(loss)

    def __iter__(self):
        while not self.done:
            yield self.step()

    def _split(self, x, y, fit, idx) -> tuple[float, float, float]:
        """(loss, accuracy, MSE / Var(y)) on rows idx (None: all) of a split."""
        if idx is not None:
            x, y, fit = x[idx], y[idx], fit[idx]
        with torch.no_grad():
            g = self.learner.output(x)
            loss = float(loss_of(g, fit, self.prep.regression))
            if self.prep.regression:
                return loss, float("nan"), regression.mse_ratio(self.learner.predict(x), y)
            margin = y * g
            right = (margin > 0).float() + 0.5 * (margin == 0).float()
            return loss, float(right.mean()), float("nan")

    def _measure(self) -> dict:
        p, full = self.prep, self.t <= 2 or self.t >= self.T
        tr_idx, te_idx = (None, None) if full else (p.probe_train, p.probe_test)
        test_fit = p.y_test if p.offset is None else p.y_test - p.offset[0] - p.x_test @ p.offset[1]
        trl, tra, trr = self._split(p.x_train, p.y_train, p.fit_train, tr_idx)
        tel, tea, ter = self._split(p.x_test, p.y_test, test_fit, te_idx)
        return dict(full=full, train_loss=trl, train_acc=tra, test_loss=tel, test_acc=tea,
                    train_mse_ratio=trr, test_mse_ratio=ter)

    def _record(self, step_loss: float):
        m = self._measure()
        with torch.no_grad():
            w = self.learner.weights().detach().numpy().copy()
            net = self.learner.net0 if self.learner.linear else self.learner.net
            a, b = net.a.detach().numpy().copy(), net.b.numpy().copy()
        pr = layer_probes(w, self.prep.dirs)
        extra = {"coverage": pr["coverage"], "relevant_share": pr["relevant_share"],
                 "nice_min": pr["nice_min"], "step_loss": step_loss}
        if self.prep.regression:
            extra.update(train_mse_ratio=m["train_mse_ratio"], test_mse_ratio=m["test_mse_ratio"])
        c = np.abs(pr["nearest_cos"])
        snap = ScenarioSnapshot(
            step=self.t, T=self.T, stage=_stage(self.t, self.learner.linear),
            train_acc=m["train_acc"], test_acc=m["test_acc"], train_loss=m["train_loss"],
            test_loss=m["test_loss"], full_eval=m["full"], cos_max=float(c.max()),
            cos_min=float(c.min()), cos_mean=float(c.mean()), weight_ratio=pr["relevant_share"],
            off_span=float("nan"), frac_aligned=pr["frac_aligned"],
            cos=pr["nearest_cos"].astype(np.float32), a=a, b=b, extra=extra)
        if self.t <= 2 or self.t >= self.T or self.t % self._keep_every == 0:
            snap.weights = w
        if self.embed:
            snap.embedding = self._embedding(w)
        snap.elapsed = time.perf_counter() - self._t0
        self.history.append(snap)
        return snap

    def _embedding(self, w: np.ndarray) -> np.ndarray:
        """The map of the neuron directions with ±D_1 as the stars (a frozen layer: unchanged):
        for a subspace truth its plane (probes.plane_map), else the cosine MDS."""
        prev = self.history[-1].embedding if self.history else None
        frozen = self.t >= 2 and not self.learner.trains_w
        if frozen and prev is not None:
            return prev
        star = self.prep.dirs.vectors[0]
        basis = plane_basis(self.prep.dirs)
        if basis is not None:
            return plane_map(mds.with_stars(w, star), basis).astype(np.float32)
        return mds.embed(w, star, prev)

    def summary(self) -> dict:
        """Final accuracy (binary) or MSE / Var(y) (regression), the coverage as 'cos'."""
        last = self.history[-1]
        out = {"train_acc": last.train_acc, "test_acc": last.test_acc,
               "cos": last.extra["coverage"], "steps": last.step,
               "coverage": last.extra["coverage"], "relevant_share": last.extra["relevant_share"]}
        if self.prep.regression:
            out.update(train_mse_ratio=last.extra["train_mse_ratio"],
                       test_mse_ratio=last.extra["test_mse_ratio"])
        return out

    def history_bytes(self) -> int:
        """Memory held by the history's arrays."""
        seen, total = set(), 0
        for s in self.history:
            for arr in (s.cos, s.a, s.b, s.embedding, s.weights):
                if arr is not None and id(arr) not in seen:
                    seen.add(id(arr))
                    total += arr.nbytes
        return total


def _step_one_row(method: str, eta1: float | None, opts: GFLOptions) -> dict:
    """Step 1, the reset on the full sample: W⁽¹⁾ = −η⁽¹⁾∇_W L (λ⁽¹⁾ = 1/η⁽¹⁾), a rescaled."""
    if method == "rf":
        rule = "W⁽⁰⁾ kept; a⁽¹⁾ = −∇_a L / max |∇_a L|"
    else:
        moves_a = "a⁽¹⁾ rescaled to max |a| = 1" if opts.step1_moves_a else "a kept"
        rule = f"reset: {ETA1_RULE_TEXT[opts.eta1_rule]} (set at step 1); {moves_a}"
    if opts.rebias:
        rule += "; b re-drawn N(0, 1)"
    lam = 1.0 / eta1 if eta1 else None
    return {"stage": "step 1", "η": eta1, "λ_w": lam, "λ_a": None, "σ_ξ": None,
            "batch": "full", "rule": rule}


def _stage_row(block: str, rule: tuple, step: float | None, first: int, T: int,
               batch: int) -> dict:
    """The classifier stage's row for one block: Adam's η, or plain steps c/L (L set at the
    stage's first step, None before it)."""
    kind, value = rule
    name = "W" if block == "w" else "a"
    text = (f"{name}: adam, step η = {value:g}, no weight decay" if kind == "adam" else
            f"{name}: sgd, step c/L with c = {value:g}, L = λ_max(E ψψᵀ) (set at its first step)")
    return {"stage": f"steps {first}-{T}", "η": value if kind == "adam" else step,
            "λ_w": 0.0, "λ_a": 0.0, "σ_ξ": None, "batch": f"mini-batch of {batch}",
            "rule": text}


def _stage(t: int, linear: bool) -> str:
    if t == 0:
        return "init"
    if t == 1 and not linear:
        return "step 1 (reset)"
    return "classifier stage"
