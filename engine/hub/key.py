"""The identity of a run: its procedure, every setting its world reads, its seed, the code.

A run is a deterministic function of these (per-run generators, no global RNG), so two sessions
with the same key watch the same frames and the hub computes them once.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

from ..config import Config
from ..procedures import procedure_of
from ..reads import unread_reason

ENGINE = Path(__file__).resolve().parent.parent


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """A digest of the engine's source: a change of code is a different run."""
    h = hashlib.sha256()
    for path in sorted(ENGINE.rglob("*.py")):
        h.update(str(path.relative_to(ENGINE)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def canonical(cfg: Config) -> dict:
    """The settings the run reads (procedure resolved, seed included), in a fixed order."""
    out = {k: v for k, v in cfg.to_dict().items() if unread_reason(k, cfg) is None}
    out["procedure"] = procedure_of(cfg).name
    return dict(sorted(out.items()))


def run_key(cfg: Config, job: dict | None = None) -> str:
    """32 hex digits naming (procedure, read settings, seed, code version; the job, e.g. a
    Compare run's methods and seeds, when not Explore's run)."""
    named = {"settings": canonical(cfg), "code": code_version()}
    text = json.dumps({**named, "job": job} if job else named, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]
