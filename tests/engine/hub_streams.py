"""A cheap stand-in for engine.frames.FrameStream in the hub's bookkeeping tests (the hub is
what they test; tests/engine/test_hub_frames.py runs the hub on the real FrameStream)."""

from __future__ import annotations

import base64
import os
import time

import numpy as np

STEP_S = 0.01  # a step's compute


class CountStream:
    """Frame i: step i and two int16 points drawn from (seed, i): deterministic, cheap."""

    def __init__(self, cfg, device: str = "cpu"):
        self.T, self.seed, self.error, self._n = cfg.T, cfg.seed, "", 1

    @property
    def done(self) -> bool:
        return self._n == self.T + 1

    def __len__(self) -> int:
        return self._n

    def advance(self, budget_s=None, until=None) -> int:
        t0, taken = time.perf_counter(), 0
        while not self.done and (until is None or self._n < until):
            time.sleep(STEP_S)
            self._n += 1
            taken += 1
            if budget_s is not None and time.perf_counter() - t0 > budget_s:
                break
        return taken

    def meta(self) -> dict:
        return {"run": f"count-{self.seed}", "T": self.T, "neurons": 2, "points": 2}

    def limits(self) -> None:
        """No fixed-feature curve: no converged limits (FrameStream.limits)."""
        return None

    def frames(self, start: int, stop: int) -> dict:
        stop = min(stop, self._n)
        pos = [np.random.default_rng([self.seed, i]).integers(-999, 999, 4).astype("<i2")
               for i in range(start, stop)]
        raw = np.concatenate(pos).tobytes() if pos else b""
        return {"step": list(range(start, stop)), "text": [f"step {i}" for i in range(start, stop)],
                "pos": base64.b64encode(raw).decode("ascii")}


class LimitStream(CountStream):
    """A CountStream whose chart has limit curves, solved LIMITS_S after the run is done (the
    order FrameStream's background thread gives: "done" first, the limits after)."""

    LIMITS_S = 1.0

    def __init__(self, cfg, device: str = "cpu"):
        super().__init__(cfg, device)
        self._done_at = None

    def meta(self) -> dict:
        return {**super().meta(), "limit_curves": True}

    def limits(self) -> dict | None:
        if not self.done:
            return {"pending": True, "lines": []}
        self._done_at = self._done_at or time.monotonic()
        if time.monotonic() - self._done_at < self.LIMITS_S:
            return {"pending": True, "lines": []}
        return {"pending": False, "lines": [{"curve": "test", "value": 0.5}]}

    def wait_limits(self, timeout: float) -> None:
        time.sleep(min(timeout, 0.1))


class EnvStream(CountStream):
    """A CountStream whose meta says the worker's FEX_TEST_PROBE and its own and parent pids."""

    def meta(self) -> dict:
        return {**super().meta(), "probe": os.environ.get("FEX_TEST_PROBE", ""),
                "pid": os.getpid(), "ppid": os.getppid()}
