"""What is measured after every step: the Evaluator that fills a Snapshot (engine/snapshot.py,
re-exported here) with accuracy on fixed probe samples, cosines to ±Σ_A M, weight and gradient
decompositions."""

from __future__ import annotations

import numpy as np
import torch

from . import mds
from .data import Dataset
from .network import Grads, Params, _twins, margin_sums, predict
from .probes import (
    GRAD_KEYS,
    Geometry,
    cosines,
    grad_decomposition_t,
    map_features,
    weight_decomposition_t,
)
from .schedule import Schedule
from .snapshot import ALIGNED, SCALAR_FIELDS, Snapshot, star_counts
from .trainer import DeviceData

__all__ = ["ALIGNED", "SCALAR_FIELDS", "Snapshot", "star_counts", "Evaluator", "PROBE_SAMPLES"]

# Per-step accuracy probe, per split. 1 024 points give ±1.6 points of standard error at 50 %
# and keep the probe's matmuls about as large as the training step's; 4 096 made them 4× larger
# and six methods on paper-parity could not finish in 30 s on 2 cores.
PROBE_SAMPLES = 1024
FROZEN_CACHE = 4  # probe features of at most this many frozen first layers are kept per world


def layer_identity(p: Params) -> tuple:
    """Identity of a first layer: the tensor objects and their in-place versions."""
    return (p.q, p.b, p.q._version, p.b._version)


def same_layer(a: tuple, b: tuple) -> bool:
    return a[0] is b[0] and a[1] is b[1] and a[2] == b[2] and a[3] == b[3]


