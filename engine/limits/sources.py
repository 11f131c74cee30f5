"""Each procedure's fixed-feature methods as a Problem (engine.limits.problem), read off the
finished run itself: RF = the initial first layer, One/Two Step = the layer frozen after step
1/2 of the same run (it stays frozen, so the run's last layer is the one frozen), the NTK = the
tangent features at θ₀; the objective is the one the method's classifier stage trains."""

from __future__ import annotations

import math

import torch

from ..config import SPECS
from ..method_table import BY_NAME
from ..network import _twins, activation, frozen_units
from ..procedures.resnet3.probes import fit_numbers
from . import kernelsq, lowrank, rows
from .ops import DENSE_BYTES, DT, Dense, FuncLinear, Gram, Tangent, TangentDense, kernel_embedding
from .problem import Objective, Problem, Refusal
from .svm import GRAM_BYTES

# every limit is solved on the CPU in float64 (the solvers make their own vectors there): a
# run trained on a GPU has its features copied over (found on an H100: paper-parity's RF)
CPU = "cpu"
# where a method trains without decay (GFL, FCB, the theory and standard schedules) its limit is
# λ → 0 (engine/limits/path.py: max-margin where separable): limit_ridge 0, its default; a
# positive limit_ridge solves at that ridge instead. gfl-xor's NTK: 81.6 % at 1e-4, 87.4 % (the
# max-margin solution) at every λ ≤ 8.6e-6 (docs/limits.md)
TIE = SPECS["limit_ridge"].default
DIRECT_WIDTH = 6000  # explicit features up to this width; wider: the Gram or matrix-free
# matrix-free Newton-CG takes thousands of J v / Jᵀ u products (≈ 2np multiply-adds each): above
# n·p = this it would run for hours on the 2-core machine, so it is refused with its size
MATRIX_FREE_NP = 3e8


def problem_of(run) -> Problem | Refusal | None:
    """The readout problem of a run's method; None when the method is not fixed-feature."""
    kind = type(run).__name__
    if kind == "GFLRun":
        return _gfl(run)
    if kind == "AZLRun":
        return _azl(run)
    if kind == "FCBRun":
        return _fcb(run)
    if kind in ("Run", "NTKRun"):
        return _shi(run)
    return None


def tie_ridge(world) -> float:
    """The world's limit_ridge setting (TIE = 0, λ → 0, for a config without one)."""
    return getattr(world.cfg, "limit_ridge", TIE)


def _shi_objective(world) -> Objective | Refusal:
    sp = world.schedule.later
    if sp.xi > 0.0:
        return Refusal(f"the classifier stage smooths the activation (σ_ξ = {sp.xi:g}): its "
                       "features are random per step, not fixed")
    lam, tie = (sp.lam_a, False) if sp.lam_a > 0 else (tie_ridge(world), True)
    return Objective("hinge", lam, sp.intercept, sp.class_weights, tie_break=tie)


def _shi(run) -> Problem | Refusal | None:
    info = BY_NAME.get(run.method)
    if info is None or not (info.frozen or info.linearised):
        return None
    obj = _shi_objective(run.world)
    if isinstance(obj, Refusal):
        return obj
    d, trunc = run.world.data, run.world.schedule.truncated
    y_tr, y_te = d.y_train.to(CPU, DT), d.y_test.to(CPU, DT)
    if info.linearised:
        return _shi_ntk(run, obj, y_tr, y_te)
    p = run.trainer.p
    q, b = frozen_units(p)
    need = (d.z_train.shape[0] + d.z_test.shape[0]) * q.shape[0] * 8
    if need > DENSE_BYTES:
        return Refusal(f"the {q.shape[0]} features of {d.z_train.shape[0]} samples take "
                       f"{need / 2**20:.0f} MiB (guard {DENSE_BYTES / 2**20:.0f} MiB)")
    fold = math.sqrt(2.0) if _twins(p) else 1.0
    feats = [_relu(z, q, b, trunc) * fold for z in (d.z_train, d.z_test)]
    return Problem(Dense(feats[0]), Dense(feats[1]), y_tr, y_te, obj,
                   notes={"form": "primal on the feature matrix", "n": len(y_tr),
                          "p": q.shape[0]}, start=None if obj.tie_break else _readout(p, obj))


