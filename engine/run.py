"""A training run: one method on a world, advanced step by step, each step measured."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from .data import Dataset
from .evaluate import Evaluator, Snapshot, layer_identity, same_layer
from .finite import DivergenceError, check_finite, nonfinite_scalar
from .method_table import BY_NAME
from .network import Grads, Params
from .schedule import Schedule
from .trainer import DeviceData, Trainer

if TYPE_CHECKING:  # annotations only: the settings sit above the worlds
    from .settings import Settings as Config  # the Protocol: engine/config.py sits above


def pick_device(device: str = "auto") -> torch.device:
    """'auto' → CUDA when available, else CPU."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("device=cuda is not available on this machine; use auto or cpu")
    return torch.device(device)


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


class Run:
    """One method trained step by step on a world; each step() returns a Snapshot."""

    def __init__(self, world: World, method: str = "network", embed: bool = True,
                 keep_weights: int = 60, freeze_after: int | None = None):
        if method not in BY_NAME:
            raise ValueError(f"unknown method {method!r}; choose from {', '.join(BY_NAME)}")
        if BY_NAME[method].linearised:  # no first layer to train: engine.baselines.NTKRun
            raise ValueError(f"{method} is not trained by Run; use engine.methods.make_run")
        if freeze_after is not None and (not isinstance(freeze_after, int) or freeze_after < 0):
            raise ValueError(f"freeze_after must be None or a step ≥ 0, not {freeze_after!r}")
        self.world, self.method, self.embed = world, method, embed
        self.T = world.cfg.T
        # freeze_after: the first layer trains up to this step (None: always; engine/methods.py
        # gives RF 0, One Step 1, Two Step 2)
        self.trainer = Trainer(world.init.clone(), world.data, world.schedule, world.cfg.batch,
                               world.cfg.seed, freeze_after)
        self.history: list[Snapshot] = []
        self.diverged: DivergenceError | None = None  # set when a step diverged
        self._keep_every = max(1, self.T // max(1, keep_weights))
        self._last_map: tuple | None = None  # (first-layer identity, perp_scale) of the last frame
        self._last_weights: tuple | None = None  # (identity, array) of the last kept weights
        self._t0 = time.perf_counter()
        self._record(None, None)

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
        """The reported network parameters (the running average when the schedule averages)."""
        return self.trainer.eval_params

    def step(self) -> Snapshot:
        """Advance one step and measure; raises DivergenceError on NaN/Inf."""
        if self.diverged is not None:  # a diverged run stays stopped at that step
            raise self.diverged
        if self.done:
            return self.history[-1]
        try:
            return self._advance()
        except DivergenceError as err:
            self.diverged = err
            raise

    def _advance(self) -> Snapshot:
        a_prev = self.trainer.p.a.clone()
        g = self.trainer.step()
        sp, train_first = self.trainer.params_at(self.t)
        steps = (sp.eta, sp.eta_w if sp.optimizer_w and train_first else None)
        check_finite(self.t, g.loss, self.trainer.p, g, *steps)
        snap = self._record(g, a_prev)
        bad = nonfinite_scalar(snap)
        if bad is not None:  # e.g. float32 squared norms overflow before the weights do
            self.history.pop()  # the history keeps only steps whose numbers are all finite
            raise DivergenceError(self.t, bad, *steps)
        return snap

    def __iter__(self):
        while not self.done:
            yield self.step()

    def _record(self, g: Grads | None, a_prev) -> Snapshot:
        t, p, ev = self.t, self.trainer.eval_params, self.world.evaluator
        full = t <= 2 or t >= self.T
        snap = ev.snapshot(p, t, self.world.schedule, self.T, g, a_prev, full)
        ident = (*layer_identity(p), p.perp_scale)
        frozen = self._last_map is not None and same_layer(self._last_map, ident) \
            and self._last_map[4] == ident[4]
        if self.embed:
            prev = self.history[-1].embedding if self.history else None
            # a frozen first layer maps to the previous frame itself (same points, aligned)
            snap.embedding = prev if frozen and prev is not None else ev.embedding(p, prev)
        self._last_map = ident
        if t <= 2 or t >= self.T or t % self._keep_every == 0:
            last = self._last_weights
            if last is not None and same_layer(last[0], ident):
                snap.weights = last[1]  # unchanged first layer: share the array
            else:
                snap.weights = p.q.float().cpu().numpy()
                self._last_weights = (ident, snap.weights)
        snap.elapsed = time.perf_counter() - self._t0
        self.history.append(snap)
        return snap

    def summary(self) -> dict:
        """Final train/test accuracy and max cosine with Σ_A M (Table 1's columns; None where
        the world plants none: a cosine with a placeholder would be a number about nothing)."""
        last = self.history[-1]
        cos = last.cos_max if self.world.ds.has_truth else None
        return {"train_acc": last.train_acc, "test_acc": last.test_acc, "cos": cos,
                "steps": last.step}

    def history_bytes(self) -> int:
        """Memory held by the history's arrays."""
        total, seen = 0, set()
        for s in self.history:
            for arr in (s.cos, s.a, s.b, s.embedding, s.weights, s.grad.get("T_pattern")):
                if arr is not None and id(arr) not in seen:  # shared arrays count once
                    seen.add(id(arr))
                    total += arr.nbytes
        return total