class Evaluator:
    """Accuracy, loss and geometry probes for one dataset on one device.

    What is measured every step (issue 6): hinge loss and accuracy on a fixed sample of
    PROBE_SAMPLES training and PROBE_SAMPLES test points (drawn once from the seed), every
    geometry probe on all neurons; the whole training and test sets at steps 0, 1, 2 and T.
    Both probe samples go through one matmul into a reused buffer; a first layer that stops
    changing (RF, One/Two Step after their freeze) has its probe features computed once.
    """

    def __init__(self, ds: Dataset, data: DeviceData, seed: int, truncated: bool):
        self.ds, self.data, self.truncated = ds, data, truncated
        self.geo = Geometry(ds.truth_coords, ds.patterns_in_coords, ds.A, data.z_train.device)
        rng = np.random.default_rng([seed, 0xB0B])
        self._tr = self._probe_idx(rng, len(ds.y_train))
        self._te = self._probe_idx(rng, len(ds.y_test))
        self.probe_z = torch.cat([data.z_train.index_select(0, self._tr),
                                  data.z_test.index_select(0, self._te)])
        self.probe_y = torch.cat([data.y_train.index_select(0, self._tr),
                                  data.y_test.index_select(0, self._te)])
        self.n_probe_train = len(self._tr)
        self._buf: torch.Tensor | None = None
        self._seen: list[tuple] = []  # first layers met once (identity only)
        self._frozen: list[tuple] = []  # (identity, probe features) of first layers met twice
        self._full: list[tuple] = []  # (q, b, a, result) of recent whole-set evaluations
        self._geo_seen: list[tuple] = []  # (layer key, geometry) of recent first layers

    def _probe_idx(self, rng, n: int) -> torch.Tensor:
        idx = np.sort(rng.choice(n, size=min(n, PROBE_SAMPLES), replace=False))
        return torch.as_tensor(idx, device=self.data.z_train.device)

    def probe_features(self, p: Params) -> torch.Tensor:
        """σ(⟨w_i, x⟩ + b_i) on the probe samples (train rows first); cached once frozen."""
        key = layer_identity(p)
        for ident, feats in self._frozen:
            if same_layer(ident, key):
                return feats
        if any(same_layer(ident, key) for ident in self._seen):  # met twice: a frozen layer
            feats = self._features(p, None)
            self._frozen = [*self._frozen[-(FROZEN_CACHE - 1):], (key, feats)]
            return feats
        self._seen = [*self._seen[-7:], key]
        n, width = self.probe_z.shape[0], p.q.shape[0]
        if self._buf is None or self._buf.shape != (n, width):
            self._buf = torch.empty(n, width, dtype=self.probe_z.dtype, device=self.probe_z.device)
        return self._features(p, self._buf)

    def _features(self, p: Params, out: torch.Tensor | None) -> torch.Tensor:
        pre = torch.addmm(p.b, self.probe_z, p.q.T, out=out) if out is not None else \
            torch.addmm(p.b, self.probe_z, p.q.T)
        return pre.clamp_(0.0, 1.0) if self.truncated else pre.clamp_min_(0.0)

    def accuracy_t(self, p: Params, full: bool) -> torch.Tensor:
        """[train_loss, train_acc, test_loss, test_acc] as a tensor on the run's device."""
        if full:
            return self._full_eval(p)
        feats, a = self.probe_features(p), p.a
        if _twins(p):  # fold twin pairs so the symmetric init gives g = 0 exactly
            h = a.shape[0] // 2
            feats, a = feats[:, :h], a[:h] + a[h:]
        margin = torch.mv(feats, a)
        if p.c is not None:
            margin.add_(p.c)
        margin.mul_(self.probe_y)
        k = self.n_probe_train
        tr, te = margin_sums(margin[:k]) / k, margin_sums(margin[k:]) / (len(margin) - k)
        return torch.cat([tr, te])

    def _full_eval(self, p: Params) -> torch.Tensor:
        # Methods that share a start (network, RF, One/Two Step) meet the same state at
        # steps 0-2: reuse the whole-set result when (q, b, a) are exactly equal.
        c = torch.zeros(()) if p.c is None else p.c.cpu()
        for q, b, a, c_, res in self._full:
            if torch.equal(q, p.q) and torch.equal(b, p.b) and torch.equal(a, p.a) \
                    and torch.equal(c_, c):
                return res
        d = self.data
        res = []
        for z, y in ((d.z_train, d.y_train), (d.z_test, d.y_test)):
            margin = predict(p, z, self.truncated).mul_(y)
            res.append(margin_sums(margin) / len(margin))
        out = torch.cat(res)
        self._full = [*self._full[-3:], (p.q.clone(), p.b.clone(), p.a.clone(), c.clone(), out)]
        return out

    def _geometry(self, p: Params) -> tuple:
        """(weight decomposition, [max, min, mean |cos|, share aligned], cos) of a first layer;
        a frozen layer (met again unchanged: RF, One/Two Step) reuses its numbers."""
        key = (layer_identity(p), p.perp_scale)
        for k, value in self._geo_seen:
            if same_layer(k[0], key[0]) and k[1] == key[1]:
                return value
        cos = cosines(p, self.geo)
        stats = torch.stack([cos.max(), cos.min(), cos.abs().mean(),
                             (cos.abs() > ALIGNED).float().mean()])
        value = (weight_decomposition_t(p, self.geo), stats, cos)
        self._geo_seen = [*self._geo_seen[-(2 * FROZEN_CACHE - 1):], (key, value)]
        return value

    def snapshot(self, p: Params, t: int, schedule: Schedule, T: int, grads: Grads | None,
                 a_prev: torch.Tensor | None, full: bool) -> Snapshot:
        """Measure everything the dashboard shows for state p after step t.

        All numbers are formed on the run's device and moved to the host in one transfer.
        """
        acc = self.accuracy_t(p, full)
        wd, cos_stats, cos = self._geometry(p)
        parts = {"acc": acc, "wd": wd, "cos_stats": cos_stats, "cos": cos, "a": p.a, "b": p.b}
        has_grad = grads is not None and a_prev is not None and bool(grads.q.abs().sum() > 0)
        if has_grad:
            parts["grad"], parts["T_pattern"] = grad_decomposition_t(grads.q, a_prev, self.geo)
        host = to_host(parts)
        trl, tra, tel, tea = _floats(host["acc"])
        ratio, off = _floats(host["wd"])
        cmax, cmin, cmean, frac = _floats(host["cos_stats"])
        grad = {}
        if has_grad:
            grad = dict(zip(GRAD_KEYS, _floats(host["grad"]), strict=True))
            grad["T_pattern"] = host["T_pattern"]
        return Snapshot(
            step=t, T=T, stage=schedule.stage(t), train_acc=tra, test_acc=tea, train_loss=trl,
            test_loss=tel, full_eval=full, cos_max=cmax, cos_min=cmin, cos_mean=cmean,
            frac_aligned=frac, weight_ratio=ratio, off_span=off,
            hinge_active=grads.hinge_active if grads is not None else float("nan"), grad=grad,
            cos=host["cos"], a=host["a"], b=host["b"])

    def embedding(self, p: Params, prev: np.ndarray | None) -> np.ndarray:
        """MDS map of the neuron directions with the two stars, aligned to the previous frame."""
        feats = map_features(p)
        truth = self.ds.truth_coords
        if feats.shape[1] > truth.shape[0]:
            truth = np.concatenate([truth, np.zeros(feats.shape[1] - truth.shape[0])])
        return mds.embed(feats, truth, prev)


def to_host(parts: dict[str, torch.Tensor]) -> dict[str, np.ndarray]:
    """Named tensors moved to the host in one transfer (float32), returned by the same names;
    each array is its own copy."""
    flat = [x.reshape(-1).float() for x in parts.values()]
    host = torch.cat(flat).cpu().numpy()
    out, start = {}, 0
    for name, x in zip(parts, flat, strict=True):
        out[name] = host[start:start + x.numel()].copy()
        start += x.numel()
    return out


def _floats(arr: np.ndarray) -> list[float]:
    """A float32 host array as Python floats (via float64, exactly as before)."""
    return arr.astype(np.float64).tolist()
