"""HubCompare: one session's view of a Compare comparison computed by the hub (compare_job.py),
with CompareStream's page API (rows, meta, report, CSV, limits), so the Compare page reads a
comparison computed once for every session on the link exactly as one computed in its session.
"""

from __future__ import annotations

import copy

from ..config import Config
from ..report import clean, rows_csv, with_paper
from .compare_job import compare_job
from .hub import Hub
from .stream import RunFailed

BATCH = 100_000  # frames read per call: a tick takes every new one


class HubCompare:
    """The watcher `watcher`'s view of cfg's comparison of `methods` over `seeds` seeds."""

    def __init__(self, cfg: Config, methods, seeds: int, hub: Hub, watcher: str,
                 client: str | None = None):
        self.cfg, self.methods, self.seeds = cfg, tuple(methods), int(seeds)
        self.hub, self.watcher = hub, watcher
        self.key = hub.subscribe(cfg, watcher, job=compare_job(self.methods, self.seeds),
                                 client=client)  # its fair share is its client's, as Explore's
        self.error = ""  # a divergence's message once done (CompareStream.error)
        self._n = 0  # frames read so far
        self._by_seed: list[dict[str, list[dict]]] = []  # seed → method → rows (shared dicts)
        self._told: tuple[str, str] | None = None
        self._status: dict = hub.status(self.key)

    @property
    def T(self) -> int:  # noqa: N802 (the frame contract's name, as FrameStream.T)
        return self.cfg.T

    @property
    def done(self) -> bool:
        """Every seed finished (or one diverged) and every frame read."""
        return self._status["state"] == "done" and self._n >= self._status["n"]

    @property
    def started(self) -> bool:
        return self._n > 0

    @property
    def running(self) -> bool:
        return self.started and not self.done

    @property
    def finished(self) -> int:
        """Seeds finished so far."""
        final = (self._status["meta"] or {}).get("finished")
        if self.done and final is not None:
            return int(final)
        rows = next(iter(self._by_seed[-1].values()), []) if self._by_seed else []
        return max(0, len(self._by_seed) - 1) + (len(rows) > self.T)

    @property
    def t(self) -> int:
        """Steps taken by the shown seed (the running one, else the first)."""
        rows = next(iter(self._shown().values()), [])
        return int(rows[-1].get("step", len(rows) - 1)) if rows else 0

    def advance(self, budget_s: float | None = None) -> None:
        """Ask for the whole comparison and read the frames the hub has made since the last
        tick (the steps are taken by the hub's executor, not here). RunFailed when it failed."""
        self.hub.want(self.key, self.watcher, self.seeds * (self.T + 1))
        batch = self.hub.batch(self.key, self._n, BATCH)
        self._add(batch["frames"])
        self._status = self.hub.status(self.key)
        if self._status["state"] in ("failed", "gone"):
            raise RunFailed(self._status["error"] or batch["error"] or "the comparison stopped")
        if self.done:
            self.error = self._status["meta"].get("diverged") or ""

    def _add(self, frames: dict) -> None:
        """Append a batch's rows to their seeds (the row dicts are the hub's own: no copy)."""
        for seed, rows, told in zip(frames.get("seed", ()), frames.get("rows", ()),
                                    frames.get("told", ()), strict=True):
            while len(self._by_seed) <= seed:
                self._by_seed.append({m: [] for m in rows})
            for m, row in rows.items():
                self._by_seed[seed][m].append(row)
            if told is not None:
                self._told = tuple(told)
            self._n += 1

    def _shown(self) -> dict[str, list[dict]]:
        """The running seed's rows, else (done) the first seed's."""
        if not self._by_seed:
            return {}
        return self._by_seed[0] if self.done else self._by_seed[-1]

    def rows(self, start: int = 0, stop: int | None = None) -> dict[str, list[dict]]:
        return {m: r[start:stop] for m, r in self._shown().items()}

    def meta(self) -> dict:
        meta = self._status["meta"] or {}
        return {k: v for k, v in meta.items() if k not in ("report", "limits", "finished")}

    def narration(self) -> tuple[str, str] | None:
        return self._told

    def report(self, preset=None) -> dict:
        """The worker's report with the paper's numbers of preset beside ours."""
        out = copy.deepcopy(self._status["meta"]["report"])
        out["methods"] = with_paper(out["methods"], preset.paper if preset else None)
        out["preset"] = preset.name if preset else None
        return clean(out)

    def csv(self) -> str:
        """The first seed's per-step rows of every method as one CSV (a `method` column first)."""
        first = self._by_seed[0] if self._by_seed else {}
        return rows_csv([{"method": m, **row} for m, rows in first.items() for row in rows])

    def export_size(self) -> tuple[int, int]:
        first = self._by_seed[0] if self._by_seed else {}
        return (sum(len(r) for r in first.values()),
                max((len(r[-1]) for r in first.values() if r), default=0))

    def limits_start(self) -> None:
        """Nothing to start: the hub's worker solves the limits once the comparison is done."""

    def limits_pending(self) -> bool:
        st = self.hub.status(self.key)
        return (st["meta"] or {}).get("limits") is None and (
            st["state"] == "live" or st.get("limits_due", False))

    def limits(self) -> dict:
        """method → converged limit (once the worker sent them)."""
        lim = (self.hub.status(self.key)["meta"] or {}).get("limits") or {}
        return dict(lim.get("methods", {}))

    def close(self) -> None:
        """This session stops watching (the comparison stops if nobody else watches it)."""
        self.hub.leave(self.watcher)
