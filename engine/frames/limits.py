"""The converged limits (engine/limits) of the fixed-feature curves Explore draws, made in a
background thread once the run is done, so that no step and no frame waits for them; the
player draws each as a dashed level in its method's colour labelled "converged limit"."""

from __future__ import annotations

import atexit
import math
import threading
from dataclasses import dataclass

from ..limits import limit_of
from ..limits.problem import CANCEL

# the number a limit is drawn at, in the order the chart's score prefers it
KEYS = ("test_err", "test_acc", "test_mse_ratio")
_THREADS: list[threading.Thread] = []


@dataclass(frozen=True)
class Curve:
    """One fixed-feature curve of Explore's chart: its method, label, colour, slot, run."""

    method: str
    name: str
    colour: str
    slot: int  # its column in the chart's series (the AZL chart: its place in `errs`)
    run: object


class LimitJob:
    """The limits of some curves, solved one after another in a daemon thread."""

    def __init__(self, curves: list[Curve]):
        self.curves, self.results = curves, {}
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        """Begin (once; returns at once)."""
        if self.thread is None:
            self.thread = threading.Thread(target=self._work, daemon=True,
                                           name="explore-limits")
            _THREADS.append(self.thread)
            self.thread.start()

    def wait(self, timeout: float) -> None:
        """Block at most `timeout` seconds for the thread (a hub worker's turn)."""
        if self.thread is not None:
            self.thread.join(timeout)

    @property
    def pending(self) -> bool:
        """True until every curve's limit is in (or the run never finished)."""
        return self.thread is None or self.thread.is_alive()

    def _work(self) -> None:
        for c in self.curves:
            try:
                lim = limit_of(c.run)
            except (RuntimeError, ValueError, MemoryError) as err:  # shown, never raised here
                lim = {"refused": f"{type(err).__name__}: {err}"}
            if lim is not None:
                self.results[c.method] = lim

    def payload(self) -> dict:
        """JSON-able: {"pending", "lines": [{method, name, colour, slot, key, value,
        certificate, certificate_kind, converged, ridge, refused}]} of the limits so far."""
        lines = [line(c, self.results[c.method]) for c in self.curves if c.method in self.results]
        return {"pending": self.pending, "lines": lines}


def line(curve: Curve, lim: dict) -> dict:
    """One limit as the player reads it (value None: refused, with the reason)."""
    key = next((k for k in KEYS if lim.get(k) is not None), None)
    value = lim.get(key) if key else None
    ok = value is not None and math.isfinite(value)
    return {"method": curve.method, "name": curve.name, "colour": curve.colour,
            "slot": curve.slot, "key": key, "value": float(value) if ok else None,
            "certificate": lim.get("certificate"),
            "certificate_kind": lim.get("certificate_kind"),
            "converged": bool(lim.get("converged", False)),
            "ridge": lim.get("ridge") if lim.get("tie_break") else None,
            "refused": lim.get("refused")}


@atexit.register
def _stop() -> None:
    """At exit: stop the solvers and wait (a thread still inside torch aborts the process)."""
    CANCEL.set()
    for thread in _THREADS:
        thread.join(timeout=30)
