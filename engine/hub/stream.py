"""HubStream: the frame contract (engine.frames.FrameStream's T, identity, done, error, len,
advance, meta, frames) served by the hub, so the Explore page reads a run computed elsewhere
exactly as it reads one computed in its own session."""

from __future__ import annotations

import time

from ..config import Config, ConfigError
from .hub import Hub

BUILD_WAIT_S = 600.0  # the longest a page waits for a run's first frame (data drawn, step 0)
POLL_S = 0.05


class RunFailed(ConfigError):
    """The run could not be set up where it is computed (its one-line message as is)."""

    def __init__(self, message: str):
        self.name, self.value, self.allowed = "run", "", message
        ValueError.__init__(self, message)


class HubStream:
    """One session's view of a hub run: the watcher `watcher` subscribed to cfg's run."""

    def __init__(self, cfg: Config, hub: Hub, watcher: str, wait_s: float = BUILD_WAIT_S,
                 client: str | None = None):
        self.hub, self.watcher = hub, watcher
        # ConfigError: refused (guard, hub full, the client's share)
        self.key = hub.subscribe(cfg, watcher, client=client)
        deadline = time.monotonic() + wait_s
        while True:  # the page shows its spinner meanwhile, as for a run built in the session
            st = hub.status(self.key)
            if st["meta"] is not None and st["n"] > 0:
                break
            if st["state"] in ("failed", "gone") or time.monotonic() > deadline:
                hub.leave(watcher)
                raise RunFailed(st["error"] or "the run did not start in time: the server is "
                                "busy; try again in a minute")
            time.sleep(POLL_S)
        self.T = st["T"]

    @property
    def identity(self) -> str:
        """What names this run for caches shared by its views: the hub's run key, the same for
        every session on the link."""
        return str(self.key)

    @property
    def done(self) -> bool:
        """Every step taken, or stopped by an error (a divergence, a worker that died)."""
        return self.hub.status(self.key)["state"] in ("done", "failed", "gone")

    @property
    def error(self) -> str:
        return self.hub.status(self.key)["error"]

    def __len__(self) -> int:
        return self.hub.status(self.key)["n"]

    def advance(self, budget_s: float | None = None, until: int | None = None) -> int:
        """Ask for frames up to `until` (the whole run when None); the steps are taken by the
        hub's executor, not here, so this returns at once with 0 steps taken."""
        self.hub.want(self.key, self.watcher, self.T + 1 if until is None else until)
        return 0

    def meta(self) -> dict:
        return dict(self.hub.status(self.key)["meta"])

    def limits(self) -> dict | None:
        """The converged limits of the chart's fixed-feature curves (FrameStream.limits), as the
        run's worker sent them after "done"; pending until then (a cached run without: none)."""
        st = self.hub.status(self.key)
        meta = st["meta"] or {}
        if not meta.get("limit_curves"):
            return None
        if meta.get("limits") is not None:
            return meta["limits"]
        # a live run's limits come after it; a done one's while its worker still solves them
        return {"pending": st["state"] == "live" or st.get("limits_due", False), "lines": []}

    def frames(self, start: int, stop: int) -> dict:
        """The packed batch of frames start..stop-1 (clamped to those held)."""
        return self.hub.batch(self.key, start, max(0, stop - start), self.watcher)["frames"]

    def close(self) -> None:
        """This session stops watching (the run stops if nobody else watches it)."""
        self.hub.leave(self.watcher)
