"""One stored row of a sweep: a run's summary, steps to 95/99 % and its curves at a stride."""

from __future__ import annotations

import json
import math

from .spec import row_key

CURVE_POINTS = 50  # per-step curves are kept at about this many steps (plus steps 0-2 and T)
CURVE_FIELDS = ("step", "train_acc", "test_acc", "train_loss", "test_loss", "cos_max")
# summaries beyond accuracy, stored where a method reports them (NULL elsewhere): the GFL
# probes after step 1 (the feature step) and at the end, regression scores, the AZL projections
FINAL_FIELDS = ("relevant_share", "coverage", "test_mse_ratio", "test_err", "c_F", "c_G")
STEP1_FIELDS = {"share_1": "relevant_share", "coverage_1": "coverage"}
# a fixed-feature method's converged limit (engine/limits) beside its T-step value: the same
# headline number (NULL for the network, with --no-limits, and in stores from before them)
LIMIT_FIELDS = {"limit_test_acc": "test_acc", "limit_test_err": "test_err",
                "limit_test_mse_ratio": "test_mse_ratio", "limit_certificate": "certificate"}
EXTRA_FIELDS = (*STEP1_FIELDS, *FINAL_FIELDS, *LIMIT_FIELDS)


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


def at_step(history: list, step: int, name: str):
    """A per-step probe (a snapshot's `extra`) at `step`, or None where the run has none."""
    for snap in history:
        if snap.step == step:
            return _num((getattr(snap, "extra", None) or {}).get(name))
    return None


def extras(history: list, summary: dict) -> dict:
    """The EXTRA_FIELDS of one run: step-1 probes read from its history, the rest from its
    summary."""
    out = {key: at_step(history, 1, name) for key, name in STEP1_FIELDS.items()}
    out.update({key: _num(summary.get(key)) for key in FINAL_FIELDS})
    return out


def limit_fields(limit: dict | None) -> dict:
    """The LIMIT_FIELDS of one run's converged limit (all None without one, or refused)."""
    lim = limit or {}
    return {col: _num(lim.get(key)) for col, key in LIMIT_FIELDS.items()}


def make_row(setting: dict, cfg, method: str, run, summary: dict, time_s: float,
             device: str, version: str, batched: bool, limit: dict | None = None) -> dict:
    """The stored row of one (setting, seed, method); `limit`: its converged limit, if any."""
    return {"key": row_key(cfg, method, version), "setting": setting, "seed": cfg.seed,
            "method": method, "train_acc": _num(summary["train_acc"]),
            "test_acc": _num(summary["test_acc"]), "cos": _num(summary.get("cos")),
            "steps_95": steps_to(run.history, 0.95), "steps_99": steps_to(run.history, 0.99),
            "time_s": time_s, "device": device, "batched": int(batched),
            "code_version": version, "config": json.dumps(cfg.to_dict(), sort_keys=True),
            "curve": curve(run.history, cfg.T), **extras(run.history, summary),
            **limit_fields(limit)}
