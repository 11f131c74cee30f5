"""The player's chart specs, sent in the stream's meta (meta["charts"], meta["map"]): the browser
draws whatever charts a frame maker lists here and branches on no procedure. A chart reads
per-frame columns (engine.frames.frame CURVES, "counts"); its words are the maker's."""

from __future__ import annotations

# Okabe–Ito (the player's palette, ui/player/player.js FE.C)
BLUE, VERM, ORANGE, SKY, GREEN, PURPLE = ("#0072B2", "#D55E00", "#E69F00", "#56B4E9",
                                          "#009E73", "#CC79A7")
UNIT_TICKS = (0, 0.25, 0.5, 0.75, 1)
# dash patterns (px on, off, …) for charts of many curves: never colour alone tells them apart
DASHES = ([], [6, 4], [2, 3], [10, 3, 2, 3], [12, 5], [4, 2, 1, 2], [8, 2], [1, 4])
MAP_TITLE = "MDS map of the neuron weights (cosine)"


def series(name: str, col: str, colour: str, *, dash: bool | list = False, index: int | None = None,
           width: float | None = None, scale: float = 1, smooth: bool = False) -> dict:
    """One curve: frame column `col` (its element `index` where the column holds a list per
    frame) × scale, in its colour, dashed (True, or a pattern) or not; smooth: the Smoothing
    menu applies to it."""
    out = {"name": name, "col": col, "colour": colour, "dash": dash, "scale": scale,
           "smooth": smooth}
    if index is not None:
        out["index"] = index
    if width is not None:
        out["width"] = width
    return out


def chart(key: str, title: str, sub: str, curves: list[dict], *, lo: float = 0,
          hi: float = 1.02, ticks=UNIT_TICKS, fmt: str = "two", log: bool = False,
          lines=(), limits: bool = False, note: dict | None = None, counts: bool = False,
          height: int = 190) -> dict:
    """One chart: its canvas key, title, subtitle, curves and y axis (fmt: "pct", "two" or
    "num"); lines: fixed levels [{y, text}]; limits: the converged limits are drawn on it;
    note: {"col", "run", "some"} words for the steps where column col is true; counts: the
    axis follows the largest value so far; height: px beside the map outside presentation."""
    return {"key": key, "title": title, "sub": sub, "series": curves, "lo": lo, "hi": hi,
            "ticks": list(ticks), "fmt": fmt, "log": log, "lines": list(lines),
            "limits": limits, "note": note, "counts": counts, "height": height}


def own_chart(key: str, title: str, axis: str, curves: tuple[str, ...], at: int,
              log: bool = False) -> dict:
    """A record's declared chart no maker draws: its curves (Snapshot.scalars() keys) read from
    the frames' `own` column (one list per frame, this chart's curves from index `at`), its
    axis following its values (whole decades of its positive values where the record asks
    for a log axis)."""
    palette = (BLUE, VERM, GREEN, ORANGE, PURPLE, SKY)
    lines = [series(name, "own", palette[j % len(palette)], dash=DASHES[j % len(DASHES)],
                    index=at + j) for j, name in enumerate(curves)]
    return {**chart(key, title, axis, lines, fmt="num", log=log), "own": True}


def score_chart(score: str) -> dict:
    """Train and test accuracy in %, or MSE / Var(y) for a regression world (score "mse")."""
    mse = score == "mse"
    k = 1 if mse else 100
    curves = [series("train", "train", BLUE, scale=k, smooth=True),
              series("test", "test", VERM, dash=True, scale=k, smooth=True)]
    if mse:
        return chart("acc", "Test MSE / Var(y) per step (lower is better)",
                     "1 = no better than predicting the mean, 0 = a perfect fit", curves,
                     hi=1.5, ticks=(0, 0.5, 1, 1.5), height=230)
    return chart("acc", "Accuracy per step", "", curves, hi=101, ticks=(0, 25, 50, 75, 100),
                 fmt="pct", height=230)


def star_chart() -> dict:
    """The share of neurons on a star ±Σ_A M and the best cosine with it."""
    return chart("align", "Neurons on a star",
                 "max cos(w_i, Σ_A M); share of neurons with |cos| > 0.9",
                 [series("max cos", "cosmax", BLUE),
                  series("share on a star", "frac", GREEN, dash=True)])


def gradient_chart() -> dict:
    """The relevant share of the hinge gradient on w, with the steps where it is exactly 0."""
    return chart("grad", "Relevant share of ∂L/∂w_i",
                 "‖rel‖ / (‖rel‖ + ‖bg‖): 1 = all along the patterns in A, 0 = all background",
                 [series("relevant share", "share", GREEN)],
                 note={"col": "zero",
                       "run": "gradient exactly zero from step {from} to {to} (every margin "
                              "≥ 1: the hinge loss is flat)",
                       "some": "gradient exactly zero at {count} of the steps so far (gaps)"})


def coverage_chart() -> dict:
    """Algorithm 1's probes: coverage, the share on a direction, the relevant share."""
    return chart("align", "Coverage and shares (Algorithm 1's probes)",
                 "coverage = min_j max_i |cos(w_i, D_j)|; share within cos 0.9 of a D_j; "
                 "relevant share",
                 [series("coverage", "cover", BLUE),
                  series("share on a D_j", "frac", GREEN, dash=True),
                  series("relevant share", "rel", VERM, dash=DASHES[2])])


def count_chart(marks: list[dict], title: str, sub: str, height: int = 190) -> dict:
    """Neurons on each counted star group over the steps (the marks with a slot)."""
    counted = [mk for mk in marks if "slot" in mk]
    curves = [series(mk["name"], "counts", mk["colour"], index=mk["slot"], width=1.5,
                     dash=DASHES[q % len(DASHES)]) for q, mk in enumerate(counted)]
    return chart("pairs", title, sub, curves, fmt="num", counts=True, height=height)


def map_spec(title: str = MAP_TITLE, axes: dict | None = None, sign: bool = True) -> dict:
    """The map's title, its fixed axes {"x", "y"} (a plane; None: an MDS map without axes) and
    whether its neurons have an output weight's sign to colour by."""
    return {"title": title, "axes": axes, "sign": sign}

