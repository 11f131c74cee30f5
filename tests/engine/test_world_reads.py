"""A world that names the common settings it reads (WorldRecord.common) hides the others in the
sidebar and refuses them: hidden must mean unread. For every such world and every common setting
it does not name, the same tiny run with that setting changed gives bitwise the same snapshots
(3 steps of every method of its procedure); a control shows the comparison sees a changed seed."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from engine.config import COMMON, Config, ConfigError, validate
from engine.methods import make_run
from engine.procedures import procedure_of
from engine.reads import read_diff, refuse_unread
from engine.scenarios import WORLDS, reads_common, shows
from engine.worlds import build_world
from tests.engine.conformance import tiny
from tests.engine.test_gfl_invariants import TINY as GFL_TINY

STEPS = 3
# each world's preset at a size that steps in a blink (the gfl tests' TINY sizes)
TINY = {
    **GFL_TINY,
    "azl_hier": dict(d=30, D=30, k=8, n=400, n_test=200, m=16, T=6, batch=100,
                     azl_drop_epoch=0),
    "fcb": dict(d=20, D=2, k=2, sigma_r=0.2, flip=0.1, n=300, n_test=200, m=8, T=6, batch=50),
    "sparse_coding": dict(d=40, D=20, k=3, p_o=0.3, n=300, n_test=200, m=8, T=6, batch=50),
    "dm_parity": dict(d=30, D=30, k=3, p_o=0.5, n=300, n_test=200, m=8, T=6, batch=50),
    "hidden_repr": dict(d=40, D=20, k=3, p_o=0.3, vectors=5, n=300, n_test=200, m=8, T=6,
                        batch=50),
    "mog": dict(d=20, D=2, k=2, sigma_r=1.0, n=300, n_test=200, m=8, T=6, batch=50),
    "real": dict(real="digits", pair="0,1", d=64, D=1, k=1, n=200, n_test=80, m=8, T=6,
                 batch=50, schedule="standard", eta=0.05, lam=0.02),
    "teacher_student": dict(d=64, D=1, k=1, n=300, n_test=200, m=8, T=6, batch=50),
}
# another valid value of each common setting, and what both runs need for it to be valid alone
OTHER = {
    "labeling": ("threshold", {}), "p_o": (0.3, {}), "p_a": (0.3, {}), "t1": (1, {}),
    "t2": (2, {}), "P": ("1", {}), "structure": (False, {}), "neg_ratio": (0.3, {}),
    "noise": (0.5, {}), "schedule": ("standard", {}), "theory": ("thm26", {}),
    "eta1": (0.5, {}), "nu1": (0.5, {}), "lam_w1": (0.5, {}), "lam_a1": (0.5, {}),
    "xi1": (0.5, {}), "eta2": (0.5, {}), "lam_w2": (0.5, {}), "lam_a2": (0.5, {}),
    "xi2": (0.5, {}), "eta": (0.5, {}), "lam": (0.5, {}), "xi": (0.5, {}),
    # momentum belongs to SGD steps (engine.relations): both runs take optimizer=sgd
    "momentum": (0.5, {"optimizer": "sgd"}), "optimizer": ("sgd", {}),
    "optimizer_w": ("sgd", {}), "eta_w": (0.5, {}), "ema": (0.5, {}), "intercept": (True, {}),
    "lr_decay": ("cosine", {}), "balance": ("all", {}), "classifier": ("logreg", {}),
    # beyond D ≤ d and k ≤ D on purpose: a world that reads neither must not be held to them
    "D": (100, {}), "k": (50, {}), "batch": (25, {}), "limit_ridge": (1e-2, {}),
}
DK_UNREAD = ("gfl_xor", "gfl_mog", "gfl_multi_index")  # docs/gfl.md, "What each world reads"
# common settings that cannot change on their own, with the reason (none today)
SKIP: dict[tuple[str, str], str] = {}
ALWAYS = ("scenario", "procedure")  # every world reads them


def unread(world: str) -> list[str]:
    """The common settings the world's record leaves out (the sidebar hides them)."""
    return [n for n in COMMON if n not in ALWAYS and not reads_common(WORLDS[world], n)]


