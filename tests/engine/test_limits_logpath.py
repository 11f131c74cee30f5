"""The logistic λ → 0 path (engine/limits/logpath.py): the hard-margin SVM reached by active-set
steps from a path point's dual equals the NNLS's, and the last point started along it is the
same certified optimum as the plain warm start, in fewer Newton steps; small n, no timing."""

from __future__ import annotations

from dataclasses import replace

import torch

from engine.compare import Comparison
from engine.limits import activeset, hardmargin, logistic, logpath, path, sources
from engine.limits.ops import DT, Dense
from engine.limits.problem import TOL, Objective, Problem
from engine.presets import preset_config


def _separable(n=60, p=80, seed=4):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(n, p, generator=gen, dtype=DT)
    y = torch.sign(x[:, 0] - 0.7 * x[:, 1])
    return Problem(Dense(x), Dense(x), y, y, Objective("logistic", 0.0, tie_break=True))


def _logistic_path(prob, lams):
    w = None
    for lam in lams:
        w = logistic.solve(prob.train, prob.y_train, replace(prob.objective, lam=lam), w)["w"]
    return w


def test_hard_margin_by_active_set_steps_equals_the_nnls():
    prob = _separable()
    prob.train.gram()  # formed, as the logistic Newton's Woodbury solves leave it
    w = _logistic_path(prob, (1e-2, 1e-4))
    hard = logpath.hard_from(prob, w, 1e-4)
    nnls = hardmargin.solve(prob.train, prob.y_train)
    assert hard is not None and nnls["separable"]
    assert torch.allclose(hard["w"], nnls["w"], rtol=1e-8, atol=1e-10)
    assert abs(hard["min_margin"] - 1.0) <= activeset.HARD_KKT
    assert hard["iterations"] == int((nnls["alpha"] > 0).sum())  # its support vectors


def test_hard_margin_steps_give_up_where_the_sample_cannot_be_split():
    prob = _separable()
    y = prob.y_train.clone()
    x = torch.cat([prob.train.x, prob.train.x[:1]])  # a row repeated with the other label
    y = torch.cat([y, -y[:1]])
    bad = Problem(Dense(x), Dense(x), y, y, prob.objective)
    bad.train.gram()
    w = _logistic_path(bad, (1e-2, 1e-4))
    assert logpath.hard_from(bad, w, 1e-4) is None  # left to the NNLS, which says why
    assert hardmargin.solve(bad.train, y)["separable"] is False
    assert logpath.hard_from(prob, w[:80], 1e-4) is None  # the Gram not formed: not tried


def test_fcb_ntk_path_end_started_along_the_max_margin_direction():
    cfg = preset_config("fcb-xor").replace(n=500, n_test=500, T=4)
    comp = Comparison(cfg, ("ntk",), device="cpu")
    comp.run_all()
    prob = sources.problem_of(comp.runs["ntk"])
    points, last, hard = logpath.walk(prob, path.PATH, path.solve_at,
                                         lambda lam, res: {"ridge": lam})
    assert hard is not None and [p["ridge"] for p in points] == list(path.PATH)
    plain = logistic.solve(prob.train, prob.y_train, replace(prob.objective, lam=path.PATH[-1]),
                           _logistic_path(prob, path.PATH[:-1]))
    assert last["converged"] and last["certificate"] <= TOL / 100
    # the same optimum to the certificate's accuracy (at λ = 1e-8 the objective is flat along
    # the kernel's small eigenvectors: w agrees to 1e-4, the objective to 1e-7)
    y, lam = prob.y_train.to(DT), path.PATH[-1]
    here, there = (logistic._value(prob.train, y, lam, r["w"])[0] for r in (last, plain))
    assert abs(here - there) <= 1e-6 * there
    assert float((last["w"] - plain["w"]).norm()) <= 1e-3 * float(plain["w"].norm())
    assert last["iterations"] < plain["iterations"]
    nnls = hardmargin.solve(prob.train, prob.y_train)
    assert torch.allclose(hard["w"], nnls["w"], rtol=1e-7, atol=1e-9)
