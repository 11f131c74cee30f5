"""The hinge readout by a well-kept solver (libsvm: scikit-learn's SVC on the precomputed Gram),
and a certificate any solver's answer is held to: the primal P(w, c) at its weights against the
dual D(α) at a dual-feasible α built from its margins alone (no solver internals).

min mean s_i max(0, 1 − y_i f_i) + λ‖w‖² (+ c) is libsvm's ½‖w‖² + C Σ s_i h_i with C = 1/(2λn).
libsvm always fits an intercept: a readout without one is solved on the sample doubled with its
mirror (−x_i, −y_i) and C = 1/(4λn), whose optimum has intercept 0 by symmetry (the objective is
the same at ±c, and convex), so its w is the readout's."""

from __future__ import annotations

import warnings

import numpy as np
import torch

from .ops import DT, Dense, Gram
from .problem import TOL, Objective

GRAM_BYTES = 2**30  # libsvm's Gram (n×n, 2n×2n without an intercept) is formed up to 1 GiB
WINDOW = 1e-2  # rows with |margin − 1| ≤ this: the support whose α the certificate fits
SVM_TOL = 1e-7  # libsvm's stopping tolerance (its default 1e-3 leaves gaps near 1e-3)


def gram_rows(n: int, intercept: bool) -> int:
    """Rows of the Gram libsvm is given: n, or 2n for the mirrored sample."""
    return n if intercept else 2 * n


def fits(op, obj: Objective) -> bool:
    """Whether libsvm solves this problem: an intercept (its own form; the mirrored form of a
    readout without one took > 9 min on gfl-xor's RF at λ = 1e-4 under load, where the engine's
    Newton took 20 s) and a Gram within GRAM_BYTES (explicit features only)."""
    rows = gram_rows(op.n, obj.intercept)
    return obj.intercept and isinstance(op, Dense | Gram) and rows * rows * 8 <= GRAM_BYTES


