"""A page sweep on the run hub (issue 37): trained by the hub's workers (or Ray), admitted by the
guard and the client's fair share, its rows counted against FEX_HUB_MEMORY_MB and shared by every
session asking the same sweep; the session only writes the rows it reads into an in-memory store.
With FEX_WORKERS=0 (no hub) ui/sweep_run.py trains it in the session as before."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from engine.hub import get_hub
from engine.hub.sweep import run_on_hub
from engine.sweep import Store, SweepSpec
from engine.sweep.runner import git_describe
from ui.sessions import client_id, watcher_id

SWEEP = ":sweep"  # a session watches its Explore run, its Compare run and its page sweep
TMP_PREFIX = "fex-sweep-"  # page sweeps' temporary folders (ui/sweep_run.py removes old ones)


def sweep_watcher() -> str:
    """This session's Sweeps page's name in the run hub."""
    return watcher_id() + SWEEP


def store_bytes(spec: SweepSpec, rows: list[dict]) -> tuple[int, bytes]:
    """(rows written, the bytes of a store holding them) as run_sweep would have written them;
    the temporary folder is removed at once."""
    with tempfile.TemporaryDirectory(prefix=TMP_PREFIX) as tmp:
        store = Store(Path(tmp) / "page.sqlite")
        try:
            store.prepare(spec.to_dict(), spec.names(), spec.settings()[0], git_describe())
            written = store.write(rows)
        finally:
            store.close()
        return written, store.path.read_bytes()


def run_hub(spec: SweepSpec, tick) -> tuple[dict, bytes]:
    """Run the sweep on the hub, tick(done, units) as units arrive; (the result run_sweep
    would give, the store's bytes). ConfigError (one line) when refused or failed."""
    t0 = time.perf_counter()
    sweep = run_on_hub(spec, get_hub(), sweep_watcher(), client_id(), tick)
    written, data = store_bytes(spec, sweep.rows)
    return {"rows": len(sweep.rows), "written": written, "units": sweep.units,
            "seconds": time.perf_counter() - t0}, data
