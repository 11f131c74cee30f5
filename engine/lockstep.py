"""What every set of runs trained side by side offers: the shared step count, done, one step."""

from __future__ import annotations


class Lockstep:
    """Methods in lockstep over `self.runs` (method → run with t, done and step())."""

    runs: dict

    @property
    def t(self) -> int:
        """Steps taken by the slowest method."""
        return min(r.t for r in self.runs.values())

    @property
    def done(self) -> bool:
        """True once every method has taken T steps."""
        return all(r.done for r in self.runs.values())

    def step(self) -> dict:
        """Advance every unfinished method one step; returns method → snapshot."""
        return {m: r.step() for m, r in self.runs.items() if not r.done}
