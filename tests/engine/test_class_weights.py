"""App. F's weighted loss for unbalanced classes: α_v = 1/(2 Pr[y = v]) in steps 1-2."""

from __future__ import annotations

import pytest
import torch
from engine_ref import TINY, d_space_inputs, d_space_weights, rel_err, smooth_sigma

from engine.config import Config
from engine.data import population_stats
from engine.hinge import hinge_grads
from engine.network import Params
from engine.run import Run
from engine.schedule import build_schedule, class_weights
from engine.worlds import build_world


def weighted_ref_grads(w, b, a, x, y, alpha, xi):
    """Autograd gradients of mean_n α_{y_n} max(0, 1 − y_n g(x_n; ξ)) in float64."""
    w, b, a = (t.detach().double().clone().requires_grad_(True) for t in (w, b, a))
    y = y.double()
    g = smooth_sigma(x @ w.T + b, xi, True) @ a
    wts = torch.where(y > 0, alpha[0], alpha[1])
    loss = (wts * (1.0 - y * g).clamp_min(0.0)).mean()
    return torch.autograd.grad(loss, (w, b, a)), float(loss.detach())


def test_class_weights_formula():
    assert class_weights(0.5) is None  # balanced: the plain mean, bit for bit
    assert class_weights(0.2) == pytest.approx((2.5, 0.625))
    pos, neg = class_weights(0.2)
    assert 0.2 * pos + 0.8 * neg == pytest.approx(1.0)  # weighted classes count equally


def test_schedule_weights_steps_1_and_2_only():
    cfg = Config(**TINY, neg_ratio=0.8)
    st = population_stats(cfg)
    assert st.pos_frac == pytest.approx(0.2)
    sch = build_schedule(cfg, st)
    assert sch.step1.class_weights == sch.step2.class_weights == pytest.approx((2.5, 0.625))
    assert sch.later.class_weights is None
    assert build_schedule(cfg.replace(balance="all"), st).later.class_weights is not None
    assert build_schedule(cfg.replace(balance="off"), st).step1.class_weights is None
    assert build_schedule(Config(**TINY), population_stats(Config(**TINY))).step1 \
        .class_weights is None


def test_weighted_hinge_grads_match_autograd():
    cfg = Config(**TINY, neg_ratio=0.8)
    world = build_world(cfg, device="cpu", space="input")
    run = Run(world, embed=False)
    run.step()  # after step 1 the activations are non-trivial
    p, ds, alpha = run.params, world.ds, (2.5, 0.625)
    # float64 throughout: after step 1 the sums nearly cancel, float32 would only show rounding
    p64 = Params(p.q.double(), p.b.double(), p.a.double())
    z64, y64 = world.data.z_train.double(), world.data.y_train.double()
    g = hinge_grads(p64, z64, y64, 0.05, True, True, alpha)
    (gw, gb, ga), loss = weighted_ref_grads(d_space_weights(p, ds.basis), p.b, p.a,
                                            d_space_inputs(ds), torch.as_tensor(ds.y_train),
                                            alpha, 0.05)
    assert g.loss == pytest.approx(loss, rel=1e-9)
    assert rel_err(g.a, ga) < 1e-8 and rel_err(g.b, gb) < 1e-8 and rel_err(g.q, gw) < 1e-8
    plain = hinge_grads(p64, z64, y64, 0.05, True)
    assert rel_err(plain.b, gb) > 0.1  # the weights really change the gradient
