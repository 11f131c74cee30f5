"""The guard's share of the hub: how much memory it may hold, and a clear refusal when full.

The hub holds every run's frames (in this process) and, with local workers, the runs being
computed (in the workers, each about its engine.guard estimate) and the workers themselves.
On Ray the runs live on the cluster, so only the frames count here.
"""

from __future__ import annotations

import os

from .. import guard
from ..config import Config, ConfigError

LIMIT = "FEX_HUB_MEMORY_MB"
DEFAULT_MB = 2560.0  # a 4 GB host: the web process (~300 MB) and some room beside the hub
MAX_WORKERS = 64
WORKER_SHARE = 0.6
# a session may always start a run this large (the paper's default is estimated at 163 MB);
# above it, at most its fair share of the hub: two sessions filled 2 343 of 2 560 MB and every
# later small setting was refused (issue 38)
FLOOR_MB = 192.0


def workers_setting(cores: int | None = None) -> int:
    """FEX_WORKERS, or the machine's cores (one torch thread per worker); 0: no hub, each
    session computes its own run in the web process (one person's machine, the UI tests)."""
    raw = os.environ.get("FEX_WORKERS", "").strip()
    if not raw:
        # workers are ~400 MB each before any run: at most 60 % of the hub's memory for them,
        # so that a 16-core host with the default limit still has room for runs
        fit = int(WORKER_SHARE * Budget().cap() // guard.WORKER_MB)
        return max(1, min(MAX_WORKERS, fit, cores or os.cpu_count() or 1))
    if not raw.isascii() or not raw.isdigit() or not 0 <= int(raw) <= MAX_WORKERS:
        raise ConfigError("FEX_WORKERS", raw, f"a whole number from 0 (no hub: each session "
                                              f"computes its own run) to {MAX_WORKERS} "
                                              "(server setting)")
    return int(raw)


def hub_enabled() -> bool:
    """Whether Explore's runs go through the hub (FEX_WORKERS is not 0, or Ray is set)."""
    return bool(os.environ.get("FEX_RAY_ADDRESS", "").strip()) or workers_setting() > 0


def env_mb(name: str, default: float) -> float:
    """A server setting in MB from the environment (default when unset); one-line ConfigError
    for anything but a positive finite number."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise ConfigError(name, raw, "a positive number of MB (server setting)")
    return value


class Budget:
    """FEX_HUB_MEMORY_MB and what counts against it."""

    def cap(self) -> float:
        return env_mb(LIMIT, DEFAULT_MB)

    @staticmethod
    def executor() -> str:
        return "ray" if os.environ.get("FEX_RAY_ADDRESS", "").strip() else "local"

    @staticmethod
    def counts_runs(pool) -> bool:
        """Whether runs being computed use this machine's memory (local workers)."""
        return pool.executor == "local"

    def fixed_mb(self, pool) -> float:
        """The worker processes themselves (an interpreter with torch each)."""
        if pool is None:  # not started yet
            return 0.0
        return pool.size * guard.WORKER_MB if self.counts_runs(pool) else 0.0

    def admit(self, cfg: Config, est: guard.Estimate, cost: float, used: float) -> None:
        """ResourceError naming the setting to reduce when a new run does not fit."""
        cap = self.cap()
        if used + cost <= cap:
            return
        name = guard._largest_knob(cfg, est)  # the same knob the per-run refusal names
        raise guard.ResourceError(
            name, getattr(cfg, name),
            f"a run the server already holds, or a smaller setting, or again in a minute: the "
            f"server is full (its runs and frames hold about {used:.0f} MB, this run needs "
            f"{cost:.0f} MB more, {cap:g} MB allowed by {LIMIT})")

    def fair(self, cfg: Config, est: guard.Estimate, cost: float, clients: int,
             fixed: float, held: float = 0.0) -> None:
        """ResourceError when a run needs more than one client's share: the memory beside the
        workers, less one newcomer's FLOOR_MB, split among the clients watching runs (itself
        included), at least FLOOR_MB, less what the client's other sessions already hold: a
        few clients (or one client's many connections) cannot leave the hub full for everyone."""
        share = max((self.cap() - fixed - FLOOR_MB) / max(1, clients), FLOOR_MB)
        if held + cost <= share:
            return
        name = guard._largest_knob(cfg, est)
        raise guard.ResourceError(
            name, getattr(cfg, name),
            f"a smaller setting, or a run the server already holds: this run needs {cost:.0f} "
            f"MB{f' beside the {held:.0f} MB your other pages hold' if held else ''}, more "
            f"than one client's share ({share:.0f} MB: {LIMIT} shared by the {clients} "
            f"clients watching runs)")


def client_load(runs: dict, watching: dict, clients: dict, client: str) -> tuple[int, float]:
    """(clients watching runs, this one included; MB held by runs that only this client's
    sessions watch: their frames and, while computed, their estimate). A session without a
    client id is a client of its own."""
    of = {w: clients.get(w, w) for w in watching}
    held = 0.0
    for run in runs.values():
        owners = {of[w] for w in run.watchers if w in of}  # not the session asking now
        if owners == {client}:
            held += run.nbytes / guard.MB + (run.estimate_mb if run.state == "live" else 0.0)
    return len(set(of.values()) | {client}), held
