"""What the procedures' own runs share (the run protocol's bookkeeping): t of T steps and a
history that starts with step 0's snapshot."""

from __future__ import annotations

import time


class Stepped:
    """A run of T steps counted by t; its subclass records a snapshot in `_record()`."""

    T: int
    t: int

    def _begin(self) -> None:
        """Start the clock and the history with step 0's snapshot."""
        self.history: list = []
        self._t0 = time.perf_counter()
        self._record()

    def _record(self):
        raise NotImplementedError

    @property
    def done(self) -> bool:
        """True once T steps have been taken."""
        return self.t >= self.T
