"""Where units run: worker processes on this machine (local) or tasks on a Ray cluster (ray).

Both call the same runner.run_unit on the same unit dicts, and every unit fixes its torch
thread count, so the same seeds give the same numbers on either executor.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed

from ..config import ConfigError
from .ray_join import connect
from .runner import run_unit

EXECUTORS = ("local", "ray")
PR_SET_PDEATHSIG = 1  # linux/prctl.h
PARENT_POLL_S = 1.0


def run_local(units: list[dict], workers: int = 1) -> Iterator[list[dict]]:
    """Yield each unit's rows as it finishes; workers = 1 runs in this process."""
    if workers <= 1 or len(units) <= 1:
        for unit in units:
            yield run_unit(unit)
        return
    # spawn, not fork: a forked child inherits torch's thread pools in an undefined state
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=die_with_parent,
                             initargs=(os.getpid(),)) as pool:
        futures = [pool.submit(run_unit, u) for u in units]
        try:
            for fut in as_completed(futures):
                yield fut.result()
        except BaseException:
            for fut in futures:
                fut.cancel()
            raise


def die_with_parent(parent: int) -> None:
    """In a worker: be killed when the sweep's process dies, even by kill -9 (issue 30: two
    workers of 430 MB and the resource tracker outlived it by minutes). Linux's
    PR_SET_PDEATHSIG where there is one, and a thread watching the parent everywhere."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the watch below still ends the worker
        pass
    if os.getppid() != parent:  # it died before prctl took effect
        os._exit(1)
    threading.Thread(target=_watch, args=(parent,), daemon=True, name="parent-watch").start()


def _watch(parent: int) -> None:
    """Exit this worker once its parent is gone (its parent pid changes on re-parenting)."""
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_S)
    os._exit(1)


def run_ray(units: list[dict], address: str | None = None) -> Iterator[list[dict]]:
    """Submit every unit as a Ray task (one GPU each where the cluster has GPUs)."""
    ray = connect(address)
    gpus = 1 if ray.cluster_resources().get("GPU", 0) >= 1 else 0
    task = ray.remote(num_cpus=1, num_gpus=gpus, max_retries=1)(run_unit)
    pending = [task.remote(u) for u in units]
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])
    except BaseException:
        for ref in pending:
            ray.cancel(ref, force=True)
        raise


def executor(name: str, workers: int = 1, address: str | None = None
             ) -> Callable[[list[dict]], Iterator[list[dict]]]:
    """The chosen executor as a function units → iterator of row lists."""
    if name == "local":
        return lambda units: run_local(units, workers)
    if name == "ray":
        connect(address)  # before any work: Ray missing or no cluster is a one-line error
        return lambda units: run_ray(units, address)
    raise ConfigError("--executor", name, "one of " + ", ".join(EXECUTORS))
