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


LABEL_GAP_PX = 15  # a label's height at font 11 and some air: closer labels are moved apart
FAR = 0.5  # a limit beyond the curves by more than this share of their span: labelled at the edge


def add_lines(fig: go.Figure, limits: dict, T: int) -> go.Figure:
    """A dashed horizontal line per limit, in the method's colour, labelled 'converged limit';
    one far off the curves' scale is labelled with its value at the chart's edge instead of
    stretching the axis (gfl-multi-index's NTK at λ → 0: MSE/Var 8.4 beside curves below 1)."""
    lo, hi, fixed = _curves_range(fig)
    span, drawn, off = max(hi - lo, 1e-12), [], False
    for method, lim in limits.items():
        got = value(lim)
        if got is None:
            continue
        info = BY_NAME.get(method)
        color = info.color if info is not None else "#777777"
        label, y = LABELS.get(method, method), got[1]
        bound = 0.0 if fixed else FAR * span
        if lo - bound <= y <= hi + bound:
            fig.add_trace(go.Scatter(
                x=[0, max(T, 2)], y=[y, y], mode="lines+text",
                line={"color": color, "dash": "dash", "width": 1.5},
                name=f"{label}: converged limit", legendgroup=method, meta="converged limit",
                hovertemplate=f"{label} converged limit: %{{y:.4g}}<extra></extra>"))
            drawn.append((y, f"{label} limit", color))
        else:  # off the chart: its value said where it is
            edge, arrow = (hi, "↑") if y > hi else (lo, "↓")
            drawn.append((edge, f"{label} limit {_fmt(got)} {arrow}", color))
            off = True
    if off and not fixed:
        ys = [d[0] for d in drawn] + [lo, hi]  # an edge label drawn: the axis keeps the curves'
        fig.update_yaxes(range=[min(ys) - 0.04 * span, max(ys) + 0.04 * span])
    shifts = label_shifts(fig, [d[0] for d in drawn])
    for (y, text, color), shift in zip(drawn, shifts, strict=True):
        # the label sits right of the plot area (paper x > 1), never on a curve nor on another
        fig.add_annotation(x=1.0, xref="paper", xanchor="left", y=y, yref="y", yshift=shift,
                           text=text, showarrow=False, font={"color": color, "size": 11})
    # room for the labels right of the plot, and the legend below it: at its default place (top
    # right) a label near the top sat on it — from the start, so it does not jump when they come
    fig.update_layout(margin={"r": 120}, legend={"orientation": "h", "x": 0, "xanchor": "left",
                                                 "y": -0.18, "yanchor": "top"})
    return fig


def _fmt(got: tuple[str, float]) -> str:
    """A limit's number as its column shows it (accuracy in %)."""
    key, v = got
    if key == "test_acc":
        return f"{100 * v:.1f} %"
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:,.0f}".replace(",", " ")  # 1 810, not 1.81e+03


def _curves_range(fig: go.Figure) -> tuple[float, float, bool]:
    """The y range the curves span (the axis's own where it is fixed) and whether it is fixed."""
    fixed = fig.layout.yaxis.range
    if fixed is not None:
        return float(fixed[0]), float(fixed[1]), True
    vals = [float(v) for t in fig.data if t.y is not None for v in t.y if v is not None]
    if not vals:
        return 0.0, 1.0, False
    lo = min(0.0, min(vals)) if fig.layout.yaxis.rangemode == "tozero" else min(vals)
    return lo, max(vals), False


def label_shifts(fig: go.Figure, ys: list[float]) -> list[float]:
    """Pixels each label moves up so that no two sit closer than LABEL_GAP_PX (the plot's height
    and y range read off the figure; a label's order by value is kept)."""
    if not ys:
        return []
    lo, hi, _ = _curves_range(fig)
    lo, hi = min(lo, *ys), max(hi, *ys)
    margin = fig.layout.margin
    # less the x axis's ticks and title (50 px) and the legend below the plot (about 60)
    height = (fig.layout.height or 450) - (margin.t or 80) - (margin.b or 80) - 110
    per_unit = max(height, 100) / max(hi - lo, 1e-12)
    order = sorted(range(len(ys)), key=lambda i: ys[i])
    shifts, last = [0.0] * len(ys), None
    for i in order:
        at = (ys[i] - lo) * per_unit
        placed = at if last is None else max(at, last + LABEL_GAP_PX)
        shifts[i], last = placed - at, placed
    return shifts


STAR_STEP = 1.8  # the λ → 0 stars' spacing on the path plot's log axis, one method to the next


def path_figure(limits: dict, labels: dict | None = None) -> go.Figure | None:
    """Test value against the ridge λ (log axis, 1e-2 … 1e-8) per method whose limit is λ → 0,
    the chosen limit marked at the path's small end; None when no limit has a path."""
    labels = LABELS if labels is None else labels
    fig, stars = go.Figure(), 0
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
        stars += 1  # each method's star a step further right: equal limits (gfl-uniform-parity's
        # NTK and One Step, both 100 %) would hide one behind the other
        fig.add_trace(go.Scatter(
            x=[end / (3 * STAR_STEP ** (stars - 1))], y=[scale * got[1]], mode="markers",
            legendgroup=method,
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
                      yaxis={"title": title, "type": _scale(fig)})
    return fig


def _scale(fig: go.Figure) -> str:
    """'log' where the path's values span more than a factor 30 (a regression's λ → 0 fit at the
    interpolation threshold: MSE/Var 1 810 beside 0.9 — on a linear axis every other point is 0)."""
    vals = [float(v) for t in fig.data for v in (t.y or ()) if v is not None]
    lo, hi = min(vals, default=1.0), max(vals, default=1.0)
    return "log" if lo > 0 and hi > 30 * lo else "linear"


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
        return ("Network − best limit", f"{net - lims[best]:+.3f}",
                f"test MSE / Var(y) {net:.3f} (Network) vs {lims[best]:.3f} ({label})")
    return ("Network − best limit", points(net - lims[best]),
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


def points(diff: float) -> str:
    """An accuracy gap (a difference of fractions) in signed points to one decimal, or to two
    significant digits where one decimal would read 0.0 for a gap that is not zero (gfl-linear's
    network 99.975 % against a 100 % limit: "-0.025 points", not "-0.0 points"); float32
    rounding below 0.001 points is no gap ("+0.0", never a signed zero)."""
    pts = round(100 * diff, 3) + 0.0  # + 0.0: −0.0 becomes 0.0
    return f"{pts:+.2g} points" if 0 < abs(pts) < 0.05 else f"{pts:+.1f} points"
