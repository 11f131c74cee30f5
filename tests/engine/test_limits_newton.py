"""The hinge Newton's cost per step (issue 36, gfl-parity-blocks' λ → 0 path): one product of X
per Newton step, not one per line-search trial, and the active-set finish through G = diag(y)X
where p ≪ n (Q = G Gᵀ never formed) — each with the same answer, held to scikit-learn's
liblinear and to the formed Q; small n, no timing."""

from __future__ import annotations

import torch
from sklearn.svm import LinearSVC

from engine.limits import activeset, hinge, svm
from engine.limits.ops import Dense
from engine.limits.problem import TOL, Objective


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
