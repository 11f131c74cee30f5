"""The converged limits of finished runs, computed in a background thread so no view waits for
them (Compare starts them once its seeds are done; engine.frames.compare.CompareStream holds the
key and the runs, so the UI never passes runs)."""

from __future__ import annotations

import atexit
import threading

from . import limit_of
from .problem import CANCEL

_JOBS: dict[int, tuple] = {}  # id(owner) → (owner, thread, results); the owner keeps the id unique
KEEP = 8


def start(owner, runs: dict) -> None:
    """Begin computing the limits of these finished runs for owner (once; returns at once)."""
    if id(owner) in _JOBS and _JOBS[id(owner)][0] is owner:
        return
    while len(_JOBS) >= KEEP:
        _JOBS.pop(next(iter(_JOBS)))
    results: dict = {}
    thread = threading.Thread(target=_work, args=(dict(runs), results), daemon=True,
                              name="converged-limits")
    _JOBS[id(owner)] = (owner, thread, results)
    thread.start()


@atexit.register
def _stop() -> None:
    """At exit: stop the solvers and wait for their threads (one still inside torch while the
    interpreter shuts down aborts the process)."""
    CANCEL.set()
    for _, thread, _ in list(_JOBS.values()):
        thread.join(timeout=30)


def _work(runs: dict, results: dict) -> None:
    for method, run in runs.items():
        try:
            lim = limit_of(run)
        except (RuntimeError, ValueError, MemoryError) as err:  # shown, never raised in a thread
            lim = {"refused": f"{type(err).__name__}: {err}"}
        if lim is not None:
            results[method] = lim


def ready(owner) -> dict:
    """method → limit of those computed so far for owner (empty before start)."""
    job = _JOBS.get(id(owner))
    return {} if job is None or job[0] is not owner else dict(job[2])


def pending(owner) -> bool:
    """True while the background thread for owner still works."""
    job = _JOBS.get(id(owner))
    return job is not None and job[0] is owner and job[1].is_alive()
