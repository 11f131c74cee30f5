"""Which problem a limit solves, and the ridge path beside it.

A readout trained with its own decay (the paper schedule's λ, AZL's weight decay) has that
decay as its problem. One trained without decay (GFL, FCB, the theory and standard schedules)
converges to the λ → 0 end of the regularised path: for the hinge (and, in direction, the
logistic loss) the max-margin solution where the features separate the sample, else the
smallest λ of the path; for the squared loss the minimum-norm least-squares fit. Its path
(λ = 1e-2, 1e-4, 1e-6, 1e-8, the test value at each) is kept in the report and drawn on
the pages."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import torch

from . import dualset, hardmargin, hinge, kdual, kernelsq, logistic, logpath, rows, smooth, svm
from .ops import DT, Dense, Gram
from .problem import TOL, Problem

PATH = (1e-2, 1e-4, 1e-6, 1e-8)  # each a full solve: four points keep the path in budget
EARLY = 1e-5  # the path points below: after one above, the hard-margin NNLS is tried first
NEAR = 6  # … where at most n/NEAR rows lie within the margin (its cost grows as their cube)
HARD = (1e-9, 1e-10, 1e-11, 1e-12)  # below the path, tried only when an LP says "separable"
WARM_MUS = hinge.MUS[hinge.MUS.index(1e-2):]  # from a trained readout: the wide widths skipped
LP_CELLS = 2e7  # the separability LP is built on at most n·p explicit cells
NARROW = 20  # own decay on explicit features with n ≥ NARROW·(p + 1): the primal Newton first


def solve_at(prob: Problem, lam: float, last: dict | None = None) -> dict:
    """The readout at ridge lam by the well-kept solver where it fits, certified (last: the
    previous path point's answer, the start of the logistic and the hinge Newton)."""
    obj = replace(prob.objective, lam=lam)
    if obj.loss == "hinge":
        res = newton = None
        if _primal_first(prob, obj):  # libsvm only where the Newton does not certify
            newton = _certified(prob, obj, _newton(prob, obj))
            if newton["converged"]:
                newton["detail"] += " (p ≪ n: the primal Newton before libsvm)"
                return newton
        elif _own_start(prob, obj) and dualset.fits(prob.train, obj, prob.start):
            dual = dualset.solve(prob.train, prob.y_train, obj, prob.start)
            dual = dual and _certified(prob, obj, dual)
            if dual and dual["converged"]:  # else libsvm, as before
                return dual
        if svm.fits(prob.train, obj):
            res = _certified(prob, obj, svm.libsvm(prob.train, prob.y_train, obj))
        if isinstance(prob.train, Gram):  # the kernel form: libsvm's is the only solve
            return res
        if res is None or not res["converged"]:  # beyond libsvm, or not certified by it
            # the Newton's answer, solved once: the p ≪ n attempt's where it was made
            own = newton or _certified(prob, obj, _newton(prob, obj, last))
            own["detail"] += (" (no intercept: libsvm's mirrored form is slower)"
                              if not obj.intercept else " (libsvm's answer: gap "
                              f"{res['certificate']:.0e})" if res else " (Gram > 1 GiB)")
            res = own if res is None or own["certificate"] < res["certificate"] else res
        return res
    if obj.loss == "logistic" and logistic.fits(prob.train, obj):
        return logistic.solve(prob.train, prob.y_train, obj, last and last["w"])
    if kernelsq.applies(prob.train, obj):  # n < p: (K + nλI) β = y, w = Xᵀβ
        return kernelsq.ridge(prob.train, prob.y_train, obj)
    return (smooth.ridge if obj.loss == "squared" else smooth.logistic)(
        prob.train, prob.y_train, obj)


def _primal_first(prob: Problem, obj) -> bool:
    """Whether the primal Newton goes before libsvm: the run's own decay on explicit features
    with p ≪ n (quick-parity's RF, One and Two Step, 10 000 × 100–200: 0.1–0.3 s warm against
    libsvm's 0.7–1.6 s on the 10 000² Gram, plus 0.7–1.5 s importing scikit-learn)."""
    return (isinstance(prob.train, Dense) and not obj.tie_break
            and obj.lam == prob.objective.lam and NARROW * (prob.train.p + 1) <= prob.train.n)


def _newton(prob: Problem, obj, last: dict | None = None) -> dict:
    """The engine's hinge Newton; at the run's own decay started from the run's readout at the
    narrow widths (WARM_MUS: paper-parity's Two Step 124 → 40 s, same answer); on the λ → 0
    path from the last point's answer at the width that point ended on (theory-parity's RF,
    One and Two Step 30 → 14 s; gfl-xor's NTK ends at μ = 0.3, whose narrow widths alone
    stalled); cold again if that does not certify."""
    if _own_start(prob, obj):
        warm, mus, said = prob.start, WARM_MUS, "the run's own readout"
    else:
        warm, mus, said = _flat(last), _widths_after(last), "the last path point's answer"
    if warm is not None:
        res = hinge.solve(prob.train, prob.y_train, obj, start=warm, mus=mus, stall=True)
        if res["converged"]:
            res["detail"] += f", started from {said}"
            return res
    return hinge.solve(prob.train, prob.y_train, obj)


def _flat(res: dict | None):
    """A hinge answer as a flat (w, [c]) start (None without one, or not the Newton's or the
    kernel dual's kind)."""
    if res is None or (res.get("mu") is None and res.get("free") is None):
        return None  # (a kernel dual's answer, exact, marked by its free rows' count)
    c = res.get("c")
    return res["w"] if c is None else torch.cat([res["w"], torch.as_tensor(c, dtype=DT).reshape(1)])


def _widths_after(res: dict | None) -> tuple:
    """The smoothing widths from the one res ended on, or from WARM_MUS's first where that is
    wider (theory-parity's Two Step at 1e-8 from 1e-6's μ = 1e-3: 152 steps, from 1e-2: 47)."""
    mu = max(res.get("mu") or 0.0, WARM_MUS[0]) if res else WARM_MUS[0]
    return hinge.MUS[hinge.MUS.index(mu):] if mu in hinge.MUS else WARM_MUS


def _own_start(prob: Problem, obj) -> bool:
    """Whether the problem holds the run's own readout and obj is the run's own decay."""
    return prob.start is not None and not obj.tie_break and obj.lam == prob.objective.lam


def _certified(prob: Problem, obj, res: dict) -> dict:
    """res with a duality-gap certificate of its (w, c): first the solver's own dual point (the
    Newton's α off the smoothed hinge, libsvm's α), then — only where that leaves the gap above
    TOL — the α built from the margins alone (engine/limits/svm.certificate; its support fit
    took 370 of 436 s on gfl-xor's NTK). Each is a valid bound on the same P(w, c): the tighter
    one is kept."""
    op, y = prob.train, prob.y_train
    value = svm.primal_value(op, y, obj, res["w"], res["c"])
    cert, kind = res.get("certificate", float("inf")), "the solver's own α"
    if res.get("alpha") is not None:
        cert = min(cert, svm.gap_at(op, y, obj, value, res["alpha"]))
    if cert > TOL and not isinstance(op, Gram):  # (the margin-built α needs X's rows)
        built = svm.certificate(op, y, obj, res["w"], res["c"])[1]
        cert, kind = min((cert, kind), (built, "α from the margins"))
    return {**res, "certificate": cert, "converged": cert <= TOL, "objective_value": value,
            "certificate_kind": f"relative duality gap ({kind})"}


def own(prob: Problem) -> dict:
    """The method's own decay (or the ridge the user chose): one solve."""
    res = solve_at(prob, prob.objective.lam)
    res["limit_kind"] = "chosen ridge" if prob.objective.tie_break else "own decay"
    return res


def to_zero(prob: Problem, score) -> dict:
    """The λ → 0 limit with its path; score(res) → {test_…, train_…} of a solution."""
    loss = prob.objective.loss
    if loss == "squared":
        ends = [solve_at(prob, lam) for lam in PATH]
        path = [_point(lam, res, score) for lam, res in zip(PATH, ends, strict=True)]
        res = _least_squares(prob, ends[-1])
        return {**res, "path": path, "limit_kind": "λ → 0: minimum-norm least squares"}
    # the logistic path's direction as λ → 0 is the hinge's max-margin one: solved as the hinge
    # (the logistic fit at λ = 1e-11 was still 1.5 test points from it on a small fcb-xor)
    last = hard = None
    if loss == "logistic":  # each point warm-starts the next (the logistic Newton)
        path, last, hard = logpath.walk(prob, PATH, solve_at,
                                        lambda lam, res: _point(lam, res, score))
    hinge_prob = replace(prob, objective=replace(prob.objective, loss="hinge"))
    margin, hinge_path, separable = _max_margin(hinge_prob, score, last and last["w"], hard)
    path = path if loss == "logistic" else hinge_path
    if separable:
        return {**margin, "path": path, "separable": True, "limit_kind":
                "λ → 0: max-margin" + (" (the logistic path's direction)" if loss == "logistic"
                                        else "")}
    end = margin if loss == "hinge" else last
    return {**end, "path": path, "separable": separable, "ridge": PATH[-1],
            "limit_kind": "λ → 0: end of the ridge path (the sample is not separable)"
            if separable is False else "λ → 0: end of the ridge path"}


def _point(lam: float, res: dict, score) -> dict:
    return {"ridge": lam, **score(res), "certificate": res["certificate"],
            "converged": res["converged"]}


def _max_margin(prob: Problem, score, alone, hard: dict | None = None
                ) -> tuple[dict | None, list, bool | None]:
    """The hinge's λ → 0 answer; alone (the logistic path's end w, its path drawn apart): the
    hard-margin SVM only (hard, where the logistic path found it; else the NNLS started from
    the rows of least margin under that w), without the hinge's path points, where it applies."""
    if alone is not None and hardmargin.fits(prob.train, prob.objective):
        hard = hard or hardmargin.solve(prob.train, prob.y_train, torch.argsort(
            prob.y_train.to(DT) * prob.train.mv(alone)))
        if hard is not None and not hard["separable"]:
            return None, [], False
        if hard is not None:
            hard["lam_max"] = hardmargin.lam_max(hard["alpha"], svm._box(
                prob.y_train.to(DT), prob.objective))
            return _hard_result(prob, hard, min(hard["lam_max"], PATH[-1])), [], True
    return _hinge_path(prob, score)


def _hinge_path(prob: Problem, score) -> tuple[dict, list, bool | None]:
    """The max-margin solution and the path. Where the hard-margin NNLS is small (p + 1 < n/2
    rows in [Gᵀ; 1ᵀ]: 0.1 s on gfl-xor's RF and gfl-linear's NTK, whose path search took 3 and
    15 s) it comes first and decides separability; else the path is searched first and the
    NNLS (5–10 s for gfl-xor's NTK's 1127 support vectors, 32 s for gfl-parity-blocks' 3954 ×
    4000 NTK, where the Newton's three points take 2–10 s) runs only if no path point
    separates with a certificate."""
    op, obj = prob.train, prob.objective
    if hardmargin.fits(op, obj) and 2 * (op.p + 1) < op.n:
        hard = hardmargin.solve(op, prob.y_train)
        if hard is not None:
            return _from_hard(prob, hard, score, [])
    path, res = [], None
    for lam in PATH:
        hard = _hard_near(prob, res["w"]) if lam < EARLY and res is not None else None
        if hard is not None:  # (rows a convex combination of which is 0: not separable either)
            return _from_hard(prob, hard, score, path, res)
        res = {**_path_point(prob, lam, res), "ridge": lam}
        path.append(_point(lam, res, score))
        if svm.zero_loss(op, prob.y_train, res["w"], res["c"]):
            if not res["converged"] and hardmargin.fits(op, obj):  # gfl-xor's RF at n = 400:
                path.pop()  # margins ≥ 0.99 but a gap of 2e-3: the exact solve decides
                break
            path += [{**path[-1], "ridge": small, "same_as": lam}
                     for small in PATH[len(path):]]
            return res, path, True
    hard = None
    if hardmargin.fits(op, obj):  # started from the rows of least margin at the path's end
        order = torch.argsort(prob.y_train.to(DT) * op.mv(res["w"]))
        hard = hardmargin.solve(op, prob.y_train, order)
    if hard is not None:
        return _from_hard(prob, hard, score, path, res)
    separable = separable_lp(prob)
    if separable:
        for lam in HARD:
            res = {**solve_at(prob, lam), "ridge": lam}
            if svm.zero_loss(op, prob.y_train, res["w"], res["c"]):
                return res, path, True
    return res, path, separable


def _path_point(prob: Problem, lam: float, last: dict | None) -> dict:
    """A λ → 0 path point: by the kernel dual warm from the last point's α where the rule picks
    it (kdual.quick) and it certifies, else by solve_at."""
    obj = replace(prob.objective, lam=lam)
    if kdual.quick(prob.train, obj, EARLY, last):
        got = kdual.solve(prob.train, prob.y_train, obj, last and last.get("alpha"))
        if got["w"] is not None:
            got = _certified(prob, obj, got)
            if got["converged"]:
                return got
    merged = _merged_dual(prob, obj) if last is None else None
    return merged or solve_at(prob, lam, last)


def _merged_dual(prob: Problem, obj) -> dict | None:
    """The path's first point by the kernel dual on the sample's distinct rows, where they fit
    it and the whole sample does not (gfl-uniform-parity's 30 000 rows, 2 048 distinct: the NTK
    1.0 → 0.5 s and RF 1.0 → 0.7 s with the distinct rows' Gram; One Step where its rows are
    2 048, seeds 2–4, exact where the Newton stopped at gaps up to 9e-5), certified on every
    row; None where it does not apply (kdual.fits also asks for the hinge) or certify."""
    op, y = prob.train, prob.y_train
    if kdual.fits(op, obj) or obj.lam < EARLY:
        return None
    merged = rows.distinct(op, y)
    if merged is None or not kdual.fits(merged.x, obj):
        return None
    box = merged.weights(svm._box(y.to(DT), obj) * op.n) / len(merged.y)  # copies' sums
    got = kdual.solve(merged.x, merged.y, obj, box=box)
    if got["w"] is None:
        return None
    got["alpha"] = merged.spread(got["alpha"])
    got["detail"] += f", on the {len(merged.y)} distinct of {op.n} rows"
    got = _certified(prob, obj, got)
    return got if got["converged"] else None


def _hard_near(prob: Problem, w: torch.Tensor) -> dict | None:
    """The NNLS on twice the rows on or inside the margin under w, then constraint generation,
    where those rows are at most n/NEAR: gfl-parity-blocks' NTK from λ = 1e-4's 501 of 4000,
    4.2 s (606 support vectors) against 8.2 s for the Newton at 1e-6; not on gfl-xor's NTK
    (1127 support vectors of 2000: 24.8 s against the Newton's ≈ 2 s). None: not tried."""
    if not hardmargin.fits(prob.train, prob.objective):
        return None
    m = prob.y_train.to(DT) * prob.train.mv(w)
    near = int((m <= 1.0 + 1e-9).sum())
    if NEAR * near > len(m):
        return None
    return hardmargin.solve(prob.train, prob.y_train, torch.argsort(m), max(2 * near, 1))


def _from_hard(prob: Problem, hard: dict, score, path: list, last: dict | None = None
               ) -> tuple[dict, list, bool]:
    """The limit and the path points not yet in path from the NNLS's answer: not separable, the
    path's end; separable, the hard-margin w, which is every point with λ ≤ λ_max."""
    done = {point["ridge"] for point in path}
    if not hard["separable"]:
        ends = _chain(prob, [lam for lam in PATH if lam not in done], last)
        path = path + [_point(lam, res, score) for lam, res in ends.items()]
        return ends.get(PATH[-1], last), path, False
    top = hard["lam_max"] = hardmargin.lam_max(hard["alpha"], svm._box(
        prob.y_train.to(DT), prob.objective))
    below = [lam for lam in PATH if lam <= top and lam not in done]
    res = _hard_result(prob, hard, below[0] if below else top)
    ends = _chain(prob, [lam for lam in PATH if lam > top and lam not in done], last)
    path = path + [_point(lam, got, score) for lam, got in ends.items()]
    path += [_point(lam, {**res, **_hard_result(prob, hard, lam, cert_only=True)}, score)
             | ({"same_as": below[0]} if lam != below[0] else {}) for lam in below]
    return res, path, True


def _chain(prob: Problem, lams: list, last: dict | None) -> dict:
    """The path points lams, in order, each started from the one before (the first from last):
    a point's answer is near the next one's (theory-parity's RF: the same 26 000 rows inside
    the margin at 1e-4, 1e-6 and 1e-8)."""
    ends = {}
    for lam in lams:
        last = ends[lam] = {**_path_point(prob, lam, last), "ridge": lam}
    return ends


def _hard_result(prob: Problem, hard: dict, lam: float, cert_only: bool = False) -> dict:
    """The hard-margin w as the hinge solution at lam ≤ λ_max, certified there."""
    value, cert = hardmargin.certify(prob.train, prob.y_train, prob.objective, hard, lam)
    out = {"certificate": cert, "converged": cert <= TOL, "objective_value": value}
    if cert_only:
        return out
    return {**out, "w": hard["w"], "c": None, "ridge": lam, "iterations": hard["iterations"],
            "certificate_kind": "relative duality gap (the hard-margin α, scaled by 2λ)",
            "detail": "hard-margin SVM by " + hard.get("method", "least-distance programming "
                      "(Lawson–Hanson NNLS, scipy)") + f", the hinge optimum for every λ ≤ "
                      f"{hard['lam_max']:.2g}"}


def separable_lp(prob: Problem) -> bool | None:
    """Whether some (w, c) has y_i(⟨w, x_i⟩ + c) ≥ 1 for every training row (an LP, HiGHS);
    None where the explicit features are too large to build it."""
    op = prob.train
    if not isinstance(op, Dense) or op.n * op.p > LP_CELLS:
        return None
    y = prob.y_train.to(DT).numpy()
    a = op.x.numpy() * y[:, None]
    if prob.objective.intercept:
        a = np.hstack([a, y[:, None]])
    from scipy.optimize import linprog  # here: `import engine.cli` stays free of scipy

    got = linprog(np.zeros(a.shape[1]), A_ub=-a, b_ub=-np.ones(len(y)),
                  bounds=(None, None), method="highs")
    return {0: True, 2: False}.get(got.status)


def _least_squares(prob: Problem, end: dict) -> dict:
    """The minimum-norm least-squares fit (λ → 0 of ridge), by an SVD-based solve (in kernel
    form where n < p); beyond explicit features the path's end (already solved: not twice)."""
    op, y, obj = prob.train, prob.y_train.to(DT), prob.objective
    if kernelsq.applies(op, obj):  # wider than the sample: K's pivoted Cholesky, not gelsd
        return {**kernelsq.min_norm(op, y, obj), "ridge": 0.0}
    if not isinstance(op, Dense):
        return {**end, "ridge": PATH[-1]}
    x = op.x - op.x.mean(0) if obj.intercept else op.x
    target = y - y.mean(0) if obj.intercept else y
    w = torch.linalg.lstsq(x, target.reshape(len(y), -1), driver="gelsd").solution
    w = w.reshape((x.shape[1],) + tuple(y.shape[1:]))
    grad = x.T @ (x @ w - target)
    cert = float(grad.norm() / (x.T @ target).norm().clamp_min(1e-300))
    c = (y - op.mv(w)).mean(0) if obj.intercept else None
    return {"w": w, "c": c, "certificate": cert, "certificate_kind": "relative gradient norm",
            "iterations": 1, "converged": cert <= TOL, "ridge": 0.0,
            "detail": "minimum-norm least squares (LAPACK gelsd)"}
