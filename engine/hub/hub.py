"""The run hub: each distinct run (engine.hub.key) is computed once, by worker processes or on a
Ray cluster, and every session that watches it gets its frames.

A session subscribes with its setting; the first one starts the run, later ones join it and get
every frame so far at once. A run nobody watches stops; its frames stay in memory (least
recently used out, within the guard's FEX_HUB_MEMORY_MB) and, complete, on disk
(FEX_FRAME_CACHE) for the next lecture.
"""

from __future__ import annotations

import threading
import time
from collections import Counter

from .. import guard
from ..config import Config
from ..frames.procedure import lead
from . import memory, packing, store
from .budget import Budget, client_load
from .compare_job import JOB, run_estimate
from .key import canonical, run_key
from .metrics import numbers
from .slot import FACTORY

FIRST = 3  # frames computed before anyone asks: steps 0, 1 and 2 (Explore's Play → step 1)


class Hub:
    """Runs by key, their watchers, frames and executor."""

    def __init__(self, make_pool, cache: store.Path | None = None, first: int = FIRST):
        self.make_pool, self.cache, self.first = make_pool, cache, first
        self.pool = None
        self.runs: dict[str, store.HubRun] = {}
        self.watching: dict[str, str] = {}  # watcher -> key
        self.limits_due: set[str] = set()  # done runs whose worker still solves their limits
        self.lock = threading.RLock()
        self.counts = Counter()  # computed, steps, cache_hits
        self.budget = Budget()
        self.closed = False
        self.clients: dict[str, str] = {}  # watcher -> its client (fair share per client)
        self.measured = memory.Measured()  # the processes' real RSS, beside the tally
        # a run was dropped: a thread gives its memory back, outside the lock (memory.py)
        self.freed = threading.Event()
        # the batch each session was last served (freed ones: a fresh /proc read, a trim)
        self.payloads = memory.Payloads(self.measured, self.freed)
        threading.Thread(target=memory.trimmer, args=(self,), name="fex-hub-trim",
                         daemon=True).start()

    # ------------------------------------------------------------------ sessions' side

    def subscribe(self, cfg: Config, watcher: str, want: int | None = None,
                  job: dict | None = None, client: str | None = None) -> str:
        """Watch cfg's run (starting it if needed); its key. ConfigError when refused. job:
        a run that is not Explore's (compare_job: a Compare comparison; held in memory only).
        The fair share is per client (a session without one is its own client)."""
        key = run_key(cfg, job)
        with self.lock:
            held = key in self.runs or job is not None
            if not held and self.cache is not None:  # full: refused before reading the file
                self._admit(cfg, 0.0)
        # read outside the lock: a slow file must not stall the others (disk.py, store.py)
        body = None if held or self.cache is None else store.load(self.cache, key, cfg)
        with self.lock:
            run = self.runs.get(key)
            if run is None:  # a refusal raises here: the watcher keeps the run it had
                run = self._cached(cfg, key, body) or self._new(cfg, key, watcher, job,
                                                                client or watcher)
            elif watcher not in run.watchers:
                if watcher not in self.watching:  # a new session costs its pages' copies
                    self._admit(cfg, memory.reserve_mb(run.nbytes), keep=run)
                self.counts["cache_hits"] += run.state == "done"
                if run.crashed:  # a new watcher of a run whose worker died: try it again
                    run.state, run.error, run.crashed = "stopped", "", False
            if self.watching.get(watcher, key) != key:
                self._leave(watcher)
            if self.watching.get(watcher) != key:  # reserved until its first batch is served
                self.payloads.reserve(watcher, run.nbytes)
            run.watchers[watcher] = max(run.watchers.get(watcher, 0), want or self.first)
            self.watching[watcher] = key
            self.clients[watcher] = client or watcher
            self._touch(run)
            self._drive(run)
        return key

    def want(self, key: str, watcher: str, n: int) -> None:
        """The watcher's browser asks for n frames (step 0 included)."""
        with self.lock:
            run = self.runs.get(key)
            if run is not None and watcher in run.watchers:
                run.watchers[watcher] = max(run.watchers[watcher], int(n))
                self._drive(run)

    def leave(self, watcher: str) -> None:
        """The watcher is gone: a run nobody watches stops."""
        with self.lock:
            self._leave(watcher)

    def batch(self, key: str, start: int, limit: int = 200, watcher: str = "") -> dict:
        """The browser player's data: meta and frames start.. (at most limit), done, error.
        A watcher's batch is counted against the hub's memory until its next one."""
        with self.lock:
            run = self.runs.get(key)
            if run is None:
                return {"meta": None, "start": 0, "frames": packing.join([]), "done": True,
                        "error": "this run is no longer held; reload the page"}
            start = min(max(0, start), len(run.frames))
            frames = run.frames[start:start + limit]
            done = run.state in ("done", "failed") and start + len(frames) == len(run.frames)
            out = {"meta": run.meta, "start": start, "done": done, "error": run.error}
            schema = run.schema
        out["frames"] = packing.join(frames, schema)
        if watcher:
            size = memory.payload_bytes(out["frames"])
            with self.lock:
                if watcher in self.watching:
                    self.payloads.served(watcher, size)
        return out

    def status(self, key: str) -> dict:
        """{n, T, state, error, meta} of a run (n: frames held)."""
        with self.lock:
            run = self.runs.get(key)
            if run is None:
                return {"n": 0, "T": 0, "state": "gone", "error": "", "meta": None}
            return {"n": len(run.frames), "T": run.T, "state": run.state, "error": run.error,
                    "meta": run.meta, "target": run.target(self.first),
                    "limits_due": key in self.limits_due}

    def lease(self, cfg: Config, mb: float) -> int:
        """Admit a page's build (its downloads) of mb MB at its peak: a token; ResourceError."""
        with self.lock:
            self._admit(cfg, mb)
            return self.payloads.lease(int(mb * guard.MB))

    def unlease(self, token: int, watcher: str, kept_bytes: int) -> None:
        """The build ended: the files its session keeps count until the session leaves."""
        with self.lock:
            self.payloads.unlease(token, watcher in self.watching and watcher, kept_bytes)

    def start(self) -> None:
        """Start the executor now (workers import torch: seconds the first page need not wait)."""
        with self.lock:
            self._pool()

    # ------------------------------------------------------------------ bookkeeping

    def _leave(self, watcher: str) -> None:
        self.payloads.drop(watcher)
        self.clients.pop(watcher, None)
        key = self.watching.pop(watcher, None)
        run = self.runs.get(key) if key else None
        if run is None:
            return
        run.watchers.pop(watcher, None)
        if run.watchers:
            return
        if run.state == "live":
            self.pool.stop(key)
            run.state = "stopped"
        if run.state == "failed":  # a crashed run is not kept: the next watcher starts it anew
            self._drop(run)
        self._fit(0.0)

    def _new(self, cfg: Config, key: str, watcher: str = "", job: dict | None = None,
             client: str = "") -> store.HubRun:
        """A run not held anywhere: checked by the guard, sized into the hub (within the
        client's fair share), then started."""
        est = run_estimate(cfg, job)  # as the page's own check
        pool = self._pool()
        cost = est.memory_mb if self.budget.counts_runs(pool) else 0.0
        others = {w: k for w, k in self.watching.items() if w != watcher}  # its old run goes
        clients, held = client_load(self.runs, others, self.clients, client or watcher)
        self.budget.fair(cfg, est, cost, clients, self.budget.fixed_mb(pool), held)
        self._fit(cost)
        self.budget.admit(cfg, est, cost, self._used(pool))
        settings = {**cfg.to_dict(), JOB: job} if job else cfg.to_dict()
        run = store.HubRun(key, settings, canonical(cfg), cost)
        self.runs[key] = run
        return run

    def _cached(self, cfg: Config, key: str, body: dict | None) -> store.HubRun | None:
        """A complete run read from the disk cache (store.load, checked), or None."""
        if body is None:
            return None
        run = store.HubRun(key, cfg.to_dict(), canonical(cfg), meta=body["meta"], T=body["T"],
                           schema=body["schema"], state="done")
        run.add(0, body["frames"])
        # its frames count like a computed run's: a hall replaying from disk is held to the cap
        self._admit(cfg, run.nbytes / guard.MB + memory.reserve_mb(run.nbytes))  # + its pages
        self.runs[key] = run
        self.counts["cache_hits"] += 1
        return run

    def _admit(self, cfg: Config, cost: float, keep: store.HubRun | None = None) -> None:
        """ResourceError when `cost` MB more does not fit, unwatched frames (not keep's) dropped
        first."""
        self._fit(cost, keep)  # a replay starts no worker: without one only frames and pages count
        try:
            self.budget.admit(cfg, guard.estimate(cfg, methods=(lead(cfg),)), cost,
                              self._used(self.pool))
        except guard.ResourceError:
            self.freed.set()  # full: collect and trim now, freed pages may be all it takes
            raise

    def _drive(self, run: store.HubRun) -> None:
        """Start, restart or push on the run so that it computes what its watchers want."""
        target = run.target(self.first)
        if run.state == "stopped" and target > len(run.frames):
            self._pool().start(run.key, run.settings, target, len(run.frames))
            run.state, run.asked = "live", target
            self.counts["computed"] += 1
        elif run.state == "live" and target > run.asked:
            self.pool.until(run.key, target)
            run.asked = target

    def _touch(self, run: store.HubRun) -> None:
        run.touched = time.monotonic()
        self.runs[run.key] = self.runs.pop(run.key)  # dict order = least recently used first

    def _drop(self, run: store.HubRun) -> None:
        if self.runs.pop(run.key, None) is not None:
            self.freed.set()

    def _used(self, pool, untracked: float | None = None) -> float:
        """MB the hub holds: every run's frames, the live runs' compute, the workers, and the
        batch each session was last served (the web process's copies of it); plus what the
        processes really hold beyond that tally (memory.Measured)."""
        tally = self._tally(pool)
        return tally + (self.measured.beyond(pool, tally, self.payloads.pending_mb())
                        if untracked is None else untracked)

    def _tally(self, pool) -> float:
        frames = sum(r.nbytes for r in self.runs.values()) / guard.MB
        live = sum(r.estimate_mb for r in self.runs.values() if r.state == "live")
        return frames + live + self.payloads.mb() + self.budget.fixed_mb(pool)

    def _fit(self, extra_mb: float, keep: store.HubRun | None = None) -> None:
        """Drop unwatched runs' frames (not keep's), least recently used first, until extra_mb
        fits."""
        if self.pool is None:
            return
        cap = self.budget.cap()
        # held fixed while runs are dropped: the RSS falls only after the trim
        untracked = self.measured.beyond(self.pool, self._tally(self.pool),
                                         self.payloads.pending_mb())
        for run in [r for r in self.runs.values()
                    if not r.watchers and r.state != "live" and r is not keep]:
            if self._used(self.pool, untracked) + extra_mb <= cap:
                return
            self._drop(run)

    def _pool(self):
        self.pool = self.pool or self.make_pool(self._deliver, self._crashed)
        return self.pool

    # ------------------------------------------------------------------ executor's side

    def _deliver(self, msg: tuple) -> None:
        """A message from a worker or a Ray actor: meta, frames or the end of a run."""
        verb, key = msg[0], msg[1]
        frames = packing.split(msg[3]) if verb == "frames" and msg[3] is not None else []
        with self.lock:
            run = self.runs.get(key)
            if verb == "limits":  # after "done": the converged limits of its fixed curves
                self.limits_due.discard(key)
                if run is not None and run.meta is not None:
                    run.meta = {**run.meta, "limits": msg[2]}
                    self._save(run)  # written only now: the cached copy has its limits
                self.pool.finished(key)
                return
            if verb == "frames":
                self.counts["steps"] += msg[4]
            if run is None or run.state != "live":
                return  # stopped or dropped meanwhile: its worker has been told
            if verb == "meta" and run.meta is None:  # a restarted run keeps its first meta
                run.meta, run.T = msg[2], msg[3]  # (its player id: watchers' players go on)
            elif verb == "frames" and frames:
                run.schema = run.schema or packing.kinds(msg[3])
                run.add(msg[2], frames)
                self._fit(0.0)
            elif verb == "done":  # msg[3]: its limits follow, so its worker keeps it
                if len(msg) > 4 and run.meta is not None:  # a Compare run's report (compare_job)
                    run.meta = {**run.meta, **msg[4]}
                self._finish(run, msg[2], keep=len(msg) > 3 and bool(msg[3]))

    def _finish(self, run: store.HubRun, error: str, keep: bool = False) -> None:
        run.state, run.error = ("failed" if error else "done"), error
        if keep:  # saved when its limits come (a file without them would replay without)
            self.limits_due.add(run.key)
        else:
            self.pool.finished(run.key)
            self._save(run)

    def _save(self, run: store.HubRun) -> None:
        """Write a complete run to the disk cache in a thread (a failure is one log line)."""
        if run.complete and self.cache is not None and JOB not in run.settings:
            threading.Thread(target=store.save, args=(self.cache, run), daemon=True).start()

    def _crashed(self, keys: set[str], busy: str, exitcode) -> None:
        """A worker died: the run it was computing fails with one message to its watchers;
        its other runs start again elsewhere (their frames so far are kept)."""
        with self.lock:
            self.limits_due -= keys  # a done run's limits died with the worker: none come
            for key in keys:
                run = self.runs.get(key)
                if run is None or run.state != "live":
                    continue
                if key == busy or len(keys) == 1:
                    run.state, run.crashed = "failed", True
                    run.error = (f"The worker computing this run stopped (exit code {exitcode})"
                                 f"; the {len(run.frames)} frames computed so far stay. Change a "
                                 "setting or reload the page to start it again.")
                    if not run.watchers:
                        self._drop(run)
                else:
                    run.state = "stopped"
                    self._drive(run)

    # ------------------------------------------------------------------ operations

    def metrics(self) -> dict:
        """Counters and gauges for /metrics (engine.hub.metrics)."""
        with self.lock:
            return numbers(self)

    def close(self) -> None:
        """Stop the executor (the server is going down)."""
        with self.lock:
            pool, self.pool = self.pool, None
            self.closed = True
        if pool is not None:
            pool.close()


__all__ = ["Hub", "FIRST", "FACTORY"]
