"""engine/config.py and engine/schedule.py: validation, coercion, label sets, and the step-size
formulas at the paper's default setting (reference numbers of paper-spec §3.9)."""

from __future__ import annotations

import pytest

from engine.config import Config, ConfigError, coerce, diff, from_dict, label_set, validate
from engine.data import population_stats
from engine.schedule import (
    PAPER_EMA,
    PAPER_ETA_W,
    PAPER_NU1,
    build_schedule,
    init_scales,
    layer_rule,
)


def test_default_config_is_the_papers_parity_setting():
    cfg = validate(Config())
    assert (cfg.d, cfg.D, cfg.k, cfg.p_o, cfg.m, cfg.T, cfg.n, cfg.batch) == \
        (500, 100, 5, 0.5, 300, 600, 50_000, 1000)
    assert label_set(cfg) == (1, 3, 5)
    assert diff(cfg) == {}
    assert diff(cfg.replace(k=7, seed=3)) == {"k": 7, "seed": 3}


@pytest.mark.parametrize("changes,name", [
    (dict(D=600), "D"),  # D ≤ d
    (dict(k=101), "k"),  # k ≤ D
    (dict(k=4), "k"),  # parity needs odd k
    (dict(p_o=0.7), "p_o"),  # D(1) needs p_o/(2 − 2p_o) ≤ 1
    (dict(p_o=0.0), "p_o"),  # open interval
    (dict(batch=60_000), "batch"),  # batch ≤ n
    (dict(labeling="interval", t1=20, t2=40), "t2"),  # t2 ≤ k
    (dict(labeling="custom", P="0,2"), "P"),
    (dict(labeling="custom", P="0,1,2,3,4,5"), "P"),
    (dict(labeling="custom", k=3, P="1,2,3,0"), "P"),
    (dict(labeling="bogus"), "labeling"),
    (dict(eta1=0.0), "eta1"),
    (dict(n=5), "n"),
    (dict(momentum=1.0), "momentum"),
])
def test_validation_names_the_offending_setting(changes, name):
    with pytest.raises(ConfigError) as err:
        Config().replace(**changes)
    assert err.value.name == name
    assert name in str(err.value) and "not allowed" in str(err.value)


def test_parity_p_o_two_thirds_is_the_largest_allowed():
    assert Config().replace(p_o=2 / 3).p_o == pytest.approx(2 / 3)
    assert Config().replace(p_o=0.9, structure=False).structure is False


def test_coerce_and_from_dict():
    assert coerce("d", "100") == 100 and isinstance(coerce("d", "100"), int)
    assert coerce("p_o", "0.25") == 0.25
    assert coerce("structure", "off") is False and coerce("structure", "yes") is True
    assert coerce("eta1", "auto") is None and coerce("eta1", "") is None
    for name, raw in (("d", "1.5"), ("d", "x"), ("structure", "maybe"), ("nope", 1)):
        with pytest.raises(ConfigError):
            coerce(name, raw)
    cfg = from_dict({"k": "7", "labeling": "threshold", "eta2": "auto"})
    assert (cfg.k, cfg.labeling, cfg.eta2) == (7, "threshold", None)
    assert label_set(cfg) == (4, 5, 6, 7)


def test_label_sets():
    assert label_set(Config(labeling="interval", k=30, t1=20, t2=30)) == tuple(range(20, 31))
    assert label_set(Config(labeling="interval", k=7, t1=0, t2=2)) == (1, 2)  # 0 is always −1
    assert label_set(Config(labeling="threshold", k=6)) == (4, 5, 6)
    assert label_set(Config(labeling="custom", k=6, P="5; 2,2")) == (2, 5)


