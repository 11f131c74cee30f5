"""Where units run: worker processes on this machine (local) or tasks on a Ray cluster (ray).

Both call the same runner.run_unit on the same unit dicts, and every unit fixes its torch
thread count, so the same seeds give the same numbers on either executor.
"""

from __future__ import annotations

import importlib.util
import multiprocessing
import socket
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed

from ..config import ConfigError
from ..echo import plain
from .runner import ENGINE, run_unit

EXECUTORS = ("local", "ray")
CONNECT_TIMEOUT_S = 10.0  # a cluster head answers a TCP connect at once


def run_local(units: list[dict], workers: int = 1) -> Iterator[list[dict]]:
    """Yield each unit's rows as it finishes; workers = 1 runs in this process."""
    if workers <= 1 or len(units) <= 1:
        for unit in units:
            yield run_unit(unit)
        return
    # spawn, not fork: a forked child inherits torch's thread pools in an undefined state
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        futures = [pool.submit(run_unit, u) for u in units]
        try:
            for fut in as_completed(futures):
                yield fut.result()
        except BaseException:
            for fut in futures:
                fut.cancel()
            raise


def import_ray():
    """The ray module, or a one-line ConfigError saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ConfigError("--executor", "ray", "local, or install Ray first: pip install "
                          "'ray==2.60.0' (see requirements-test.txt)") from None
    return ray


def check_address(address: str | None, timeout_s: float = CONNECT_TIMEOUT_S) -> None:
    """ConfigError in at most timeout_s for an address no Ray cluster can answer at: Ray itself
    retries a dead address for minutes. ray:// needs the ray[client] extra (grpcio)."""
    if address in (None, "auto", "local"):
        return
    if address.startswith("ray://"):
        if importlib.util.find_spec("grpc") is None:
            raise ConfigError("--address", address, "auto or HOST:PORT of a cluster head; "
                              "ray:// needs Ray's client: pip install 'ray[client]==2.60.0'")
        hostport = address[len("ray://"):]
    else:
        hostport = address
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError("--address", address, "auto, HOST:PORT or ray://HOST:10001")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s).close()
    except OSError as err:
        raise ConfigError("--address", address, f"a reachable Ray cluster (no answer at "
                          f"{plain(hostport, 80)} within {timeout_s:g} s: "
                          f"{plain(err.strerror or type(err).__name__, 60)})") from None


def connect(address: str | None = None):
    """Join (or start) the Ray cluster; a one-line ConfigError when there is none to join."""
    ray = import_ray()
    if ray.is_initialized():
        return ray
    check_address(address)
    try:
        # the engine package travels with the job; torch and numpy must be on the cluster
        # (the project's Docker image has both; README "Sweeps")
        ray.init(address=address, runtime_env={"py_modules": [str(ENGINE)]},
                 log_to_driver=False)
    except (ConnectionError, RuntimeError, ValueError) as err:
        raise ConfigError("--address", address, "auto (a Ray cluster this machine belongs to) "
                          "or ray://HOST:10001 of a reachable cluster; Ray said: "
                          f"{str(err).splitlines()[0][:160]}") from None
    return ray


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
