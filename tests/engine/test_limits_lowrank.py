"""The tangent kernel of small rank embedded by its pivoted Cholesky taken a column at a time
(engine/limits/lowrank.py): the same inner products as the n×n Gram's embedding, train and
test, without the Gram; a full-rank kernel gives up; gfl-linear's NTK limit unchanged."""

from __future__ import annotations

import torch

from engine.compare import Comparison
from engine.limits import _solve, lowrank, sources
from engine.limits.ops import RANK_FLOOR, Tangent
from engine.presets import preset_config

DT = torch.float64


def _tangent(n: int, units: int, r: int, seed: int) -> Tangent:
    g = torch.Generator().manual_seed(seed)
    return Tangent(torch.randn(n, units, generator=g, dtype=DT),
                   torch.randn(n, units, generator=g, dtype=DT),
                   torch.randn(n, r, generator=g, dtype=DT), bias=True)


def test_low_rank_embedding_keeps_the_kernel_without_forming_it():
    full = _tangent(300, 3, 4, seed=0)  # rank ≤ 3 + 3·5 = 18 of 300
    tr, te = full.rows(slice(0, 200)), full.rows(slice(200, 300))
    got = lowrank.embedding(tr, te)
    assert got is not None
    phi, test = got
    assert phi.p <= 18
    k, kt = tr.gram(tr), tr.gram(te)
    assert torch.allclose(phi.x @ phi.x.T, k, rtol=0, atol=1e-9 * float(k.abs().max()))
    w = torch.randn(phi.p, generator=torch.Generator().manual_seed(1), dtype=DT)
    beta = torch.linalg.lstsq(phi.x.T, w[:, None]).solution[:, 0]  # w = Φᵀβ in the span
    assert torch.allclose(test.mv(w), kt @ beta, atol=1e-8 * float(kt.abs().max()))
    assert torch.allclose(tr.diagonal(), k.diagonal())


def test_full_rank_kernel_gives_up():
    full = _tangent(400, 40, 10, seed=2)  # rank 400 > MOST
    assert lowrank.embedding(full.rows(slice(0, 300)), full.rows(slice(300, 400))) is None


def test_gfl_linear_ntk_limit_by_the_low_rank_embedding_equals_the_gram_route(monkeypatch):
    cfg = preset_config("gfl-linear").replace(n=600, n_test=600, T=5)
    comp = Comparison(cfg, ("ntk",), device="cpu")
    comp.run_all()
    prob = sources.problem_of(comp.runs["ntk"])
    assert "rank" in prob.notes["form"]
    small = _solve(prob)
    monkeypatch.setattr(lowrank, "MOST", 0)  # the n×n Gram's embedding, as before
    prob = sources.problem_of(comp.runs["ntk"])
    assert "rank" not in prob.notes["form"]
    gram = _solve(prob)
    assert small["test_acc"] == gram["test_acc"] and small["limit_kind"] == gram["limit_kind"]
    assert [p["test_acc"] for p in small["path"]] == [p["test_acc"] for p in gram["path"]]


def test_full_rank_is_seen_on_a_spread_block_before_any_column():
    full = _tangent(400, 40, 10, seed=2)
    floor = RANK_FLOOR * float(full.diagonal().max())
    assert lowrank._rank_passes(full, lowrank.MOST, floor)
    assert not lowrank._rank_passes(_tangent(400, 3, 4, seed=0), lowrank.MOST, floor)
