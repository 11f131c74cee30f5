"""A training run that advances one step at a time and yields plain snapshots."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import torch

from . import mds
from .config import Config, validate
from .data import Dataset, make_dataset, population_stats
from .network import Grads, Params, hinge_loss_acc
from .probes import Geometry, cosines, grad_decomposition, map_features, weight_decomposition
from .schedule import Schedule, build_schedule
from .trainer import DeviceData, Trainer, init_params

PROBE_SAMPLES = 4096  # per-step accuracy is measured on this many train and test samples


class DivergenceError(RuntimeError):
    """Loss, weights or gradients became NaN or infinite."""

    def __init__(self, step: int, what: str):
        self.step, self.what = step, what
        super().__init__(f"training diverged at step {step}: {what} is not finite; "
                         "lower the step sizes (η) or raise λ and reset")


def pick_device(device: str = "auto") -> torch.device:
    """'auto' → CUDA when available, else CPU."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("device=cuda is not available on this machine; use auto or cpu")
    return torch.device(device)


@dataclass
class Snapshot:
    """Plain numbers and arrays describing the network after `step` updates."""

    step: int
    T: int
    stage: str
    train_acc: float
    test_acc: float
    train_loss: float
    test_loss: float
    full_eval: bool  # accuracies on the whole sets (else on the probe samples)
    cos_max: float
    cos_min: float
    cos_mean: float
    weight_ratio: float
    off_span: float
    hinge_active: float = float("nan")
    grad: dict = field(default_factory=dict)  # empty at step 0 and for frozen layers
    cos: np.ndarray | None = None  # per neuron
    a: np.ndarray | None = None
    b: np.ndarray | None = None
    embedding: np.ndarray | None = None  # (2m+2)×2, last two rows are the ±Σ_A M stars
    weights: np.ndarray | None = None  # 2m×r in data coordinates, kept on some steps
    elapsed: float = 0.0

    def scalars(self) -> dict:
        """The scalar fields, for tables, CSV and JSON."""
        out = {k: getattr(self, k) for k in SCALAR_FIELDS}
        out.update({k: v for k, v in self.grad.items() if not isinstance(v, np.ndarray)})
        return out


SCALAR_FIELDS = ("step", "stage", "train_acc", "test_acc", "train_loss", "test_loss",
                 "full_eval", "cos_max", "cos_min", "cos_mean", "weight_ratio", "off_span",
                 "hinge_active", "elapsed")
GRAD_FIELDS = ("grad_rel", "grad_bg", "grad_ratio", "grad_ratio_median", "snr_median",
               "grad_offdict")


class Evaluator:
    """Accuracy, loss and geometry probes for one dataset on one device."""

    def __init__(self, ds: Dataset, data: DeviceData, seed: int, truncated: bool):
        self.ds, self.data, self.truncated = ds, data, truncated
        self.geo = Geometry(ds.truth_coords, ds.patterns_in_coords, ds.A, data.z_train.device)
        rng = np.random.default_rng([seed, 0xB0B])
        self._tr = self._probe_idx(rng, len(ds.y_train))
        self._te = self._probe_idx(rng, len(ds.y_test))

    def _probe_idx(self, rng, n: int) -> torch.Tensor:
        idx = np.sort(rng.choice(n, size=min(n, PROBE_SAMPLES), replace=False))
        return torch.as_tensor(idx, device=self.data.z_train.device)

    def accuracy(self, p: Params, full: bool) -> tuple[float, float, float, float]:
        """(train_loss, train_acc, test_loss, test_acc) on the whole sets or the probe samples."""
        d = self.data
        ztr, ytr, zte, yte = d.z_train, d.y_train, d.z_test, d.y_test
        if not full:
            ztr, ytr = ztr.index_select(0, self._tr), ytr.index_select(0, self._tr)
            zte, yte = zte.index_select(0, self._te), yte.index_select(0, self._te)
        trl, tra = hinge_loss_acc(p, ztr, ytr, self.truncated)
        tel, tea = hinge_loss_acc(p, zte, yte, self.truncated)
        return trl, tra, tel, tea

    def snapshot(self, p: Params, t: int, schedule: Schedule, T: int, grads: Grads | None,
                 a_prev: torch.Tensor | None, full: bool) -> Snapshot:
        """Measure everything the dashboard shows for state p after step t."""
        trl, tra, tel, tea = self.accuracy(p, full)
        cos = cosines(p, self.geo)
        wd = weight_decomposition(p, self.geo)
        grad = {}
        if grads is not None and a_prev is not None and bool(grads.q.abs().sum() > 0):
            grad = grad_decomposition(grads.q, a_prev, self.geo)
        cos_np = cos.float().cpu().numpy()
        return Snapshot(
            step=t, T=T, stage=schedule.stage(t), train_acc=tra, test_acc=tea, train_loss=trl,
            test_loss=tel, full_eval=full, cos_max=float(cos_np.max()),
            cos_min=float(cos_np.min()), cos_mean=float(np.abs(cos_np).mean()),
            weight_ratio=wd["weight_ratio"], off_span=wd["off_span"],
            hinge_active=grads.hinge_active if grads is not None else float("nan"), grad=grad,
            cos=cos_np, a=p.a.float().cpu().numpy(), b=p.b.float().cpu().numpy())

    def embedding(self, p: Params, prev: np.ndarray | None) -> np.ndarray:
        """MDS map of the neuron directions with the two stars, aligned to the previous frame."""
        feats = map_features(p)
        truth = self.ds.truth_coords
        if feats.shape[1] > truth.shape[0]:
            truth = np.concatenate([truth, np.zeros(feats.shape[1] - truth.shape[0])])
        return mds.embed(feats, truth, prev)


