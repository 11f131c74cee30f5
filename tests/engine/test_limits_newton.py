"""The hinge Newton's cost per step (issue 36, gfl-parity-blocks' λ → 0 path): one product of X
per Newton step, not one per line-search trial, and the active-set finish through G = diag(y)X
where p ≪ n (Q = G Gᵀ never formed), and the hard-margin NNLS before the path's points below
1e-5 — each with the same answer, held to scikit-learn's liblinear, to the formed Q and to the
Newton; small n, no timing."""

from __future__ import annotations

import torch
from sklearn.svm import LinearSVC

from engine.limits import _scores, activeset, hinge, path, svm
from engine.limits.ops import Dense, kernel_embedding
from engine.limits.problem import TOL, Objective, Problem


class _Counting(Dense):
    """Dense that counts its products X w."""

    calls = 0

    def mv(self, w):
        self.calls += 1
        return super().mv(w)


def _noisy(n, p, seed):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(n, p, generator=gen, dtype=torch.float64)
    y = torch.sign(x[:, 0] + 0.8 * torch.randn(n, generator=gen, dtype=torch.float64))
    return x, y


def test_newton_takes_one_product_per_step_and_matches_liblinear():
    x, y = _noisy(400, 20, seed=3)
    op, lam = _Counting(x), 1e-3
    obj = Objective("hinge", lam, tie_break=True)
    res = hinge.solve(op, y, obj)
    assert res["converged"]
    # per step: the direction's margins; per stage: its start and the gap (old: one per trial)
    assert op.calls <= res["iterations"] + 3 * len(hinge.MUS) + 2
    ref = LinearSVC(C=1 / (2 * lam * len(y)), loss="hinge", fit_intercept=False, dual=True,
                    tol=1e-10, max_iter=200_000).fit(x.numpy(), y.numpy())
    w_ref = torch.from_numpy(ref.coef_[0])
    ours = svm.primal_value(op, y, obj, res["w"], None)
    theirs = svm.primal_value(op, y, obj, w_ref, None)
    assert ours <= theirs * (1 + TOL)
    agree = (torch.sign(x @ res["w"]) == torch.sign(x @ w_ref)).double().mean()
    assert float(agree) >= 0.99


