"""Limits in the report (methods.<m>.limit) and beside the T-step numbers in the CLI's table."""

from __future__ import annotations

import statistics

from ..method_table import LABELS

METRICS = (("test_acc", "Test %"), ("test_err", "Test err"), ("test_mse_ratio", "Test MSE/Var"))


def merge(per_seed: list[dict]) -> dict:
    """method → the first seed's limit, with each metric averaged over the seeds that have it and
    the worst certificate (per_seed keeps every seed's own)."""
    out: dict = {}
    for method in per_seed[0] if per_seed else ():
        runs = [s[method] for s in per_seed if s.get(method)]
        if not runs:
            continue
        entry = dict(runs[0])
        for key in [k for k in runs[0] if k.startswith(("test_", "train_"))]:
            vals = [r[key] for r in runs if r.get(key) is not None]
            entry[key] = statistics.fmean(vals) if vals else None
        certs = [r["certificate"] for r in runs if r.get("certificate") is not None]
        if certs:
            entry["certificate"] = max(certs)
            entry["converged"] = all(r.get("converged") for r in runs)
        entry["seconds"] = sum(r.get("seconds", 0.0) for r in runs)
        if len(runs) > 1:
            entry["per_seed"] = runs
        out[method] = entry
    return out


def attach(report: dict, limits: dict) -> dict:
    """Add methods.<m>.limit to a report (in place; returns it)."""
    for method, lim in limits.items():
        if method in report["methods"] and lim is not None:
            report["methods"][method]["limit"] = lim
    return report


def _cell(key: str, value) -> str:
    if value is None:
        return "NA"
    return f"{100 * value:.1f}" if key == "test_acc" else f"{value:.3f}"


def table(report: dict) -> str:
    """The T-step value and the converged limit side by side, per fixed-feature method."""
    methods = {m: e for m, e in report["methods"].items() if "limit" in e}
    if not methods:
        return ""
    key, title = next(((k, t) for k, t in METRICS
                       if any(e.get(k) is not None for e in methods.values())), METRICS[0])
    width = max(12, *(len(LABELS.get(m, m)) + 2 for m in methods))
    rows = [("", lambda m, e: LABELS.get(m, m)),
            (f"{title} at T", lambda m, e: _cell(key, e.get(key))),
            (f"{title} limit", lambda m, e: e["limit"].get("refused") and "refused"
             or _cell(key, e["limit"].get(key))),
            ("certificate", lambda m, e: _cert(e["limit"])),
            ("limit s", lambda m, e: f"{e['limit'].get('seconds', 0.0):.1f}")]
    lines = ["converged limits (the same objective solved to a certificate; engine/limits):"]
    for head, fn in rows:
        lines.append(f"{head:<18}" + "".join(f"{fn(m, e):>{width}}" for m, e in methods.items()))
    ridges = sorted({ridge_text(e["limit"]) for e in methods.values()} - {""})
    lines += [f"  ({r}: the method trains without decay; docs/limits.md)" for r in ridges]
    lines += [f"  {LABELS.get(m, m)} ridge path: {path_text(e['limit'])}"
              for m, e in methods.items() if e["limit"].get("path")]
    for m, e in methods.items():
        if e["limit"].get("refused"):
            lines.append(f"  {LABELS.get(m, m)}: no limit: {e['limit']['refused']}")
        elif not e["limit"].get("converged", True):
            lines.append(f"  {LABELS.get(m, m)}: NOT converged within {e['limit']['iterations']}"
                         " iterations (the number is a bound from below on the objective's gap)")
    return "\n".join(lines)


def ridge_text(lim: dict) -> str:
    """Which problem a no-decay method's limit is: 'λ → 0: max-margin' (its kind) or 'chosen
    ridge limit_ridge = 1e-06'; '' where the method's own decay defines it."""
    if not lim.get("tie_break"):
        return ""
    kind = lim.get("limit_kind", "")
    if kind.startswith("λ → 0"):
        return kind
    return "" if lim.get("ridge") is None else f"chosen ridge limit_ridge = {lim['ridge']:.0e}"


def path_text(lim: dict) -> str:
    """'1e-02 80.1 · 1e-03 84.0 · …' — the test value at each λ of the ridge path."""
    key = next((k for k, _ in METRICS if lim.get(k) is not None), "test_acc")
    return " · ".join(f"{p['ridge']:.0e} {_cell(key, p.get(key))}" for p in lim["path"])


def _cert(lim: dict) -> str:
    if lim.get("refused"):
        return "-"
    mark = "" if lim.get("converged") else "!"
    return f"{lim['certificate']:.0e}{mark}"
