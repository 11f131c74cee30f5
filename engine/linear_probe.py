"""A tuned linear classifier on frozen first-layer features (the 'best classifier on top')."""

from __future__ import annotations

import numpy as np
import torch

from .network import Params

MAX_TRAIN = 10_000  # logistic regression on more samples adds little and costs seconds
C_GRID = (0.01, 0.1, 1.0, 10.0)


def frozen_features(p: Params, z: torch.Tensor, truncated: bool, chunk: int = 16384) -> np.ndarray:
    """σ(⟨w_i, x⟩ + b_i) for every neuron, in float64 (twins give one column each).

    float64 because the step-1 features differ from σ(b_i) by ⟨w⁽¹⁾, x⟩ ≈ 1e-9: float32
    would round each neuron's feature to a handful of distinct values."""
    q, b = p.q.double(), p.b.double()
    out = []
    for i in range(0, z.shape[0], chunk):
        pre = torch.addmm(b, z[i:i + chunk].double(), q.T)
        out.append((pre.clamp(0, 1) if truncated else pre.clamp_min(0)).cpu().numpy())
    return np.concatenate(out)


def fit(p: Params, world, seed: int = 0) -> dict:
    """Standardised features → logistic regression, C chosen on a held-out split of train.

    Returns train/test accuracy of sign(decision) on the whole sets and the chosen C.
    """
    d, trunc = world.data, world.schedule.truncated
    rng = np.random.default_rng([seed, 0x11])
    n = d.z_train.shape[0]
    idx = rng.choice(n, size=min(n, MAX_TRAIN), replace=False)
    x_all = frozen_features(p, d.z_train, trunc)
    y_all = d.y_train.cpu().numpy()
    x, y = x_all[idx], y_all[idx]
    from sklearn.linear_model import LogisticRegression  # scikit-learn: imported where used
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(x)
    cut = int(0.8 * len(idx))
    best = max(C_GRID, key=lambda c: _score(c, scaler, x[:cut], y[:cut], x[cut:], y[cut:]))
    clf = LogisticRegression(C=best, max_iter=500).fit(scaler.transform(x), y)
    x_test = frozen_features(p, d.z_test, trunc)
    return {"train_acc": float(clf.score(scaler.transform(x_all), y_all)),
            "test_acc": float(clf.score(scaler.transform(x_test), d.y_test.cpu().numpy())),
            "C": best}


def _score(c, scaler, x_tr, y_tr, x_va, y_va) -> float:

    if len(np.unique(y_tr)) < 2:
        return 0.0
    from sklearn.linear_model import LogisticRegression

    clf = LogisticRegression(C=c, max_iter=300).fit(scaler.transform(x_tr), y_tr)
    return float(clf.score(scaler.transform(x_va), y_va))
