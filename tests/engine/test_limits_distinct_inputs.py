"""A tangent kernel on repeated training inputs is formed on the distinct ones (engine/limits/
rows.on_distinct_inputs): gfl-uniform-parity's 30 000² Gram was refused; its 2 048 distinct
inputs give the same features, so the NTK limit is computed, not refused."""

from __future__ import annotations

import torch

from engine.limits import path, rows, sources
from engine.limits.ops import Tangent
from engine.limits.problem import Objective, Refusal


def _parity_tangents(n: int, n_test: int, d: int = 5, units: int = 30, seed: int = 0):
    """GFL-style tangent operators (no bias) on points of {±1}^d drawn with repeats, and the
    labels of a 2-parity."""
    gen = torch.Generator().manual_seed(seed)
    w = torch.randn(units, d, generator=gen, dtype=torch.float64)
    a = torch.randn(units, generator=gen, dtype=torch.float64)
    ops, ys = [], []
    for size in (n, n_test):
        x = torch.randint(0, 2, (size, d), generator=gen).to(torch.float64) * 2 - 1
        pre = x @ w.T
        ops.append(Tangent(torch.relu(pre), (pre > 0).to(torch.float64) * a, x, bias=False))
        ys.append(x[:, 0] * x[:, 1])
    return ops, ys


def test_repeated_inputs_give_the_full_kernel_and_the_same_limit(monkeypatch):
    ops, (y_tr, y_te) = _parity_tangents(600, 200)
    obj = Objective("hinge", 0.0, tie_break=True)
    full = sources._tangent_problem(ops, y_tr, y_te, obj)  # n ≤ DIRECT_WIDTH: all 600 rows
    assert "distinct" not in full.notes["form"]
    # as at n = 30 000: neither the explicit features nor the n×n embedding, and matrix-free
    # refused (n·p above its bound)
    monkeypatch.setattr(sources, "DIRECT_WIDTH", 100)
    monkeypatch.setattr(sources, "MATRIX_FREE_NP", 1.0)
    rep = sources._tangent_problem(ops, y_tr, y_te, obj)
    assert not isinstance(rep, Refusal), rep
    assert "32 distinct of 600" in rep.notes["form"]

    def test_outputs(prob):
        res = path.to_zero(prob, lambda r: {})
        assert res["converged"], res["certificate"]
        return prob.test.mv(res["w"])

    want, got = test_outputs(full), test_outputs(rep)
    assert torch.allclose(got, want, atol=1e-4 * float(want.abs().max()))
    assert torch.equal(torch.sign(got), torch.sign(want))
    # solved through the 32 distinct rows: the 600 × p copy never built
    assert isinstance(rep.train, rows.Repeated) and rep.train._x is None
    u, w = torch.randn(600, dtype=torch.float64), torch.randn(rep.train.p, dtype=torch.float64)
    some = torch.tensor([5, 0, 599, 5])
    mv, rmv, take = rep.train.mv(w), rep.train.rmv(u), rep.train.take(some)
    assert rep.train._x is None
    phi = rep.train.x
    assert torch.allclose(mv, phi @ w) and torch.allclose(rmv, phi.T @ u)
    assert torch.equal(take, phi[some])
    k = sources.TangentDense(ops[0]).gram()
    assert rep.train.n == 600 and torch.allclose(phi @ phi.T, k, atol=1e-9 * float(k.max()))
    beta = torch.randn(600, dtype=torch.float64)  # w = Φᵀβ: the test rows see K_t β
    want = ops[0].gram(ops[1]) @ beta
    assert torch.allclose(rep.test.mv(phi.T @ beta), want, atol=1e-9 * float(want.abs().max()))


def test_inputs_mostly_distinct_are_not_merged(monkeypatch):
    ops, (y_tr, y_te) = _parity_tangents(600, 200, d=12)  # 4 096 points: few repeats
    monkeypatch.setattr(sources, "DIRECT_WIDTH", 100)
    monkeypatch.setattr(sources, "MATRIX_FREE_NP", 1.0)
    got = sources._tangent_problem(ops, y_tr, y_te, Objective("hinge", 0.0, tie_break=True))
    assert isinstance(got, Refusal)


def test_parts_on_the_distinct_inputs_and_the_grouping_handed_over():
    """The GFL tangent made on a sample's distinct points and repeated equals the one made on
    every row; the Dense built on repeated inputs carries its (x, y) groups, equal to those a
    projection of its rows finds (rows._find)."""
    from engine.limits.ops import Dense

    gen = torch.Generator().manual_seed(3)
    points = torch.randint(0, 2, (16, 4), generator=gen).float() * 2 - 1
    x = points[torch.randint(0, 16, (500,), generator=gen)]
    weights = {"w": torch.randn(12, 4, generator=gen), "b": torch.randn(12, generator=gen),
               "a": torch.randn(12, generator=gen)}
    net = type("Net", (), weights)()  # the three tensors _gfl_parts reads off a GFL network
    got, full = sources._gfl_tangent(net, x), Tangent(*sources._gfl_parts(net, x), x, bias=False)
    assert torch.equal(got.act, full.act) and torch.equal(got.slope, full.slope)
    keep, group = rows._distinct(x)
    y = torch.where(x[:, 0] * x[:, 1] > 0, 1.0, -1.0).double()
    phi = torch.randn(len(keep), 7, generator=gen, dtype=torch.float64)
    op = Dense(phi[group])
    rows._hand_over(op, y, group)
    handed, found = op._distinct[1], rows._find(Dense(phi[group]), y)
    assert torch.equal(handed.first, found.first) and torch.equal(handed.group, found.group)
    assert torch.equal(handed.count, found.count)