def test_paper_default_step_sizes_and_init_scales():
    """Paper-spec §3.9: γ = 1/4, σ̃ = 5, σ_w = 0.2, σ_b = 0.04, σ_a = 4, η⁽¹⁾ = 2.31e−9 (Lemma 23)
    or 1.16e−8 (Thm 26), σ_ξ = 0.0894 or 0.04, η (t > 2) = k²/(T m^{1/3}) ≈ 6.22e−3 at T = 600."""
    cfg = Config()
    st = population_stats(cfg)
    assert init_scales(cfg, st) == pytest.approx((0.2, 0.04, 4.0))
    lemma = build_schedule(cfg.replace(schedule="theory"), st)
    thm = build_schedule(cfg.replace(schedule="theory", theory="thm26"), st)
    # the spec's numbers are rounded to 3 significant digits; the exact values first
    assert lemma.step1.eta == pytest.approx(0.25**2 * 5 / (5 * 300**3), rel=1e-12)
    assert thm.step1.eta == pytest.approx(0.25**2 * 25 / (5 * 300**3), rel=1e-12)
    assert lemma.step1.eta == pytest.approx(2.31e-9, abs=0.005e-9)
    assert thm.step1.eta == pytest.approx(1.16e-8, abs=0.005e-8)
    assert lemma.step1.xi == pytest.approx(0.0894, abs=5e-5)
    assert thm.step1.xi == pytest.approx(0.04, rel=1e-12)
    assert lemma.later.eta == pytest.approx(6.22e-3, abs=5e-6)
    assert lemma.truncated and lemma.symmetric_init
    assert lemma.step1.full_batch and lemma.step2.full_batch and not lemma.later.full_batch
    paper = build_schedule(cfg, st)
    # the paper schedule keeps Lemma 23's η⁽¹⁾ and σ_ξ⁽¹⁾; its step 1 keeps ν⁽¹⁾η⁽¹⁾·w⁽⁰⁾
    # (λ_w⁽¹⁾ = 1/(2η⁽¹⁾) − ν⁽¹⁾/2 instead of the full reset); step 2 resets with λ = 1/(2η)
    assert (paper.step1.eta, paper.step1.xi, paper.step1.lam_a) == \
        (lemma.step1.eta, lemma.step1.xi, lemma.step1.lam_a)
    assert lemma.step1.keep_w is None and lemma.step1.lam_w == 1 / (2 * lemma.step1.eta)
    assert paper.step1.keep_w == pytest.approx(PAPER_NU1 * lemma.step1.eta, rel=1e-12)
    assert 1 - 2 * paper.step1.eta * paper.step1.lam_w == pytest.approx(paper.step1.keep_w,
                                                                       rel=1e-6)
    # momentum names the SGD stage only: it never touches the paper's steps 1-2
    mom = build_schedule(cfg.replace(momentum=0.9, optimizer="sgd"), st)
    assert mom.step1.momentum == mom.step2.momentum == 0.0 and mom.later.momentum == 0.9
    # the classifier stage: Adam with iterate averaging (paper), plain SGD (theory)
    assert (paper.later.optimizer, paper.later.ema) == ("adam", PAPER_EMA)
    assert (lemma.later.optimizer, lemma.later.ema) == ("sgd", 0.0)
    # its first layer moves by plain SGD (the theory's stage 3); optimizer_w=same: Adam as before
    assert (paper.later.optimizer_w, paper.later.eta_w) == ("sgd", PAPER_ETA_W)
    assert layer_rule(paper.later, "q", 0.05) == layer_rule(paper.later, "b", 0.05) == \
        ("sgd", PAPER_ETA_W)
    assert layer_rule(paper.later, "a", 0.05) == layer_rule(paper.later, "dq", 0.05) == \
        ("adam", 0.05)  # the output layer, and the NTK's linear model, keep the stage's rule
    assert layer_rule(paper.later, "q", 0.025) == ("sgd", PAPER_ETA_W / 2)  # decays alike
    assert lemma.later.optimizer_w is None
    assert build_schedule(cfg.replace(optimizer_w="same"), st).later.optimizer_w is None
    own = build_schedule(cfg.replace(optimizer_w="adam"), st).later
    assert (own.optimizer_w, own.eta_w) == ("adam", own.eta)
    assert paper.step2.lam_w == pytest.approx(1 / (2 * paper.step2.eta))
    assert paper.step2.lam_a == pytest.approx(1 / (2 * paper.step2.eta))
    assert paper.step2.xi == lemma.step2.xi
    std = build_schedule(cfg.replace(schedule="standard"), st)
    assert not std.truncated and not std.symmetric_init
    assert std.step1.momentum > 0 and not std.step1.full_batch
    assert std.step1.lam_w == 0.0 and std.later.lam_w == 0.0
