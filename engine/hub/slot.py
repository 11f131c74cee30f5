"""One run inside an executor (a local worker process or a Ray actor): its FrameStream, how far
its watchers want it, and which frames already went to the hub. Both executors drive runs
through this class, so a run gives the same frames wherever it is computed."""

from __future__ import annotations

import importlib

from ..config import ConfigError, from_dict
from ..echo import plain
from .compare_job import JOB

FACTORY = "engine.frames:FrameStream"  # the engine-made frames (engine/frames)
CHUNK_S = 0.2  # compute per turn: runs on one worker take turns of this length


def load_factory(path: str):
    """The stream class named 'module:attribute'."""
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


class Slot:
    """A run being computed: turn() takes one chunk of steps and returns the hub's messages."""

    def __init__(self, key: str, settings: dict, until: int, have: int, factory: str):
        self.key, self.until, self.have = key, until, have
        self.settings, self.factory = settings, factory
        self.stream = None
        self.sent = 0
        self.finished = False
        self.limits_due = False  # the run is done; its converged limits are still being solved

    def wants(self) -> bool:
        """Whether a turn would compute anything."""
        if self.finished:
            return False
        if self.limits_due:
            return True
        return self.stream is None or len(self.stream) < max(self.until, self.have)

    def turn(self, budget_s: float = CHUNK_S) -> list[tuple]:
        """Build the stream (first turn) or advance it by one chunk; the messages it makes."""
        try:
            if self.stream is None:
                return self._build()
            if self.limits_due:
                return self._limits(budget_s)
            return self._advance(budget_s)
        except Exception as err:  # noqa: BLE001 - the run fails, the worker goes on
            self.finished = True
            return [("done", self.key, _one_line(err))]

    def _build(self) -> list[tuple]:
        settings = dict(self.settings)
        job = settings.pop(JOB, None)  # a Compare run (engine/hub/compare_job.py), else Explore's
        make = load_factory(job["factory"] if job else self.factory)
        self.stream = make(from_dict(settings), device="cpu", **(job["args"] if job else {}))
        out = [("meta", self.key, self.stream.meta(), int(self.stream.T))]
        return out + self._news(getattr(self.stream, "first_steps", 1))

    def _advance(self, budget_s: float) -> list[tuple]:
        until = max(self.until, self.have)
        steps = self.stream.advance(budget_s=budget_s, until=until)
        return self._news(steps)

    def _news(self, steps: int) -> list[tuple]:
        """New frames beyond what the hub holds (a restarted run recomputes those silently)."""
        n = len(self.stream)
        out: list[tuple] = []
        start = max(self.sent, self.have)
        if n > start:
            out.append(("frames", self.key, start, self.stream.frames(start, n), steps))
            self.sent = n
        elif steps:
            out.append(("frames", self.key, n, None, steps))
        if self.stream.done:
            # "done" goes at once (the player has every frame); the limits follow in their own
            # message, solved in the stream's background thread (engine/frames/limits.py)
            lim = self.stream.limits()
            self.limits_due = bool(lim and lim["pending"])
            self.finished = not self.limits_due
            done = ("done", self.key, self.stream.error or "", self.limits_due)
            final = getattr(self.stream, "final", None)  # a Compare run's report
            out.append(done if final is None else (*done, final()))
        return out

    def _limits(self, budget_s: float) -> list[tuple]:
        """Wait one turn's budget for the limits (other runs take their turns between)."""
        self.stream.wait_limits(budget_s)
        lim = self.stream.limits()
        if lim["pending"]:
            return []
        self.limits_due, self.finished = False, True
        return [("limits", self.key, lim)]


def _one_line(err: Exception) -> str:
    """A failure as one plain line for the run's watchers."""
    if isinstance(err, ConfigError):
        return str(err)
    first = str(err).splitlines()[0] if str(err) else ""
    return plain(f"the run stopped: {type(err).__name__}: {first}", 200)
