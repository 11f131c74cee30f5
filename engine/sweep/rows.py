"""One stored row of a sweep: a run's summary, steps to 95/99 % and its curves at a stride."""

from __future__ import annotations

import json
import math

from .spec import row_key

CURVE_POINTS = 50  # per-step curves are kept at about this many steps (plus steps 0-2 and T)
CURVE_FIELDS = ("step", "train_acc", "test_acc", "train_loss", "test_loss", "cos_max")


def curve_stride(T: int) -> int:
    """Keep every stride-th step of the per-step curves."""
    return max(1, T // CURVE_POINTS)


def steps_to(history: list, level: float) -> int | None:
    """First step whose test accuracy reaches `level` (None: never)."""
    for snap in history:
        if snap.test_acc is not None and snap.test_acc >= level:
            return int(snap.step)
    return None


def _num(x):
    """Float or None (NaN → None), for SQL."""
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else float(x)


def curve(history: list, T: int) -> list[list]:
    """[[step, train_acc, test_acc, train_loss, test_loss, cos_max], ...] at a coarse stride."""
    stride = curve_stride(T)
    return [[int(s.step)] + [_num(getattr(s, f)) for f in CURVE_FIELDS[1:]]
            for s in history if s.step <= 2 or s.step % stride == 0 or s.step >= T]


def make_row(setting: dict, cfg, method: str, run, summary: dict, time_s: float,
             device: str, version: str, batched: bool) -> dict:
    """The stored row of one (setting, seed, method)."""
    return {"key": row_key(cfg, method, version), "setting": setting, "seed": cfg.seed,
            "method": method, "train_acc": _num(summary["train_acc"]),
            "test_acc": _num(summary["test_acc"]), "cos": _num(summary.get("cos")),
            "steps_95": steps_to(run.history, 0.95), "steps_99": steps_to(run.history, 0.99),
            "time_s": time_s, "device": device, "batched": int(batched),
            "code_version": version, "config": json.dumps(cfg.to_dict(), sort_keys=True),
            "curve": curve(run.history, cfg.T)}