def test_active_set_through_g_equals_the_formed_q():
    x, y = _noisy(300, 12, seed=6)
    op, s = Dense(x), torch.ones(300, dtype=torch.float64)
    obj = Objective("hinge", 1e-2, tie_break=True)
    signed = activeset.Finish(op, y, s, obj).q
    assert isinstance(signed, activeset._Signed)  # p < n/2: Q is not formed
    q = x @ x.T * (y[:, None] * y[None, :])
    alpha = torch.rand(300, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    rows, cols = alpha > 0.7, alpha < 0.2
    assert torch.allclose(signed @ alpha, q @ alpha)
    assert torch.allclose(signed.block(rows, rows), q[rows][:, rows])
    assert torch.allclose(signed.times(rows, cols, alpha[cols]), q[rows][:, cols] @ alpha[cols])
    res = hinge.solve(op, y, obj)  # the finish through G lands on the exact point
    assert res["detail"].endswith("finished by the active-set solve")
    assert res["certificate"] <= 1e-9


def test_path_below_1e5_answered_by_the_hard_margin_nnls_near_the_margin():
    """A kernel embedding (p ≥ n/2: the path comes first) whose 1e-4 point leaves ≤ n/6 rows
    within the margin: the NNLS from those rows gives the max-margin readout, equal to the Newton's
    zero-loss solution at 1e-6 (the old answer)."""
    gen = torch.Generator().manual_seed(3)
    x = torch.rand(500, 2, generator=gen, dtype=torch.float64) * 2 - 1
    x = x[(x[:, 0] - 0.3 * x[:, 1]).abs() > 0.05][:400]
    y = torch.sign(x[:, 0] - 0.3 * x[:, 1])
    k = torch.exp(-torch.cdist(x, x[:300]) ** 2 / 0.5)
    train, test = kernel_embedding(k[:300], k[300:])
    assert 2 * (train.p + 1) >= 300
    prob = Problem(train, test, y[:300], y[300:], Objective("hinge", 0.0, tie_break=True))
    res = path.to_zero(prob, lambda r: _scores(prob, r))
    assert res["detail"].startswith("hard-margin SVM") and res["certificate"] <= 1e-9
    assert [p.get("same_as") for p in res["path"]] == [None, None, None, 1e-6]
    newton = hinge.solve(train, y[:300], Objective("hinge", 1e-6, tie_break=True))
    assert newton["converged"] and float((y[:300] * train.mv(newton["w"])).min()) >= 1 - 1e-6
    ours, theirs = (_scores(prob, r)["test_acc"] for r in (res, {**newton, "c": None}))
    assert abs(ours - theirs) <= 1e-3


def test_kept_hessian_multiplies_only_the_rows_that_changed():
    """hinge.Kept (Session 17b): after each change of the band it equals the Hessian formed
    afresh (with the intercept's border), having multiplied only the entering/leaving rows."""
    x, y = _noisy(600, 15, seed=8)
    gen = torch.Generator().manual_seed(2)
    for intercept in (False, True):
        kept = hinge.Kept(x, intercept)
        band = torch.rand(600, generator=gen, dtype=torch.float64) < 0.5
        used = 0
        for step in range(4):
            k = torch.where(band, 0.25, 0.0).to(torch.float64)
            before = kept.rows_used
            g = torch.randn(15 + int(intercept), generator=gen, dtype=torch.float64)
            d = kept.solve(k, 1e-3, g)
            xs = torch.cat([x, torch.ones(600, 1, dtype=torch.float64)], 1) if intercept else x
            ref = hinge._dense_solve(xs[band], k[band], 1e-3, g)
            assert torch.allclose(d, ref, rtol=1e-9, atol=1e-12)
            used = kept.rows_used - before
            flip = torch.randperm(600, generator=gen)[:20]  # 20 rows enter or leave the band
            band = band.clone()
            band[flip] = ~band[flip]
            if step:
                assert used == 20  # not the ≈ 300 rows of the band


def test_kept_hessian_rescaled_at_a_narrower_width():
    """Session 19: a new width scales every band row's weight s/(nμ) alike; where the band keeps
    its rows, h is the old one rescaled and no row is multiplied (old: the band afresh)."""
    x, y = _noisy(600, 15, seed=9)
    band = torch.rand(600, generator=torch.Generator().manual_seed(4), dtype=torch.float64) < 0.6
    kept = hinge.Kept(x, False)
    g = torch.ones(15, dtype=torch.float64)
    kept.solve(torch.where(band, 1.0 / 600, 0.0).to(torch.float64), 1e-3, g)
    before = kept.rows_used
    wide, narrow = band.clone(), band.clone()
    narrow[:10] = False  # ten rows leave the band
    k = torch.where(narrow, 1.0 / (600 * 0.3), 0.0).to(torch.float64)
    d = kept.solve(k, 1e-3, g)
    assert kept.rows_used - before == int((wide & ~narrow).sum())  # only the rows that left
    assert torch.allclose(d, hinge._dense_solve(x[narrow], k[narrow], 1e-3, g), rtol=1e-9)


def test_path_points_on_one_operator_equal_fresh_solves():
    """The formed Hessian left on the operator by one path point starts the next (it depends
    on X and the weights, not on λ): same steps and w as a solve on a fresh operator, and on
    nearly rank-one features (theory-parity's One Step: the same band at every width and point)
    fewer rows multiplied (old: no Hessian left on the operator)."""
    gen = torch.Generator().manual_seed(10)
    a = torch.rand(800, generator=gen, dtype=torch.float64) + 0.5
    v = torch.randn(30, generator=gen, dtype=torch.float64)
    x = a[:, None] * v[None, :] + 1e-7 * torch.randn(800, 30, generator=gen, dtype=torch.float64)
    y = torch.where(torch.rand(800, generator=gen, dtype=torch.float64) < 0.5, 1.0, -1.0)
    op, fresh_rows = Dense(x), 0
    for lam in (1e-2, 1e-4, 1e-6):
        obj = Objective("hinge", lam, tie_break=True)
        fresh_op = Dense(x)
        ours, fresh = hinge.solve(op, y.double(), obj), hinge.solve(fresh_op, y.double(), obj)
        assert ours["iterations"] == fresh["iterations"] and ours["converged"]
        assert torch.allclose(ours["w"], fresh["w"], rtol=1e-7, atol=1e-9)
        fresh_rows += fresh_op._kept[1].rows_used
    assert op._kept[1].rows_used < fresh_rows


def test_path_points_start_from_the_last_point_answer():
    """On the λ → 0 path each hinge point starts from the one before at the width it ended on
    (old: every point cold from w = 0, all twelve widths): the same certified answer in fewer
    Newton steps (theory-parity's RF: 164 → 82 steps over its four points)."""
    x, y = _noisy(3000, 20, seed=4)
    prob = Problem(Dense(x), Dense(x), y, y, Objective("hinge", 0.0, tie_break=True))
    ends = path._chain(prob, list(path.PATH), None)
    cold = {lam: hinge.solve(Dense(x), y, Objective("hinge", lam, tie_break=True))
            for lam in path.PATH}
    for got in list(ends.values())[1:]:
        assert "started from the last path point's answer" in got["detail"]
    assert all(got["converged"] and got["certificate"] <= TOL for got in ends.values())
    for lam, got in ends.items():  # both certified: the same w to the certificate's accuracy
        assert (got["w"] - cold[lam]["w"]).norm() <= 1e-2 * cold[lam]["w"].norm()
        assert _acc(x, y, got["w"]) == _acc(x, y, cold[lam]["w"])
    assert sum(g["iterations"] for g in ends.values()) < 0.7 * sum(
        c["iterations"] for c in cold.values())


def _acc(x, y, w) -> float:
    return float(((x @ w) * y > 0).double().mean())


def test_a_warm_start_far_from_the_answer_gives_up_at_its_first_stalled_width():
    """stall=True (the path's warm starts): a start far from the answer at the narrow widths
    stops, uncertified, after one width's NEWTON_STEPS — the caller starts cold (old: up to
    max_iter steps: gfl-parity-blocks' RF at 1e-4 spent 400 before its cold solve)."""
    x, y = _noisy(3000, 20, seed=4)
    far = 1e3 * torch.randn(20, generator=torch.Generator().manual_seed(5), dtype=torch.float64)
    obj, narrow = Objective("hinge", 1e-6, tie_break=True), hinge.MUS[hinge.MUS.index(1e-4):]
    gave_up = hinge.solve(Dense(x), y, obj, start=far, mus=narrow, stall=True)
    assert not gave_up["converged"] and gave_up["iterations"] == hinge.NEWTON_STEPS
    assert hinge.solve(Dense(x), y, obj, start=far, mus=narrow)["iterations"] > hinge.NEWTON_STEPS
