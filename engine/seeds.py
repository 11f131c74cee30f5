"""Seeds cfg.seed, cfg.seed + 1, … of one comparison, trained one after another: the loop the
CLI's --seeds and the Compare page share (the page steps it tick by tick)."""

from __future__ import annotations

import time
from collections.abc import Callable

from .compare import Comparison
from .config import Config
from .run import DivergenceError


class SeedSeries:
    """Per-seed summaries of the finished seeds, the first seed's Comparison (its curves go into
    the report) and, after a divergence, the error with every step before it kept."""

    def __init__(self, cfg: Config, methods, seeds: int, device: str = "auto",
                 embed: bool = False, prepare: Callable[[Config], bool] | None = None):
        # prepare(cfg) runs before each seed is built and says whether the feature cache may be
        # used (engine.guard.check on a server); it may raise ConfigError
        self.cfg, self.methods, self.seeds = cfg, tuple(methods), seeds
        self.device, self.embed, self.prepare = device, embed, prepare
        self.per_seed: list[dict] = []
        self.first: Comparison | None = None
        self.current: Comparison | None = None
        self.diverged: DivergenceError | None = None
        self.last: Comparison | None = None  # the seed stepped last (running or just finished)
        self.t0 = time.perf_counter()

    @property
    def done(self) -> bool:
        """Every seed finished, or one diverged."""
        return self.diverged is not None or len(self.per_seed) >= self.seeds

    @property
    def shown(self) -> Comparison | None:
        """The running seed's comparison, else the first finished one."""
        return self.current if self.current is not None else self.first

    def _start(self) -> Comparison:
        cfg = self.cfg.replace(seed=self.cfg.seed + len(self.per_seed))
        cache = True if self.prepare is None else self.prepare(cfg)
        comp = Comparison(cfg, self.methods, self.device, embed=self.embed, feature_cache=cache)
        self.first = self.first or comp
        return comp

    def advance(self, budget_s: float | None = None,
                train: Callable[[Comparison], None] | None = None) -> None:
        """Build the next seed if none runs, then step it (once, then until about budget_s has
        passed; None: to its end, or train(comparison) does it) and record it once done. A
        divergence is recorded with the steps before it and raised again."""
        if self.done:
            return
        if self.current is None:
            self.current = self._start()
        comp, t0 = self.current, time.perf_counter()
        self.last = comp
        try:
            if train is not None:
                train(comp)
            while not comp.done:  # at least one step per call, then until the budget is spent
                comp.step()
                if budget_s is not None and time.perf_counter() - t0 >= budget_s:
                    break
        except DivergenceError as err:
            self.per_seed.append({m: r.summary() for m, r in comp.runs.items()})
            self.diverged = err
            raise
        if comp.done:
            self.per_seed.append(comp.summary())
            self.current = None

    def run(self, train: Callable[[Comparison], None] | None = None) -> None:
        """Every seed to its end (stops at a divergence, which stays in self.diverged)."""
        try:
            while not self.done:
                self.advance(train=train)
        except DivergenceError:
            pass
