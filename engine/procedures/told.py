"""What Compare's table and the CLI's table say about one run, from the record and the run's
world: a record's title and intro may depend on the setting (a world that reads no `structure`
is told no "without structure" words), a row only where some method measured it (no cosine
where the world plants no Σ_A M), and legend groups only where two of them hold trained methods."""

from __future__ import annotations

from collections.abc import Callable

from .. import scenarios

NO_TRUTH = "no Cos row: this world plants no Σ_A M to take a cosine with"


def reads_structure(cfg) -> bool:
    """Whether the run's world reads the `structure` setting (its record's `common`)."""
    return scenarios.reads_common(scenarios.world(cfg), "structure")


def said(text: str | Callable, cfg, truth: bool | None = None) -> str:
    """A table's title or intro: the text, or the record's words for this setting and world
    (truth: whether the world plants Σ_A M; None where not known yet)."""
    return text(cfg, truth) if callable(text) else text


def shown_rows(rows, entries) -> tuple:
    """The table's (key, title) rows that some method measured: a run on a world with no
    planted Σ_A M reports no cosine (None), and its table then has no Cos row (NO_TRUTH)."""
    entries = list(entries)
    return tuple(r for r in rows if any(e.get(r[0]) is not None for e in entries))


def why_not(every, shown, truth: bool | None) -> str:
    """Why the table has no Cos row (NO_TRUTH), or "" where it has one or none was declared."""
    dropped = "cos" in dict(every) and "cos" not in dict(shown)
    return NO_TRUTH if dropped and truth is False else ""


def shown_groups(groups, methods) -> tuple:
    """The legend groups that hold one of the methods; () where fewer than two do (one group's
    title, e.g. "With input structure", would be a claim about nothing)."""
    held = tuple((t, g) for t, g in groups if any(m in g for m in methods))
    return held if len(held) > 1 else ()


def report_truth(runs: dict) -> bool | None:
    """Whether the runs' world plants Σ_A M (None: no run knows its world)."""
    for run in runs.values():
        ds = getattr(getattr(run, "world", None), "ds", None)
        if ds is not None:
            return bool(ds.has_truth)
    return None