def check_finite(step: int, loss: float, p: Params, g: Grads) -> None:
    """Raise DivergenceError when anything is NaN or infinite."""
    if not math.isfinite(loss):
        raise DivergenceError(step, "the loss")
    for name, tensor in (("the gradient", g.q), ("the gradient of a", g.a), ("the weights", p.q),
                         ("the output weights a", p.a), ("the biases b", p.b)):
        if not bool(torch.isfinite(tensor).all()):
            raise DivergenceError(step, name)


@dataclass
class World:
    """Everything methods share: config, data on the device, schedule, probes, initial network."""

    cfg: Config
    ds: Dataset
    data: DeviceData
    schedule: Schedule
    evaluator: Evaluator
    init: Params
    device: torch.device


def build_world(cfg: Config, device: str = "auto", space: str = "auto") -> World:
    """Draw the data and the initial network for cfg on the chosen device."""
    cfg = validate(cfg)
    dev = pick_device(device)
    ds = make_dataset(cfg, space)
    data = DeviceData.from_dataset(ds, dev)
    # Without input structure γ can be 0, which leaves σ_a and η⁽¹⁾ undefined: the network
    # then keeps the initialisation and step sizes of the structured setting (same procedure).
    ref = ds.stats if cfg.structure else population_stats(cfg.replace(structure=True))
    schedule = build_schedule(cfg, ref)
    evaluator = Evaluator(ds, data, cfg.seed, schedule.truncated)
    return World(cfg, ds, data, schedule, evaluator, init_params(cfg, ref, ds, schedule, dev), dev)


FREEZE_AFTER = {"network": None, "rf": 0, "one_step": 1, "two_step": 2}


class Run:
    """One method trained step by step on a world; each step() returns a Snapshot."""

    def __init__(self, world: World, method: str = "network", embed: bool = True,
                 keep_weights: int = 60):
        self.world, self.method, self.embed = world, method, embed
        self.T = world.cfg.T
        self.trainer = self._make_trainer(world, method)
        self.history: list[Snapshot] = []
        self._keep_every = max(1, self.T // max(1, keep_weights))
        self._t0 = time.perf_counter()
        self._record(None, None)

    def _make_trainer(self, world: World, method: str):
        base = method.removesuffix("_no_structure")
        if base not in FREEZE_AFTER:
            raise ValueError(f"unknown method {method!r}")
        return Trainer(world.init.clone(), world.data, world.schedule, world.cfg.batch,
                       world.cfg.seed, FREEZE_AFTER[base])

    @property
    def t(self) -> int:
        """Steps taken so far."""
        return self.trainer.t

    @property
    def done(self) -> bool:
        """True once T steps have been taken."""
        return self.t >= self.T

    @property
    def params(self) -> Params:
        """The current network parameters."""
        return self.trainer.p

    def step(self) -> Snapshot:
        """Advance one step and measure; raises DivergenceError on NaN/Inf."""
        if self.done:
            return self.history[-1]
        a_prev = self.trainer.p.a.clone()
        g = self.trainer.step()
        check_finite(self.t, g.loss, self.trainer.p, g)
        return self._record(g, a_prev)

    def __iter__(self):
        while not self.done:
            yield self.step()

    def _record(self, g: Grads | None, a_prev) -> Snapshot:
        t, p, ev = self.t, self.trainer.p, self.world.evaluator
        full = t <= 2 or t >= self.T
        snap = ev.snapshot(p, t, self.world.schedule, self.T, g, a_prev, full)
        if self.embed:
            prev = self.history[-1].embedding if self.history else None
            snap.embedding = ev.embedding(p, prev)
        if t <= 2 or t >= self.T or t % self._keep_every == 0:
            snap.weights = p.q.float().cpu().numpy()
        snap.elapsed = time.perf_counter() - self._t0
        self.history.append(snap)
        return snap

    def summary(self) -> dict:
        """Final train/test accuracy and max cosine (Table 1's columns)."""
        last = self.history[-1]
        return {"train_acc": last.train_acc, "test_acc": last.test_acc, "cos": last.cos_max,
                "steps": last.step}

    def history_bytes(self) -> int:
        """Memory held by the history's arrays."""
        total = 0
        for s in self.history:
            for arr in (s.cos, s.a, s.b, s.embedding, s.weights, s.grad.get("T_pattern")):
                total += 0 if arr is None else arr.nbytes
        return total
