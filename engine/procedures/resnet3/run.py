"""One AZL method advanced one SGD mini-batch step at a time (the MethodRun protocol)."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch

from ...run import DivergenceError
from ...scenarios._common import ScenarioSnapshot
from ...scenarios.azl.config import AZLConfig, validate
from ...scenarios.azl.data import TEST_PROBE, TRAIN_PROBE, AZLData, make_data, pair_stars
from ..steps import Stepped
from .nets import Init, init_weights, make_net
from .probes import fit_numbers, pair_counts, star_cosines, weight_numbers

KEEP_WEIGHTS_EVERY = 10  # first-layer weights kept every this many steps (and the last)


@dataclass
class Split:
    """One evaluation set as tensors: inputs, targets and their F and G parts."""

    x: torch.Tensor
    y: torch.Tensor
    f: torch.Tensor
    g: torch.Tensor

    def head(self, n: int) -> Split:
        """The first n points (the per-step probe)."""
        return Split(self.x[:n], self.y[:n], self.f[:n], self.g[:n])


@dataclass
class AZLWorld:
    """What every method of one seed shares: settings, data, initial weights, pair stars."""

    cfg: AZLConfig
    data: AZLData
    init: Init
    train: Split
    test: Split
    stars: np.ndarray


def azl_world(cfg: AZLConfig) -> AZLWorld:
    """Draw the data and the initial weights of cfg's seed."""
    cfg = validate(cfg)
    data = make_data(cfg)
    t = torch.from_numpy
    train = Split(t(data.x_train), t(data.y_train), t(data.F_train), t(data.G_train))
    test = Split(t(data.x_test), t(data.y_test), t(data.F_test), t(data.G_test))
    return AZLWorld(cfg, data, init_weights(cfg), train, test, pair_stars(cfg))


class AZLRun(Stepped):
    """One method of the AZL world: SGD with momentum and weight decay on ½‖out − y‖²,
    step sizes ×0.1 from epoch drop_epoch on, every method on the same batches."""

    def __init__(self, world: AZLWorld, method: str):
        cfg = world.cfg
        # kind: the AZL method; method: the name the caller knows it by (an engine name)
        self.world, self.method, self.kind, self.cfg = world, method, method, cfg
        self.net = make_net(method, world.init, cfg.fc_bias)
        self.lr0 = {"ntk": cfg.lr_ntk, "last_layer": cfg.lr_last}.get(method, cfg.lr)
        self.opt = torch.optim.SGD(self.net.trained, lr=self.lr0, momentum=cfg.momentum,
                                   weight_decay=cfg.wd)
        self.sets = {"train": world.train, "test": world.test,
                     "train_probe": world.train.head(TRAIN_PROBE),
                     "test_probe": world.test.head(TEST_PROBE)}
        with torch.no_grad():
            self.caches = {name: self.net.cache(s.x) for name, s in self.sets.items()}
        self.gen = torch.Generator().manual_seed(cfg.seed * 7919 + 0xBA7)
        self.T, self.t, self.order = cfg.T, 0, None
        self._begin()

    def lr_at(self, t: int) -> float:
        """The step size of step t (1-based)."""
        epoch = (t - 1) // self.cfg.steps_per_epoch
        drop = self.cfg.drop_epoch
        return self.lr0 * (0.1 if 0 < drop <= epoch else 1.0)

    def _batch(self) -> torch.Tensor:
        """The indices of step t's mini-batch (a fresh permutation every epoch)."""
        spe, b = self.cfg.steps_per_epoch, self.cfg.batch
        j = (self.t - 1) % spe
        if j == 0:
            self.order = torch.randperm(self.cfg.n, generator=self.gen)
        return self.order[j * b:(j + 1) * b]

    def step(self):
        """One SGD step on one mini-batch; returns the step's snapshot."""
        if self.done:
            return self.history[-1]
        self.t += 1
        idx = self._batch()
        train, cache = self.sets["train"], self.caches["train"]
        out = self.net.forward(train.x[idx], None if cache is None else cache[idx])
        loss = 0.5 * ((out - train.y[idx]) ** 2).sum(dim=1).mean()
        for group in self.opt.param_groups:
            group["lr"] = self.lr_at(self.t)
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        self.opt.step()
        if not (torch.isfinite(loss) and all(bool(torch.isfinite(p).all())
                                              for p in self.net.trained)):
            raise DivergenceError(self.t, "the loss or the weights")
        return self._record()

    def __iter__(self):
        while not self.done:
            yield self.step()

    def evaluate(self, name: str) -> dict:
        """err, c_F, c_G on one of the sets (train, test, train_probe, test_probe)."""
        s, cache = self.sets[name], self.caches[name]
        with torch.no_grad():
            out = self.net.forward(s.x, cache)
        return fit_numbers(out, s.y, s.f, s.g, self.cfg.alpha, self.cfg.beta)

    def _record(self) -> ScenarioSnapshot:
        full = self.done  # the last step is measured on the whole sets
        tr = self.evaluate("train" if full else "train_probe")
        te = self.evaluate("test" if full else "test_probe")
        w = self.net.W.detach().numpy()
        v = self.net.second_layer()
        extra = {"test_err": te["err"], "train_err": tr["err"], "c_F": te["c_F"],
                 "c_G": te["c_G"], "lr": self.lr_at(max(self.t, 1)),
                 **weight_numbers(w, None if v is None else v.detach().numpy(), self.cfg.k)}
        cos = star_cosines(w, self.world.stars)
        # per pair r the neurons on one of its stars (the map's labels; a list, so that the
        # report and CSV keep it); their total over the pairs is the share on a star
        extra["pair_counts"] = [int(c) for c in pair_counts(w, self.world.stars)]
        keep = full or self.t % KEEP_WEIGHTS_EVERY == 0
        snap = ScenarioSnapshot(
            step=self.t, T=self.T, stage="init" if self.t == 0 else "SGD",
            train_acc=float("nan"), test_acc=float("nan"), train_loss=tr["err"],
            test_loss=te["err"], full_eval=full, cos_max=float(cos.max()),
            cos_min=float(cos.min()), cos_mean=float(cos.mean()), weight_ratio=float("nan"),
            off_span=float("nan"), cos=cos.astype(np.float32),
            frac_aligned=sum(extra["pair_counts"]) / len(w),
            b=self.net.b1.detach().numpy().copy(), weights=w.copy() if keep else None,
            extra=extra)
        snap.elapsed = time.perf_counter() - self._t0
        self.history.append(snap)
        return snap

    def summary(self) -> dict:
        """The last step's numbers on the whole train and test sets."""
        last = self.history[-1]
        return {"test_err": last.extra["test_err"], "train_err": last.extra["train_err"],
                "c_F": last.extra["c_F"], "c_G": last.extra["c_G"], "steps": last.step,
                "full_eval": last.full_eval, "train_acc": None, "test_acc": None, "cos": None}

    def history_bytes(self) -> int:
        """Memory held by the history's arrays."""
        return sum(a.nbytes for s in self.history for a in (s.cos, s.b, s.weights)
                   if a is not None)