CASES = [(w, n) for w, r in WORLDS.items() if r.common is not None for n in unread(w)]


def config(world: str, **changes) -> Config:
    """The world's tiny setting with some settings changed (validated)."""
    if world not in TINY:  # a world added by registering: the conformance suite's tiny size
        return validate(dataclasses.replace(tiny(world, WORLDS[world].procedures[0]),
                                            **changes))
    return validate(dataclasses.replace(Config(scenario=world, **TINY[world]), **changes))


def flat(value, out: list) -> list:
    """Every number, string and array inside a snapshot, in a fixed order (elapsed left out)."""
    if dataclasses.is_dataclass(value):
        value = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        for key in sorted(value, key=str):
            if key != "elapsed":
                out.append(str(key))
                flat(value[key], out)
    elif isinstance(value, (list, tuple)):
        for item in value:
            flat(item, out)
    elif isinstance(value, torch.Tensor):
        flat(value.detach().cpu().numpy(), out)
    else:
        arr = np.asarray(value)
        out.append((arr.dtype.str, arr.shape, arr.tobytes()))
    return out


def trace(cfg: Config) -> list:
    """Every method of cfg's procedure trained STEPS steps: its snapshots' bytes, in order (the
    *_no_structure ones left out: the same trainers on the world without structure)."""
    world, out = build_world(cfg, "cpu"), []
    for method in (m.name for m in procedure_of(cfg).methods if m.structure):
        run = make_run(method, world, embed=False)
        for _ in range(STEPS):
            run.step()
        out.append(method)
        for snap in run.history:
            flat(snap, out)
    return out


_BASE: dict = {}


def base(world: str, context: dict) -> list:
    """The unchanged run's trace (once per world and context)."""
    key = (world, tuple(sorted(context.items())))
    if key not in _BASE:
        _BASE[key] = trace(config(world, **context))
    return _BASE[key]


def test_every_world_with_a_common_tuple_is_covered():
    """The six GFL worlds and the AZL world name their reads; every unread setting has a value."""
    named = {w for w, r in WORLDS.items() if r.common is not None}
    assert {"azl_hier", *(w for w in WORLDS if w.startswith("gfl_"))} <= named
    assert all(config(w).scenario == w for w in named)  # a tiny setting for each
    assert {name for _, name in CASES} <= set(OTHER)


@pytest.mark.parametrize(("world", "name"), CASES, ids=[f"{w}-{n}" for w, n in CASES])
def test_a_hidden_setting_changes_no_number(world, name):
    if (world, name) in SKIP:
        pytest.skip(SKIP[world, name])
    value, context = OTHER[name]
    assert getattr(config(world, **context), name) != value
    changed = trace(config(world, **context, **{name: value}))
    assert changed == base(world, context), f"{world} reads {name}, which its record hides"


@pytest.mark.parametrize("world", sorted(TINY))
def test_the_comparison_sees_a_read_setting(world):
    """Control: the seed (read by every world) changes the trace, so equal traces mean unread."""
    assert trace(config(world, seed=1)) != base(world, {})


@pytest.mark.parametrize("world", DK_UNREAD)
def test_d_and_k_are_hidden_where_they_change_nothing(world):
    """Hidden from the sidebar, left out of links, refused when given; their defaults (D = 100,
    k = 5) never trip D ≤ d or k ≤ D there, while a world that reads D still refuses it."""
    assert ("D", "k") == tuple(n for n in ("D", "k") if n in unread(world))
    cfg = config(world)
    assert not shows("D", cfg) and not shows("k", cfg)
    assert "D" not in read_diff(cfg) and "k" not in read_diff(cfg)
    with pytest.raises(ConfigError, match="does not read it"):
        refuse_unread(cfg, ["D"])
    bare = validate(Config(scenario=world, d=10))  # D = 100 > d: not read, not refused
    assert (bare.D, bare.k) == (Config().D, Config().k)
    with pytest.raises(ConfigError, match="D ≤ d"):
        validate(Config(d=10))  # the paper's world reads D