def _readout(p, obj: Objective) -> torch.Tensor:
    """The run's trained (w, [c]) in the problem's coordinates: a twin pair's a summed over the
    folded feature √2 σ."""
    a = p.a.to(CPU, DT)
    w = (a[:len(a) // 2] + a[len(a) // 2:]) / math.sqrt(2.0) if _twins(p) else a
    if not obj.intercept:
        return w
    c = torch.zeros(1, dtype=DT) if p.c is None else p.c.to(CPU, DT).reshape(1)
    return torch.cat([w, c])


def _relu(z, q, b, truncated):
    pre = torch.addmm(b.to(CPU, DT), z.to(CPU, DT), q.to(CPU, DT).T)
    return pre.clamp(0.0, 1.0) if truncated else pre.clamp_min(0.0)


def _shi_ntk(run, obj, y_tr, y_te):
    p0, d, trunc = run.p0, run.world.data, run.world.schedule.truncated
    fold = 1.0
    if _twins(p0):
        h = p0.q.shape[0] // 2
        p0, fold = type(p0)(p0.q[:h], p0.b[:h], p0.a[:h]), math.sqrt(2.0)
    ops = [Tangent(*_shi_parts(p0, z, trunc), z, run.kappa, fold)
           for z in (d.z_train.to(CPU), d.z_test.to(CPU))]
    prob = _tangent_problem(ops, y_tr, y_te, obj)
    if isinstance(prob, Problem) and not obj.tie_break and isinstance(prob.train, TangentDense):
        prob.start = _ntk_readout(run, obj)  # the explicit tangent coordinates only
    return prob


def _ntk_readout(run, obj: Objective) -> torch.Tensor:
    """The NTK run's trained (δa, δq, δb, [c]) in the tangent operator's coordinates: a twin
    pair (q, b equal, a_j = r a_i) has features σ'_i a_i(…) once, ×√2, so its weight is
    (δ_i + r δ_j)/√2 (δa's σ is a-free: r = 1 there)."""
    da, dq, db, dc = (None if t is None else t.to(CPU, DT) for t in run.reported())
    if _twins(run.p0):
        h, a = len(da) // 2, run.p0.a.to(CPU, DT)
        r = torch.where(a[:h] != 0, a[h:] / torch.where(a[:h] != 0, a[:h], 1.0), 0.0)
        fold = math.sqrt(2.0)
        da, dq, db = ((da[:h] + da[h:]) / fold, (dq[:h] + r[:, None] * dq[h:]) / fold,
                      (db[:h] + r * db[h:]) / fold)
    w = torch.cat([da, dq.reshape(-1), db])
    if not obj.intercept:
        return w
    return torch.cat([w, torch.zeros(1, dtype=DT) if dc is None else dc.reshape(1)])


def _shi_parts(p0, z, truncated):
    """(σ_i, a_i σ'_i) at θ₀ in float64 (engine.baselines.tangent_parts, without rounding)."""
    pre = torch.addmm(p0.b.to(CPU, DT), z.to(CPU, DT), p0.q.to(CPU, DT).T)
    act, der = activation(pre, 0.0, truncated)
    return act, der * p0.a.to(CPU, DT)


def _tangent_problem(ops, y_tr, y_te, obj, metric="acc", offset=None) -> Problem | Refusal:
    """Explicit features when narrow, the n×n Gram's embedding when n is small, else the
    matrix-free operator (its n × units arrays must fit the guard)."""
    tr, te = ops
    n, p = tr.n, tr.p
    notes = {"n": n, "p": p}
    if p <= DIRECT_WIDTH and (n + te.n) * p * 8 <= DENSE_BYTES:
        dense = [TangentDense(tr), te]  # the test rows are only applied (X_t w)
        return Problem(*dense, y_tr, y_te, obj, metric, offset, notes={**notes, "form": "primal"})
    if n <= DIRECT_WIDTH and (n + te.n) * n * 8 <= DENSE_BYTES:
        small = lowrank.embedding(tr, te)  # a kernel of small rank: r columns, no n×n Gram
        if small is not None:
            return Problem(*small, y_tr, y_te, obj, metric, offset, notes={
                **notes, "form": f"dual: the tangent kernel of rank {small[0].p}, "
                                 "pivoted Cholesky by columns"})
        # the train Gram symmetric: the blocks on and above the diagonal (half the work)
        train, test = kernel_embedding(TangentDense(tr).gram(), tr.gram(te))
        return Problem(train, test, y_tr, y_te, obj, metric, offset,
                       notes={**notes, "form": "dual: the n×n tangent kernel"})
    if obj.loss == "squared" and p > max(n, DIRECT_WIDTH) and kernelsq.fits(n):
        # gfl-multi-index's NTK: the closed-form Gram in kernel form (engine/limits/kernelsq.py)
        return Problem(TangentDense(tr), te, y_tr, y_te, obj, metric, offset,
                       notes={**notes, "form": "kernel form: the n×n tangent Gram, w = Xᵀβ"})
    repeated = rows.on_distinct_inputs(tr, te, (y_tr, y_te, obj, metric, offset, notes))
    if repeated is not None:
        return repeated
    if _libsvm_gram(obj, n, te.n):  # dm-sparse-parity, n = 10 000: 5 s, matrix-free 849 s
        return Problem(Gram(TangentDense(tr).gram()), Gram(tr.gram_blocked(te)), y_tr, y_te, obj,
                       metric, offset, notes={**notes, "form": "dual: libsvm on the n×n "
                                              "tangent Gram"})
    held = 2 * (n + te.n) * tr.units * 8
    if n * p > MATRIX_FREE_NP:
        return Refusal(f"n = {n} samples × p = {p} tangent features: explicit features need "
                       f"{(n + te.n) * p * 8 / 2**30:.1f} GiB and the n×n Gram alone "
                       f"{n * n * 8 / 2**30:.1f} GiB ({n * n * 4 / 2**30:.1f} GiB in float32; "
                       f"libsvm's guard {GRAM_BYTES / 2**30:.0f} GiB); matrix-free, "
                       f"n·p = {n * p:.1e} per product exceeds {MATRIX_FREE_NP:.0e}")
    if held > DENSE_BYTES:
        return Refusal(f"the tangent features of {n} samples × {tr.units} units need "
                       f"{held / 2**20:.0f} MiB even matrix-free "
                       f"(guard {DENSE_BYTES / 2**20:.0f} MiB)")
    return Problem(tr, te, y_tr, y_te, obj, metric, offset,
                   notes={**notes, "form": "matrix-free J v, Jᵀ u"})


def _libsvm_gram(obj: Objective, n: int, n_test: int) -> bool:
    """The hinge with an intercept (libsvm's own form) on an n×n Gram within libsvm's guard,
    with the test rows' Gram within the dense guard."""
    return (obj.loss == "hinge" and obj.intercept and n * n * 8 <= GRAM_BYTES
            and (n + n_test) * n * 8 <= DENSE_BYTES)


def _fcb(run) -> Problem | Refusal | None:
    """FCB's readouts: logistic loss, full-batch steps, no decay (tie-breaking ridge); RF and
    One/Two Step train a on σ(W x) with W frozen, the NTK trains W with W⁽⁰⁾'s gates."""
    info = BY_NAME.get(run.method)
    if info is None or not (info.frozen or info.linearised):
        return None
    obj = Objective("logistic", tie_ridge(run.world), tie_break=True)
    xs = [x.to(CPU, DT) for x in (run.x_tr, run.x_te)]
    y_tr, y_te = run.y_tr.to(CPU, DT), run.y_te.to(CPU, DT)
    if info.linearised:  # out = (1{W⁽⁰⁾x > 0} ⊙ W x) a: W's block only (a is fixed)
        w0, a = run.w0.to(CPU, DT), run.a.to(CPU, DT)
        ops = [Tangent(torch.zeros(len(x), len(a), dtype=DT), (x @ w0.T > 0).to(CPU, DT) * a, x,
                       bias=False) for x in xs]
        return _tangent_problem(ops, y_tr, y_te, obj)
    feats = [torch.relu(x @ run.w.to(CPU, DT).T) for x in xs]
    return Problem(Dense(feats[0]), Dense(feats[1]), y_tr, y_te, obj,
                   notes={"form": "primal on the feature matrix", "n": len(y_tr),
                          "p": feats[0].shape[1]})


def _gfl(run) -> Problem | Refusal | None:
    if run.method not in ("rf", "one_step", "ntk"):
        return None
    lrn, prep = run.learner, run.prep
    obj = Objective("squared" if prep.regression else "hinge", tie_ridge(run.world),
                    tie_break=True)
    xs = (prep.x_train.to(CPU), prep.x_test.to(CPU))
    y_tr = prep.fit_train.to(CPU, DT)
    y_te = prep.y_test.to(CPU, DT)
    offset, metric = None, "acc"
    if prep.regression:
        metric = "mse_ratio"
        if prep.offset is not None:
            rho, beta = prep.offset
            offset = tuple((rho + x @ beta).to(CPU, DT) for x in xs)
    if run.method == "ntk":
        n0 = lrn.net0
        ops = [_gfl_tangent(n0, x) for x in xs]
        return _tangent_problem(ops, y_tr, y_te, obj, metric, offset)
    net = lrn.net
    w, b = net.w.to(CPU, DT), net.b.to(CPU, DT)
    feats = [torch.relu(torch.addmm(b, x.to(CPU, DT), w.T)) for x in xs]
    return Problem(Dense(feats[0]), Dense(feats[1]), y_tr, y_te, obj, metric, offset,
                   notes={"form": "primal on the feature matrix", "n": len(y_tr),
                          "p": feats[0].shape[1]})


def _gfl_tangent(net, x) -> Tangent:
    """The tangent operator at θ₀ of the sample x: where x repeats a few points (a finite input
    set: gfl-uniform-parity's 30 000 rows are 2 048 points), its parts made on those points and
    repeated — the same rows, 0.7 → 0.05 s per split there."""
    keep, group = rows._distinct(x)
    if len(keep) > rows.WORTH * len(x):
        return Tangent(*_gfl_parts(net, x), x, bias=False)
    act, slope = _gfl_parts(net, x[keep])
    return Tangent(act[group], slope[group], x, bias=False)


def _gfl_parts(net, x):
    pre = torch.addmm(net.b.to(CPU, DT), x.to(CPU, DT), net.w.to(CPU, DT).T)
    return torch.relu(pre), (pre > 0).to(CPU, DT) * net.a.to(CPU, DT)


def _azl(run) -> Problem | Refusal | None:
    if run.kind not in ("ntk", "last_layer"):
        return None
    cfg, init, world = run.cfg, run.world.init, run.world
    sets = (world.train, world.test)
    k = init.A.shape[0]
    y_tr, y_te = (s.y.to(CPU, DT) for s in sets)
    score = _azl_score(cfg, sets)
    if run.kind == "last_layer":  # out = A σ(W⁽⁰⁾x + b₁): ridge on the hidden features
        obj = Objective("squared", cfg.wd / 2, scale=0.5)
        feats = [torch.relu(torch.addmm(init.b1.to(CPU, DT), s.x.to(CPU, DT), init.W.to(CPU, DT).T))
                 for s in sets]
        return Problem(Dense(feats[0]), Dense(feats[1]), y_tr, y_te, obj, "err", None, score,
                       {"form": "primal on the feature matrix", "n": len(y_tr), "p": cfg.m})
    trains_b = cfg.fc_bias == "trained"
    A, W0, b0 = init.A.to(CPU, DT), init.W.to(CPU, DT), init.b1.to(CPU, DT)
    ops, offsets = [], []
    for s in sets:
        x = s.x.to(CPU, DT)
        gate = (x @ W0.T + b0 > 0).to(CPU, DT)

        def model(w, *bias, x=x, gate=gate):
            lin = x @ w.T + (bias[0] if bias else 0.0)
            return (gate * lin) @ A.T

        shapes = [W0.shape] + ([b0.shape] if trains_b else [])
        ops.append(FuncLinear(model, shapes, len(x) * k))
        offsets.append(torch.zeros(len(x) * k, dtype=DT) if trains_b
                       else ((gate * b0) @ A.T).reshape(-1))
    # ½ mean_i ‖out_i − y_i‖² over n samples is k/2 · the mean over the n·k flattened outputs
    obj = Objective("squared", cfg.wd / 2, scale=k / 2)
    # the fixed part A(1{·} ⊙ b₁) of the outputs is an offset: the fit target is y minus it
    return Problem(ops[0], ops[1], y_tr.reshape(-1) - offsets[0], y_te.reshape(-1), obj, "err",
                   tuple(offsets), score, {"form": "matrix-free J v, Jᵀ u (torch.func)",
                                           "n": len(y_tr), "p": ops[0].p})


def _azl_score(cfg, sets):
    def score(pred, split):
        s = sets[0 if split == "train" else 1]
        out = pred.reshape(s.y.shape).float()
        return fit_numbers(out, s.y, s.f, s.g, cfg.alpha, cfg.beta)["err"]

    return score