def libsvm(op, y: torch.Tensor, obj: Objective) -> dict:
    """(w, c) of the hinge readout from SVC(kernel='precomputed'), certified by `certificate`
    (on a Gram operator w is β, the coefficients of the training rows)."""
    yn, n, kernel = y.to(DT).numpy(), len(y), isinstance(op, Gram)
    gram = op.k.numpy() if kernel else op.gram().numpy()  # shared with the op (not formed twice)
    if obj.intercept:
        labels, c_svm = yn, 1.0 / (2 * obj.lam * n)
    else:
        labels, c_svm = np.concatenate([yn, -yn]), 1.0 / (4 * obj.lam * n)
        gram = np.block([[gram, -gram], [-gram, gram]])
    weights = None
    if obj.class_weights is not None:
        weights = {1.0: obj.class_weights[0], -1.0: obj.class_weights[1]}
    from sklearn.svm import SVC  # here: `import engine.cli` stays free of scikit-learn

    clf = SVC(kernel="precomputed", C=c_svm, tol=SVM_TOL, class_weight=weights,
              cache_size=2000, max_iter=-1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(gram, labels)
    del gram
    beta = torch.zeros(len(labels), dtype=DT)  # the dual coefficients α_i y_i, 0 off the support
    beta[torch.from_numpy(clf.support_)] = torch.from_numpy(clf.dual_coef_[0])
    beta = beta if obj.intercept else beta[:n] - beta[n:]  # the mirrored row −x_i: coefficient −1
    w = beta if kernel else op.rmv(beta)  # on a Gram operator w is β itself
    c = torch.tensor(float(clf.intercept_[0]), dtype=DT) if obj.intercept else None
    alpha = None
    if obj.intercept:  # libsvm's α ≤ C s_i is 1/(2λ) times ours (α ≤ s_i/n): its own dual point
        alpha = torch.zeros(n, dtype=DT)
        alpha[torch.from_numpy(clf.support_)] = torch.from_numpy(
            np.abs(clf.dual_coef_[0])) * 2 * obj.lam
    return {"w": w, "c": c, "alpha": alpha, "iterations": int(np.sum(clf.n_iter_)),
            "detail": f"libsvm (scikit-learn SVC, precomputed {len(labels)}×{len(labels)} Gram"
                      + ("" if obj.intercept else ", sample mirrored: no intercept") + ")"}


def certificate(op, y: torch.Tensor, obj: Objective, w: torch.Tensor, c) -> tuple[float, float]:
    """(P, relative gap (P − D(α))/P) for any (w, c). α is built from the margins: s_i/n below
    1 − WINDOW, 0 above 1 + WINDOW, and on the rows between (the margin's support) the
    bounded least-squares fit of the stationarity (`_support_dual`); then made feasible and
    scaled (`gap_at`). Every such α is dual-feasible, so D(α) ≤ P* ≤ P(w, c): the gap bounds the
    distance to the optimum whichever solver gave w."""
    y = y.to(DT)
    box = _box(y, obj)
    m = y * (op.mv(w) + (c if c is not None else 0.0))
    primal = primal_value(op, y, obj, w, c)
    alpha = torch.where(m < 1.0 - WINDOW, box, torch.zeros_like(box))
    on = ((m - 1.0).abs() <= WINDOW).nonzero().flatten()
    if len(on):
        alpha[on] = _support_dual(op, y, alpha, on, box[on], 2 * obj.lam * w, obj.intercept)
    return primal, gap_at(op, y, obj, primal, alpha)


def _box(y: torch.Tensor, obj: Objective) -> torch.Tensor:
    """The dual's upper bounds s_i/n."""
    s = obj.weights(y)
    return (torch.ones_like(y) if s is None else s) / len(y)


def primal_value(op, y: torch.Tensor, obj: Objective, w: torch.Tensor, c) -> float:
    """P(w, c) = mean s_i max(0, 1 − y_i f_i) + λ‖w‖²."""
    y = y.to(DT)
    m = y * (op.mv(w) + (c if c is not None else 0.0))
    return float((_box(y, obj) * (1.0 - m).clamp_min(0.0)).sum()) + obj.lam * _sq(op, w)


def _sq(op, w: torch.Tensor) -> float:
    """‖w‖² (on a Gram operator, βᵀKβ)."""
    return op.sq(w) if isinstance(op, Gram) else float(w @ w)


def gap_at(op, y: torch.Tensor, obj: Objective, primal: float, alpha: torch.Tensor) -> float:
    """(P − D(tα))/P for any α: clipped to the box 0 ≤ α ≤ s/n, with an intercept the heavier
    class scaled down so Σ α_i y_i = 0, then the t ≤ 1 maximising D(tα) — a dual-feasible point
    whichever solver's α it came from (libsvm's, the Newton's, or built from the margins)."""
    y = y.to(DT)
    alpha = torch.minimum(alpha.to(DT).clamp_min(0.0), _box(y, obj))
    if obj.intercept:
        alpha = _balance(alpha, y)
    lam = obj.lam
    uu, total = _sq(op, alpha * y) if isinstance(op, Gram) else _sq(op, op.rmv(alpha * y)), \
        float(alpha.sum())
    t = min(1.0, 2 * lam * total / uu) if uu > 0 else 1.0  # D(tα) = tΣα − t²‖u‖²/(4λ)
    dual = t * total - t * t * uu / (4 * lam)
    return (primal - dual) / max(primal, 1e-300)


def _support_dual(op, y, alpha, on, upper, target, intercept) -> torch.Tensor:
    """α on the support rows: the bounded least-squares fit (0 ≤ a ≤ upper) of the stationarity
    X_Sᵀ(a∘y_S) = 2λw − Xᵀ(α∘y) off S, nudged towards the upper bounds (where the fit leaves
    freedom, a larger Σα is a larger D); with an intercept also Σ a_i y_i = −Σ_off α_i y_i."""
    ys = y[on]
    rest = target - op.rmv(alpha * y)
    cols = (_rows(op, on) * ys[:, None]).T.numpy()  # p × |S|
    rhs = rest.numpy()
    if intercept:
        scale = float(np.linalg.norm(cols)) / max(len(on), 1) ** 0.5
        cols = np.vstack([cols, scale * ys.numpy()[None, :]])
        rhs = np.append(rhs, -scale * float((alpha * y).sum()))
    nudge = 1e-4 * float(np.linalg.norm(cols)) / max(len(on), 1) ** 0.5
    cols = np.vstack([cols, nudge * np.eye(len(on))])
    rhs = np.concatenate([rhs, nudge * upper.numpy()])
    from scipy.optimize import lsq_linear  # here: `import engine.cli` stays free of scipy

    got = lsq_linear(cols, rhs, bounds=(np.zeros(len(on)), upper.numpy()), method="bvls"
                     if len(on) <= 400 else "trf", tol=1e-12, max_iter=5000)
    return torch.from_numpy(np.clip(got.x, 0.0, upper.numpy()))


def _rows(op, on) -> torch.Tensor:
    """The support rows of X as a dense |S| × p block (Dense: sliced; else row by row, X eᵢ)."""
    if isinstance(op, Dense):
        return op.take(on)
    picks = torch.zeros(op.n, len(on), dtype=DT)
    picks[on, torch.arange(len(on))] = 1.0
    return torch.stack([op.rmv(picks[:, j]) for j in range(len(on))])


def _balance(alpha: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Scale the heavier class's α down so Σ α_i y_i = 0 (stays within the box)."""
    pos, neg = float(alpha[y > 0].sum()), float(alpha[y < 0].sum())
    if pos > neg:
        return torch.where(y > 0, alpha * (neg / pos), alpha)
    if neg > pos:
        return torch.where(y < 0, alpha * (pos / neg), alpha)
    return alpha


def zero_loss(op, y: torch.Tensor, w: torch.Tensor, c) -> bool:
    """Every training margin ≥ 1 (within WINDOW): the hard-margin constraints hold."""
    m = y.to(DT) * (op.mv(w) + (c if c is not None else 0.0))
    return bool((m >= 1.0 - WINDOW).all())


def converged(cert: float) -> bool:
    """The common bar: relative gap ≤ TOL."""
    return cert <= TOL
