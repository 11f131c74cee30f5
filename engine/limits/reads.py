"""Where the converged limits read limit_ridge: only where a fixed-feature method trains without
decay (its limit is λ → 0, or the ridge chosen there). The paper schedule's classifier stage has
its own λ, which defines the problem: no ridge is offered there (AZL's weight decay likewise;
its procedure does not list the setting)."""

from __future__ import annotations

from ..schedule import PAPER_LAM

DECAY_FREE = ("gfl", "fcb2022")  # procedures whose readouts train without any decay


def ridge_unread(cfg, procedure: str) -> str | None:
    """Why cfg's limits ignore limit_ridge (the classifier stage's own decay), or None."""
    if procedure != "shi2022":
        return None
    lam = cfg.lam if cfg.lam is not None else PAPER_LAM if cfg.schedule == "paper" else 0.0
    if lam > 0:
        return (f"the classifier stage's own decay λ = {lam:g} (schedule={cfg.schedule}) defines "
                "its converged limit; a ridge is read only where a method trains without decay")
    return None
