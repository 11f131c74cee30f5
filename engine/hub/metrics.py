"""The hub's numbers in Prometheus' text exposition format (served at /metrics by asgi.py)."""

from __future__ import annotations

from collections import Counter

HELP = (  # name, type, help, key in Hub.metrics()
    ("fex_sessions", "gauge", "Browser sessions connected to the server", "sessions"),
    ("fex_runs_live", "gauge", "Runs being computed now", "runs_live"),
    ("fex_runs_cached", "gauge", "Runs held in memory and not being computed", "runs_cached"),
    ("fex_runs_computed_total", "counter", "Runs started on an executor", "runs_computed_total"),
    ("fex_steps_computed_total", "counter", "Frames computed by the executors",
     "steps_computed_total"),
    ("fex_cache_hits_total", "counter", "Subscriptions served by a complete run already held "
     "(memory or FEX_FRAME_CACHE)", "cache_hits_total"),
    ("fex_queue_length", "gauge", "Runs waiting behind another run on their worker",
     "queue_length"),
    ("fex_hub_memory_mb", "gauge", "Memory the hub counts against FEX_HUB_MEMORY_MB", "memory_mb"),
)


def numbers(hub) -> dict:
    """Hub.metrics()'s counters and gauges (the caller holds the hub's lock)."""
    states = Counter(r.state for r in hub.runs.values())
    pool = hub.pool
    return {"sessions": len(hub.watching), "runs_live": states["live"],
            "runs_cached": len(hub.runs) - states["live"],
            "runs_computed_total": hub.counts["computed"],
            "steps_computed_total": hub.counts["steps"],
            "cache_hits_total": hub.counts["cache_hits"],
            "queue_length": pool.queued() if pool else 0,
            "workers": pool.size if pool else 0,
            "executor": pool.executor if pool else hub.budget.executor(),
            "memory_mb": hub._used(pool) if pool else 0.0,
            "memory_cap_mb": hub.budget.cap()}


def prometheus(numbers: dict) -> str:
    """Text format 0.0.4: HELP and TYPE lines, one sample per metric, fex_workers labelled."""
    lines = []
    for name, kind, text, key in HELP:
        lines += [f"# HELP {name} {text}", f"# TYPE {name} {kind}",
                  f"{name} {_number(numbers.get(key, 0))}"]
    executor = numbers.get("executor", "local")
    lines += ["# HELP fex_workers Executors computing runs (local processes or Ray)",
              "# TYPE fex_workers gauge"]
    for name in ("local", "ray"):
        count = numbers.get("workers", 0) if name == executor else 0
        lines.append(f'fex_workers{{executor="{name}"}} {_number(count)}')
    return "\n".join(lines) + "\n"


def _number(value) -> str:
    return f"{value:.1f}" if isinstance(value, float) else str(int(value))
