"""Counting the matrix-product FLOPs a run actually performs (for the arithmetic lower bound).

A TorchDispatchMode sees every aten op with its shapes; products count 2·M·N·K (a matrix-vector
product 2·M·K). Elementwise work is not counted: the bound is what the products alone need.
"""

from __future__ import annotations

import contextlib

import torch
from torch.utils._python_dispatch import TorchDispatchMode

aten = torch.ops.aten


def _numel(shape) -> int:
    out = 1
    for s in shape:
        out *= int(s)
    return out


def _flops(func, args) -> int:
    if func in (aten.mm.default, aten.mm.out):
        a, b = args[0], args[1]
        return 2 * a.shape[0] * a.shape[1] * b.shape[1]
    if func in (aten.addmm.default, aten.addmm.out, aten.addmm_.default):
        a, b = args[1], args[2]
        return 2 * a.shape[0] * a.shape[1] * b.shape[1]
    if func in (aten.bmm.default, aten.bmm.out, aten.baddbmm.default):
        a, b = (args[0], args[1]) if func is not aten.baddbmm.default else (args[1], args[2])
        return 2 * a.shape[0] * a.shape[1] * a.shape[2] * b.shape[2]
    if func in (aten.mv.default, aten.mv.out):
        return 2 * _numel(args[0].shape)
    if func in (aten.addmv.default, aten.addmv.out, aten.addmv_.default):
        return 2 * _numel(args[1].shape)
    if func in (aten.dot.default, aten.vdot.default):
        return 2 * _numel(args[0].shape)
    return 0


class MatmulFlops(TorchDispatchMode):
    """Adds up the FLOPs of matrix products while active (nestable, re-entrant)."""

    def __init__(self):
        super().__init__()
        self.total = 0
        self.by_op: dict[str, int] = {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        f = _flops(func, args)
        if f:
            self.total += f
            name = str(func.overloadpacket.__name__)
            self.by_op[name] = self.by_op.get(name, 0) + f
        return func(*args, **(kwargs or {}))


class StepFlops:
    """Matrix-product FLOPs of a run, counted during the timed pass itself.

    Watches building and steps 1 … head and T (the dispatch hook costs microseconds per op,
    < 1 % of a step); steps head+1 … T-1 repeat the products of step `head` (fixed batch and
    probe sizes; frozen layers are cached by step 4), so they are extrapolated from it.
    `steady` reports whether steps head-1 and head really did the same products.
    """

    def __init__(self, T: int, head: int = 6):
        with MatmulFlops():  # the first dispatch mode imports torch._dynamo (seconds): not timed
            torch.ones(2, 2) @ torch.ones(2, 2)
        self.T, self.head = T, min(head, T)
        self.build = 0
        self.per_step: dict[int, int] = {}

    def mode(self, t: int | None = None):
        """A counting context for step t (None: building), or a no-op one if t is not watched."""
        if t is not None and not (t <= self.head or t == self.T):
            return contextlib.nullcontext()
        return _Recorder(self, t)

    def result(self) -> dict:
        """Totals as JSON-ready numbers."""
        steady = self.per_step.get(self.head, 0)
        unwatched = self.T - len(self.per_step)
        total = self.build + sum(self.per_step.values()) + steady * unwatched
        prev = self.per_step.get(self.head - 1, steady)
        return {"total": int(total), "build": int(self.build), "per_step_steady": int(steady),
                "per_step_watched": {str(k): int(v) for k, v in self.per_step.items()},
                "steady": bool(prev == steady or self.head < 4)}


class _Recorder(MatmulFlops):
    def __init__(self, owner: StepFlops, t: int | None):
        super().__init__()
        self.owner, self.t = owner, t

    def __exit__(self, *exc):
        out = super().__exit__(*exc)
        if self.t is None:
            self.owner.build += self.total
        else:
            self.owner.per_step[self.t] = self.total
        return out
