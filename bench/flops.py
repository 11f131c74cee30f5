"""Counting the matrix-product FLOPs a run actually performs (for the arithmetic lower bound).

A TorchDispatchMode sees every aten op with its shapes; products count 2·M·N·K (a matrix-vector
product 2·M·K). Counting slows the ops it watches, so a counting pass is separate from the
timed one and watches only some steps: every step up to `head`, one step in the middle and the
last step. Steps head+1 … T-1 do the same products as step `head` (fixed batch and probe
sizes); the middle step checks that and the pass reports `steady` = False if it does not hold.
"""

from __future__ import annotations

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


def count_run_flops(make_runs, T: int, head: int = 4) -> dict:
    """FLOPs of building runs (make_runs() → dict of objects with .step(), .done) and training
    them to T in lockstep; watches steps ≤ head, the middle step and step T, extrapolates."""
    per_step: dict[int, int] = {}
    with MatmulFlops() as mode:
        runs = make_runs()
    build = mode.total
    mid = max(head + 1, T // 2)
    t = 0
    while not all(r.done for r in runs.values()):
        t += 1
        watch = t <= head or t == mid or t == T
        if watch:
            with MatmulFlops() as mode:
                for r in runs.values():
                    if not r.done:
                        r.step()
            per_step[t] = mode.total
        else:
            for r in runs.values():
                if not r.done:
                    r.step()
    steady = per_step.get(min(head, T - 1), 0)
    middle = [s for s in range(head + 1, T)]
    total = build + sum(per_step.values()) + steady * (len(middle) - (1 if mid in middle else 0))
    return {"total": int(total), "build": int(build), "per_step_watched": per_step,
            "steady": bool(mid not in per_step or per_step[mid] == steady or mid >= T)}
