"""Reproduce cards: each fixed-feature method's converged limit (engine/limits) beside its T-step
value, read from the stored results (docs/results/*.json, `limit` per method), or a visible note
that the stored file was made before limits existed and how to get them."""

from __future__ import annotations

from engine.procedures import RECORDS

# every procedure's fixed-feature methods (a readout on features that never move, or a
# linearised model): the flags of its record's methods
FIXED = {m.name for r in RECORDS.values() for m in r.methods if m.frozen or m.linearised}
ROW = "Test % · converged limit (ours)"


def fixed_feature(method: str) -> bool:
    """Whether the method trains a readout on features that never move (it has a limit)."""
    return method in FIXED


def not_stored(preset: str) -> str:
    """The note under a card whose stored numbers have no limits."""
    return (f"limit: not stored — run `python -m engine run --preset {preset}` (it computes "
            "each fixed-feature method's converged limit beside its T-step value)")


def limit_cell(entry: dict, method: str, key: str, fmt, short: bool = False) -> str:
    """One method's limit as a table cell: fmt(value) and its certificate (short: the value
    alone, for a narrow card; `caption` gives the certificates), 'refused', 'not stored' (a
    fixed-feature method in a file made before limits), '—' (not fixed-feature)."""
    lim = entry.get("limit")
    if lim is None:
        return "not stored" if fixed_feature(method) else "—"
    if lim.get("refused"):
        return "refused" if short else "refused (too large to solve)"
    if lim.get(key) is None:
        return "NA"
    mark = "" if lim.get("converged", True) else ", NOT converged"
    return fmt(lim[key]) + ("" if short else f" (cert. {lim['certificate']:.0e}{mark})")


def caption(methods: dict) -> str:
    """Under a card with short limit cells: the worst certificate, what 'refused' means."""
    certs = [e["limit"]["certificate"] for e in methods.values()
             if e.get("limit") and e["limit"].get("certificate") is not None]
    worst = f" to a certificate ≤ {max(certs):.0e}" if certs else ""
    return (f"Converged limit (ours): each fixed-feature readout solved{worst}; refused: too "
            "large to solve on this machine (docs/limits.md).")


def missing(methods: dict) -> bool:
    """Whether some fixed-feature method of a stored entry lacks its limit."""
    return any(fixed_feature(m) and "limit" not in e for m, e in methods.items())


def stored_any(methods: dict) -> bool:
    """Whether a stored entry holds any limit."""
    return any("limit" in e for e in methods.values())
