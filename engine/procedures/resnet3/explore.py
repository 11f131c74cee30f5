"""The AZL world as Explore plays it: the 3-layer ResNet's run (its map, c_F, c_G, narration) with
the other four methods trained beside it on the same data, initialisation and batches, so that
each of its snapshots also carries every method's test error for the chart with the kα² line."""

from __future__ import annotations

import numpy as np

from ...run import DivergenceError
from ...scenarios.azl.config import LABELS, METHODS
from .narrate import narrate
from .run import AZLRun, AZLWorld

LEAD = "resnet3"  # the network Explore maps and narrates
SIDE_KEYS = ("test_err", "c_F", "c_G")  # copied from each other method into the lead's snapshot


def side_key(key: str, method: str) -> str:
    """The lead snapshot's extra key of another method's number, e.g. test_err_two_layer."""
    return f"{key}_{method}"


def pair_names(k: int) -> list[str]:
    """The map's name of pair r's four stars: x₁x₂, x₃x₄, …, the parity F_r they build."""
    sub = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
    return [f"x{2 * r + 1}x{2 * r + 2}".translate(sub) for r in range(k)]


class ExploreRun:
    """The ResNet's run with the other methods in lockstep (the MethodRun protocol); a method
    that diverges stops alone (its numbers are NaN from then on), the ResNet's stops the run."""

    def __init__(self, world: AZLWorld, method: str = "network"):
        self.world, self.method, self.kind = world, method, LEAD
        self.lead = AZLRun(world, LEAD)
        self.side = {m: AZLRun(world, m) for m in METHODS if m != LEAD}
        self.stopped: dict[str, str] = {}  # method → why it stopped
        self.T, self.history = self.lead.T, self.lead.history
        self._annotate(self.history[0])

    @property
    def methods(self) -> tuple[str, ...]:
        """Every method, the ResNet first (the chart's order)."""
        return (LEAD, *self.side)

    @property
    def labels(self) -> dict[str, str]:
        """method → its label."""
        return {m: LABELS[m] for m in self.methods}

    @property
    def t(self) -> int:
        """Steps taken by the ResNet."""
        return self.lead.t

    @property
    def done(self) -> bool:
        """True once T steps have been taken."""
        return self.lead.done

    def test_errors(self, snap) -> list[float]:
        """Every method's test error at one of the ResNet's snapshots, in `methods` order."""
        return [snap.extra["test_err"], *(snap.extra[side_key("test_err", m)] for m in self.side)]

    def narration(self, snap) -> str:
        """The frame in words, every number from the snapshot: F and G (c_F, c_G) and the test
        error against kα², the other methods' test errors, where the first layer's rows sit."""
        cfg, e = self.world.cfg, snap.extra
        head = narrate(e, snap.step, cfg.threshold, cfg.seed, LABELS[LEAD])
        errs = self.test_errors(snap)[1:]
        others = ", ".join(f"{LABELS[m]} {err:.2f}" for m, err in zip(self.side, errs,
                                                                     strict=True))
        on, start = sum(e["pair_counts"]), self.history[0].extra
        return (f"{head}. Test error beside it: {others}. First layer: {on} of "
                f"{len(snap.cos)} neurons within cos 0.9 of a pair star, pair purity "
                f"{e['pair_purity']:.2f} ({start['pair_purity']:.2f} at step 0, 1 on a star); "
                f"V's share on out₁…out₄ (what G reads) {e['v_support']:.2f} "
                f"({start['v_support']:.2f} at step 0).")

    step_sizes_note = ("SGD with momentum and weight decay, every step size ×0.1 from the drop "
                       "on (docs/azl.md); the same numbers are in the JSON report's config.")

    def step_sizes(self) -> list[dict]:
        """Per method the SGD settings it trains with (Explore's step-size table)."""
        cfg = self.world.cfg
        drop = cfg.drop_epoch * cfg.steps_per_epoch if cfg.drop_epoch else None
        return [{"method": LABELS[m], "η": run.lr0, "η after the drop": run.lr0 * 0.1,
                 "drop at step": drop, "momentum": cfg.momentum, "weight decay": cfg.wd}
                for m, run in (("resnet3", self.lead), *self.side.items())]

    def first_layer(self) -> np.ndarray:
        """The ResNet's first-layer weights now (m×d)."""
        return self.lead.net.W.detach().numpy().copy()

    def pair_marks(self) -> list[tuple[str, np.ndarray]]:
        """(name, its four stars as rows) per pair r: the map's labelled stars."""
        stars = self.world.stars
        return [(name, stars[4 * r:4 * r + 4])
                for r, name in enumerate(pair_names(self.world.cfg.k))]

    def step(self):
        """One step of every method; returns the ResNet's snapshot with the others' numbers."""
        if self.done:
            return self.history[-1]
        for m, run in self.side.items():
            if m in self.stopped:
                continue
            try:
                run.step()
            except DivergenceError as err:
                self.stopped[m] = str(err)
        snap = self.lead.step()
        self._annotate(snap)
        return snap

    def _annotate(self, snap) -> None:
        """Put the other methods' numbers of this step into the ResNet's snapshot."""
        for m, run in self.side.items():
            last = run.history[-1].extra if m not in self.stopped else {}
            for key in SIDE_KEYS:
                snap.extra[side_key(key, m)] = float(last.get(key, float("nan")))

    def __iter__(self):
        while not self.done:
            yield self.step()

    def summary(self) -> dict:
        """The ResNet's summary (the other methods' numbers are in its last snapshot)."""
        return self.lead.summary()

    def history_bytes(self) -> int:
        """Memory held by every method's history."""
        return self.lead.history_bytes() + sum(r.history_bytes() for r in self.side.values())
