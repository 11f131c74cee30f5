"""Converged limits (engine/limits) on the pages: computed in a background thread once a
comparison has finished (CompareStream.limits_start, engine/limits/background.py), so no view
waits for them; drawn as a dashed line per fixed-feature method in its colour ("converged
limit") and added to the tables beside the T-step value."""

from __future__ import annotations

import plotly.graph_objects as go

from engine.limits.show import ridge_text
from engine.methods import BY_NAME, LABELS
from engine.report import cell

KEYS = (("test_acc", "Test %"), ("test_err", "Test err"), ("test_mse_ratio", "Test MSE/Var"))


def value(lim: dict) -> tuple[str, float] | None:
    """(key, number) a limit is drawn at: test accuracy, AZL's test error or MSE / Var(y)."""
    for key, _ in KEYS:
        if lim.get(key) is not None:
            return key, lim[key]
    return None


def add_lines(fig: go.Figure, limits: dict, T: int) -> go.Figure:
    """A dashed horizontal line per limit, in the method's colour, labelled 'converged limit'."""
    for method, lim in limits.items():
        got = value(lim)
        if got is None:
            continue
        info = BY_NAME.get(method)
        color = info.color if info is not None else "#777777"
        label = LABELS.get(method, method)
        fig.add_trace(go.Scatter(
            x=[0, max(T, 2)], y=[got[1], got[1]], mode="lines+text",
            line={"color": color, "dash": "dash", "width": 1.5},
            name=f"{label}: converged limit", legendgroup=method, meta="converged limit",
            hovertemplate=f"{label} converged limit: %{{y:.4g}}<extra></extra>"))
        # the label sits right of the plot area (paper x > 1), never on a curve
        fig.add_annotation(x=1.0, xref="paper", xanchor="left", y=got[1], yref="y",
                           text=f"{label} limit", showarrow=False,
                           font={"color": color, "size": 11})
        fig.update_layout(margin={"r": 120})  # room for the labels right of the plot
    return fig


def path_figure(limits: dict, labels: dict | None = None) -> go.Figure | None:
    """Test value against the ridge λ (log axis, 1e-2 … 1e-8) per method whose limit is λ → 0,
    the chosen limit marked at the path's small end; None when no limit has a path."""
    labels = LABELS if labels is None else labels
    fig = go.Figure()
    for method, lim in limits.items():
        path, got = lim.get("path"), value(lim)
        if not path or got is None:
            continue
        key, scale = got[0], 100.0 if got[0] == "test_acc" else 1.0
        info = BY_NAME.get(method)
        color = info.color if info is not None else "#777777"
        label = labels.get(method, method)
        pts = [p for p in path if p.get(key) is not None]
        fig.add_trace(go.Scatter(
            x=[p["ridge"] for p in pts], y=[scale * p[key] for p in pts], mode="lines+markers",
            line={"color": color}, name=f"{label}: ridge path", legendgroup=method,
            hovertemplate=f"{label} λ = %{{x:.0e}}: %{{y:.4g}}<extra></extra>"))
        end = min(p["ridge"] for p in pts) if pts else 1e-8
        fig.add_trace(go.Scatter(
            x=[end / 3], y=[scale * got[1]], mode="markers", legendgroup=method,
            marker={"color": color, "symbol": "star", "size": 14},
            name=f"{label}: {lim.get('limit_kind', 'limit')}",
            hovertemplate=f"{label} limit: %{{y:.4g}}<extra></extra>"))
    if not fig.data:
        return None
    title = {"test_acc": "test accuracy %", "test_err": "test error"}.get(key, "test MSE / Var(y)")
    fig.update_layout(height=300, margin={"l": 50, "r": 10, "t": 30, "b": 40},
                      title={"text": "Converged limit along the ridge path (★: λ → 0)",
                             "font": {"size": 13}},
                      xaxis={"type": "log", "title": "ridge λ", "autorange": "reversed"},
                      yaxis={"title": title})
    return fig


def cells(entry: dict, key: str, title: str) -> dict[str, str]:
    """The limit's table cells for one method: its value and certificate (or why none)."""
    lim = entry.get("limit")
    if not lim:
        return {}
    if lim.get("refused"):
        return {f"{title} · converged limit": "refused", "Limit certificate": lim["refused"]}
    if lim.get(key) is None:
        return {}
    mark = "" if lim.get("converged") else " (not converged)"
    ridge = ridge_text(lim)  # the setting that picks one minimiser, where the limit adds it
    return {f"{title} · converged limit": cell(key, lim[key]),
            "Limit certificate": f"{lim['certificate']:.0e} {lim['certificate_kind']}{mark}"
                                 + (f" · {ridge}" if ridge else "")}


def headline(methods: dict, key: str, labels: dict | None = None) -> tuple[str, str, str] | None:
    """('Network − best limit', gap, detail): the network against the best converged limit of
    any fixed-feature method (accuracy, or MSE / Var(y) where lower is better); labels: the
    procedure's names for its methods."""
    labels = LABELS if labels is None else labels
    net = methods.get("network", {}).get(key)
    lims = {m: e["limit"][key] for m, e in methods.items()
            if e.get("limit") and e["limit"].get(key) is not None}
    if net is None or not lims or key not in ("test_acc", "test_mse_ratio"):
        return None
    pick = min if key == "test_mse_ratio" else max
    best = pick(lims, key=lims.get)
    label = f"{labels.get(best, best)} converged limit"
    if key == "test_mse_ratio":
        return ("Network − best limit", f"{net - lims[best]:+.3f} MSE/Var",
                f"test MSE / Var(y) {net:.3f} (Network) vs {lims[best]:.3f} ({label})")
    return ("Network − best limit", f"{100 * (net - lims[best]):+.1f} points",
            f"test accuracy {100 * net:.1f} % (Network) vs {100 * lims[best]:.1f} % ({label}), "
            "the best fixed-feature readout trained to convergence")


def order_rows(index: list[str]) -> list[str]:
    """Table rows with each '… · converged limit' right after its '… · ours' row and the
    certificate last."""
    limit_rows = [r for r in index if r.endswith(" · converged limit")]
    out = [r for r in index if r not in limit_rows and r != "Limit certificate"]
    for row in limit_rows:
        ours = row.replace(" · converged limit", " · ours")
        out.insert(out.index(ours) + 1 if ours in out else len(out), row)
    return out + (["Limit certificate"] if "Limit certificate" in index else [])
