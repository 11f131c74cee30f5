"""Every fixed-feature method at its limit: the readout its classifier stage trains (same loss,
same decay, same intercept) solved to convergence with a certificate, beside the T-step value.

limit_of(run) → {test_acc, train_acc | test_err, train_err | test_mse_ratio, …, certificate,
certificate_kind, iterations, solver, seconds, converged, objective, form, limit_kind, [path,
separable]} or {refused: reason} (engine/limits/path.py: which problem, λ → 0 or own decay);
None for a method that is not fixed-feature. Results are cached per (setting, seed, method)."""

from __future__ import annotations

import json
import time

import torch
from threadpoolctl import threadpool_limits  # ships with scikit-learn

from ..regression import mse_ratio
from . import path
from .problem import Problem, Refusal
from .sources import problem_of

_CACHE: dict[tuple, dict] = {}
CACHE_SIZE = 256


def cache_key(run) -> tuple | None:
    """(setting, seed, method) of a run: its world's config (which holds the seed) and method."""
    world = getattr(run, "world", None)
    cfg = getattr(world, "cfg", None)
    if cfg is None or not hasattr(cfg, "to_dict"):
        return None
    return json.dumps(cfg.to_dict(), sort_keys=True, default=str), run.method


def limit_of(run) -> dict | None:
    """The converged limit of a finished (or frozen) fixed-feature run, cached."""
    key = cache_key(run)
    if key is not None and key in _CACHE:
        return _CACHE[key]
    t0 = time.perf_counter()
    with torch.no_grad(), blas_held():
        prob = problem_of(run)
        if prob is None:
            return None
        out = ({"refused": prob.reason} if isinstance(prob, Refusal) else _solve(prob))
    out["seconds"] = time.perf_counter() - t0
    if key is not None:
        if len(_CACHE) >= CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = out
    return out


def blas_held():
    """numpy's and scipy's BLAS held to torch's thread count while a limit is solved: scipy
    ships its own OpenBLAS, which takes every core whatever torch's setting (the bench's
    one-thread limit figures were two-thread ones for scipy's LAPACK, NNLS and lsq_linear).
    scipy.linalg is loaded first: a limit applies only to the pools loaded when it is made."""
    import scipy.linalg  # noqa: F401  here: `import engine.cli` stays free of scipy

    return threadpool_limits(torch.get_num_threads(), user_api="blas")


def _solve(prob: Problem) -> dict:
    obj = prob.objective
    if obj.tie_break and obj.lam == 0.0:  # no decay and no ridge chosen: λ → 0
        res = path.to_zero(prob, lambda r: _scores(prob, r))
    else:
        res = path.own(prob)
    out = {"certificate": res["certificate"], "certificate_kind": res["certificate_kind"],
           "iterations": res["iterations"], "converged": res["converged"],
           "solver": res["detail"], "objective": obj.text(), "ridge": res.get("ridge", obj.lam),
           "tie_break": obj.tie_break, "limit_kind": res["limit_kind"], **prob.notes}
    for key in ("objective_value", "path", "separable"):
        if res.get(key) is not None:
            out[key] = res[key]  # P(w, c) at the solution; the ridge path; the LP's answer
    out.update(_scores(prob, res))
    return out


def _scores(prob: Problem, res: dict) -> dict:
    """The train and test values of a solution (w, c)."""
    out = {}
    for split, op, y in (("train", prob.train, prob.y_train), ("test", prob.test, prob.y_test)):
        pred = op.mv(res["w"])
        if res["c"] is not None:
            pred = pred + res["c"]
        out.update(_score(prob, split, pred, y))
    return out


def _score(prob: Problem, split: str, pred: torch.Tensor, y: torch.Tensor) -> dict:
    """{split_acc} (ties score ½), {split_err} (AZL) or {split_mse_ratio} (GFL regression)."""
    if prob.metric == "err":
        off = prob.offset[0 if split == "train" else 1] if prob.offset else 0.0
        return {f"{split}_err": prob.score(pred + off, split)}
    if prob.metric == "mse_ratio":
        off = prob.offset[0 if split == "train" else 1] if prob.offset else 0.0
        full = pred + off
        truth = y if split == "test" or prob.offset is None else y + prob.offset[0]
        return {f"{split}_mse_ratio": mse_ratio(full, truth)}
    margin = y * pred
    right = (margin > 0).to(pred.dtype) + 0.5 * (margin == 0).to(pred.dtype)
    return {f"{split}_acc": float(right.mean())}
