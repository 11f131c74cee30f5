"""Repeated training rows merged (issue 36, Session 19: gfl-uniform-parity's 30 000 rows are
2 048 distinct points): the hinge Newton and the hard-margin NNLS on the distinct rows weighted
by their counts give the answer of the solve on every row — same steps, same w, same λ_max —
with the certificate taken on every row. Small n, no timing."""

from __future__ import annotations

import pytest
import torch

from engine.limits import hardmargin, hinge, rows
from engine.limits.ops import Dense
from engine.limits.problem import TOL, Objective

DT = torch.float64


def _repeated(n, p, distinct, seed, noise):
    """n rows drawn from `distinct` points of {±1}^p (labels by a noisy linear rule fixed per
    point), and one row differing from another by a rounding only."""
    gen = torch.Generator().manual_seed(seed)
    points = torch.randint(0, 2, (distinct, p), generator=gen).to(DT) * 2 - 1
    label = torch.sign(points[:, 0] + points[:, 1] + 0.5 * points[:, 2]
                       + noise * torch.randn(distinct, generator=gen, dtype=DT))
    pick = torch.randint(0, distinct, (n,), generator=gen)
    x, y = points[pick].clone(), label[pick].clone()
    x[7] = x[3]
    x[7, 0] = torch.nextafter(x[3, 0], torch.tensor(9.0, dtype=DT))  # apart by one ulp
    y[7] = y[3]
    return x, y


def _unmerged(monkeypatch):
    monkeypatch.setattr(rows, "WORTH", 0.0)


def test_distinct_rows_found_exactly_with_their_counts():
    x, y = _repeated(3000, 12, 60, seed=1, noise=0.0)
    merged = rows.distinct(Dense(x), y)
    assert merged is not None and merged.x.n == len(torch.unique(torch.cat([x, y[:, None]], 1),
                                                               dim=0))
    assert torch.equal(merged.x.x[merged.group], x) and torch.equal(merged.y[merged.group], y)
    assert int(merged.count.sum()) == 3000 and torch.equal(merged.first.sort().values,
                                                          merged.first)


@pytest.mark.parametrize("lam", [1e-2, 1e-5])
def test_newton_on_distinct_rows_equals_the_newton_on_every_row(lam, monkeypatch):
    x, y = _repeated(3000, 12, 60, seed=2, noise=1.0)
    obj = Objective("hinge", lam, tie_break=True)
    ours = hinge.solve(Dense(x), y, obj)
    assert ours["detail"].endswith("distinct of 3000 rows")  # old code: every row, no such note
    _unmerged(monkeypatch)
    theirs = hinge.solve(Dense(x), y, obj)
    assert "distinct" not in theirs["detail"]
    assert ours["converged"] and theirs["converged"]
    assert ours["iterations"] == theirs["iterations"]
    assert torch.allclose(ours["w"], theirs["w"], rtol=1e-7, atol=1e-9 * float(theirs["w"].norm()))
    # the certificate is the gap on every row: the common one of svm.gap_at with the Newton's α
    assert ours["certificate"] == pytest.approx(theirs["certificate"], rel=1e-4, abs=1e-12)
    assert ours["certificate"] <= TOL


def test_hard_margin_on_distinct_rows_equals_every_row(monkeypatch):
    x, y = _repeated(2000, 16, 80, seed=4, noise=0.0)
    op = Dense(x)
    ours = hardmargin.solve(op, y)
    _unmerged(monkeypatch)
    theirs = hardmargin.solve(Dense(x), y)
    assert ours["separable"] and theirs["separable"]
    assert torch.allclose(ours["w"], theirs["w"], rtol=1e-9, atol=1e-12)
    assert len(ours["alpha"]) == 2000
    assert torch.allclose(op.rmv(ours["alpha"] * y), ours["w"], rtol=1e-8, atol=1e-10)
    merged = rows.distinct(op, y)
    on = ours["alpha"] > 0  # a group's weight shared by its copies: every copy or none
    assert torch.equal(on, on[merged.first][merged.group])
    box = torch.ones(2000, dtype=DT) / 2000
    # the largest λ_max this w allows (old: the NNLS's weight on whichever copies it took)
    assert hardmargin.lam_max(ours["alpha"], box) >= hardmargin.lam_max(theirs["alpha"], box)


def test_exact_finish_on_distinct_rows_certified_on_every_row(monkeypatch):
    """The active-set finish runs on the distinct rows (their free block is not singular, as
    every row's is where copies share the margin) and its answer is held to the common
    certificate built from the margins on all 3 000 rows."""
    from engine.limits import svm

    x, y = _repeated(3000, 30, 100, seed=2, noise=1.0)
    obj = Objective("hinge", 1e-2, tie_break=True)
    ours = hinge.solve(Dense(x), y, obj)
    assert ours["detail"].endswith("finished by the active-set solve, on the 101 distinct of "
                                   "3000 rows")
    assert ours["certificate"] <= 1e-9
    _, cert = svm.certificate(Dense(x), y, obj, ours["w"], None)
    assert cert <= 1e-9
    _unmerged(monkeypatch)
    theirs = hinge.solve(Dense(x), y, obj)
    assert "finished" not in theirs["detail"] and ours["iterations"] < theirs["iterations"]
    assert float((ours["w"] - theirs["w"]).norm()) <= 1e-3 * float(theirs["w"].norm())


def test_first_path_point_by_the_kernel_dual_on_distinct_rows(monkeypatch):
    """The λ → 0 path's first point on a sample whose 3 000 rows are 61 distinct points of 40
    features: the whole sample is too tall for the kernel dual (n > 2p), its distinct rows are
    not; the dual on them, each row's box the sum of its copies', is the Newton's optimum on
    every row, certified there with its α spread over the copies; the next point's Newton
    starts from it."""
    from dataclasses import replace

    from engine.limits import kdual, path, svm
    from engine.limits.problem import Problem

    x, y = _repeated(3000, 40, 60, seed=5, noise=1.0)
    obj = Objective("hinge", 0.0, tie_break=True)
    prob = Problem(Dense(x), Dense(x[:50]), y, y[:50], obj)
    assert not kdual.fits(prob.train, obj) and kdual.fits(rows.distinct(prob.train, y).x, obj)
    at = replace(obj, lam=1e-2)
    ours = path._path_point(prob, 1e-2, None)
    assert ours["detail"].startswith("projected Newton on the kernel's dual")
    assert ours["detail"].endswith("on the 61 distinct of 3000 rows")
    assert len(ours["alpha"]) == 3000 and bool((ours["alpha"] <= 1 / 3000 + 1e-15).all())
    assert ours["converged"] and ours["certificate"] <= 1e-9  # taken on every row
    newton = hinge.solve(Dense(x), y, at)
    assert newton["converged"]
    ours_p = svm.primal_value(prob.train, y, at, ours["w"], None)
    assert ours_p <= svm.primal_value(prob.train, y, at, newton["w"], None) + 1e-12
    assert float((ours["w"] - newton["w"]).norm()) <= 1e-4 * float(newton["w"].norm())
    nxt = path._path_point(prob, 1e-4, ours)
    assert "started from the last path point's answer" in nxt["detail"] and nxt["converged"]
    assert path._path_point(prob, 1e-6, None)["detail"].startswith("Newton")  # below EARLY
    _unmerged(monkeypatch)  # no distinct rows: the Newton, as before
    assert path._path_point(Problem(Dense(x), Dense(x[:50]), y, y[:50], obj), 1e-2,
                            None)["detail"].startswith("Newton")
