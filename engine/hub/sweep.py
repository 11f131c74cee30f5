"""HubSweep: one session's view of a page sweep computed by the hub (sweep_job.py): it asks for
every unit and reads the rows as the hub's worker makes them, so a sweep that several sessions
ask is trained once and each gets the same rows.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from .. import guard
from ..sweep.spec import SweepSpec
from .hub import Hub
from .stream import RunFailed
from .sweep_job import heaviest, sweep_job, units_of

BATCH = 100_000  # frames read per call: every new unit at once
POLL_S = 0.2


def stall_s() -> float:
    """How long a sweep may make no new unit before the page gives up on it (a unit takes at
    most FEX_MAX_SECONDS; it may wait a turn behind other runs on its worker)."""
    return max(120.0, 2 * guard.limit("FEX_MAX_SECONDS"))


class HubSweep:
    """The watcher `watcher`'s view of `spec`'s sweep; ConfigError (one line) when refused."""

    def __init__(self, spec: SweepSpec, hub: Hub, watcher: str, client: str | None = None):
        self.spec, self.hub, self.watcher = spec, hub, watcher
        self.units = units_of(spec)
        cfg, _ = heaviest(spec)  # every cell checked here, as the worker will
        self.key = hub.subscribe(cfg, watcher, want=self.units + 1, job=sweep_job(spec),
                                 client=client)  # its fair share is its client's, as Explore's
        self.rows: list[dict] = []
        self._n = 0  # frames read so far (frame 0: the plan)
        self._status: dict = hub.status(self.key)

    @property
    def done(self) -> bool:
        return self._status["state"] == "done" and self._n >= self._status["n"]

    @property
    def finished(self) -> int:
        """Units whose rows have been read."""
        return max(0, self._n - 1)

    @property
    def seconds(self) -> float:
        """The worker's compute time for the whole sweep (once done)."""
        return float((self._status["meta"] or {}).get("seconds", 0.0))

    def advance(self) -> None:
        """Ask for every unit and read the rows made since the last call. RunFailed when the
        sweep failed (its one-line message)."""
        self.hub.want(self.key, self.watcher, self.units + 1)
        batch = self.hub.batch(self.key, self._n, BATCH)
        for rows in batch["frames"].get("rows", ()):
            self.rows.extend(rows)
            self._n += 1
        self._status = self.hub.status(self.key)
        if self._status["state"] in ("failed", "gone"):
            raise RunFailed(self._status["error"] or batch["error"] or "the sweep stopped")

    def close(self) -> None:
        """This session stops watching (the sweep stops if nobody else watches it)."""
        self.hub.leave(self.watcher)


def run_on_hub(spec: SweepSpec, hub: Hub, watcher: str, client: str | None = None,
               on_unit: Callable[[int, int], None] | None = None) -> HubSweep:
    """Wait for the whole sweep, calling on_unit(done, units) as units arrive; the finished
    HubSweep (its rows). The session stops watching when this returns or is interrupted."""
    sweep = HubSweep(spec, hub, watcher, client)
    try:
        seen, moved = -1, time.monotonic()
        while True:
            sweep.advance()
            if sweep.finished != seen:
                seen, moved = sweep.finished, time.monotonic()
                if on_unit is not None:
                    on_unit(seen, sweep.units)
            if sweep.done:
                return sweep
            if time.monotonic() - moved > stall_s():
                raise RunFailed(f"no unit of the sweep finished in {stall_s():.0f} s: the "
                                "server is busy; try again in a minute")
            time.sleep(POLL_S)
    finally:
        sweep.close()
