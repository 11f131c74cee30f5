"""Studies that train one world several times over a setting (above the worlds and methods)."""

from __future__ import annotations

from .config import Config
from .scenarios import fcb
from .worlds import build_world


def noise_curve(cfg: Config, rates, device: str = "cpu") -> list[dict]:
    """FCB: test error (noisy and clean test labels) after T steps for each label-noise rate."""
    out = []
    for rate in rates:
        world = build_world(cfg.replace(flip=float(rate)), device)
        run = fcb.make_run("network", world, embed=False)
        for _ in run:
            pass
        last = run.history[-1]
        out.append({"flip": float(rate), "test_error": 1.0 - last.test_acc,
                    "clean_test_error": 1.0 - last.extra["clean_test_acc"]})
    return out
