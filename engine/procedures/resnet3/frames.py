"""Frames of the AZL world's Explore run (explore.py): the ResNet's first layer with
the 32 pair stars, one colour and one count per pair, every method's test error, c_F, c_G."""

from __future__ import annotations

import numpy as np

from ...frames.base import Maker, extra
from ...frames.charts import (
    BLUE,
    DASHES,
    GREEN,
    PURPLE,
    SKY,
    VERM,
    chart,
    count_chart,
    map_spec,
    series,
)
from ...frames.frame import rounded
from ...frames.limits import Curve
from ...frames.procedure import record

# one colour per method, in the chart specs this maker sends in meta (the player draws them)
COLORS = {"resnet3": "#0072B2", "fc3": "#CC79A7", "two_layer": "#009E73", "ntk": "#E69F00",
          "last_layer": "#D55E00"}
FIXED = ("ntk", "last_layer")  # the fixed-feature methods: each gets its converged limit
THRESHOLD_TEXT = "above this line G is not learned at all"
COUNT_NOTE = "counts: neurons with cos(w_i, a star of the pair) > 0.9"
PROBES = (
    "Measured after every step, for all five methods trained side by side on the same data, "
    "initialisation and mini-batches: the test error E‖out − y‖² and the projections c_F = "
    "mean_r E[out_r F_r] and c_G = mean_r E[out_r G_r]/α on 1 024 fixed test points (the whole "
    "test set at the last step). The map is the 3-layer ResNet's first layer W: classical MDS "
    "on the cosine distance of its rows and the 32 pair stars ±(e_{2r−1} ± e_{2r})/√2, one "
    "colour per pair r; a count is the neurons within cos 0.9 of one of that pair's four "
    "stars. Pair purity = mean over neurons of max_r (w²_{2r−1} + w²_{2r}) / ‖w‖²; V's share = "
    "the share of ‖V‖² on out₁…out₄, the coordinates G reads (docs/azl.md).")
AZL_KEYS = (("cf", "c_F"), ("cg", "c_G"), ("purity", "pair_purity"), ("vsup", "v_support"))


class AZLFrames(Maker):
    """The ResNet's run with the other methods beside it (explore.ExploreRun)."""

    TERMS = ("test error", "c_F", "c_G", "pair purity", "V's support share", "on a pair star",
             "MDS map")
    COLORS, THRESHOLD_TEXT = COLORS, THRESHOLD_TEXT  # Compare's figures read them here

    def __init__(self, run, world):
        super().__init__(run, world)
        self.groups = [(name, rows, r) for r, (name, rows) in enumerate(run.pair_marks())]

    def map(self, snap) -> tuple[np.ndarray, np.ndarray, dict]:
        """The ResNet's first-layer rows and every pair's stars, cosine MDS aligned."""
        w = np.asarray(self.run.first_layer(), dtype=np.float64)
        emb = self.aligned_mds(np.vstack([w, *[r for _, r, _ in self.groups]]))
        out, at = {}, len(w)
        for name, r, _ in self.groups:
            out[name], at = emb[at:at + len(r)], at + len(r)
        return emb[:len(w)], snap.cos, out

    def counts(self, snap) -> list[int]:
        """The snapshot's neurons on each pair's stars."""
        return [int(c) for c in extra(snap)["pair_counts"]]

    def more_curves(self, snap) -> dict:
        """Every method's test error (the ResNet first), c_F, c_G, purity, V's share."""
        e = extra(snap)
        return {"errs": [rounded(v) for v in self.run.test_errors(snap)],
                **{col: rounded(e[key]) for col, key in AZL_KEYS}}

    def limit_curves(self) -> list[Curve]:
        """NTK and last layer (the side runs engine.limits solves; the others are not fixed)."""
        runs = {self.run.methods[0]: None, **self.run.side}
        return [Curve(m, self.run.labels[m], COLORS[m], q, runs[m])
                for q, m in enumerate(runs) if m in FIXED]

    def map_spec(self) -> dict:
        """The ResNet's first layer: no single output weight a_i to colour by (A is k×m)."""
        return map_spec(sign=False)

    DRAWS = ("error", "projection", "weights", "pairs")

    def chart_specs(self, marks: list[dict]) -> dict:
        """Every method's test error with the kα² line, c_F and c_G, where the weights sit, the
        neurons per pair (azl_charts), by the record's chart names."""
        specs = azl_charts(self.run.world.cfg.threshold, THRESHOLD_TEXT,
                           [(name, COLORS[m]) for m, name in self.run.labels.items()], marks)
        return dict(zip(("error", "projection", "weights", "pairs"), specs, strict=True))

    def count_note(self, marks: list[dict]) -> str:
        return COUNT_NOTE

    def narrate(self, i: int) -> str:
        """The run's own narration, its head ("step 120 · 3-layer ResNet") in bold."""
        head, _, rest = self.run.narration(self.run.history[i]).partition(": ")
        return f"**{head[:1].upper()}{head[1:]}:** {rest}"

    def probes(self) -> str:
        return f"{PROBES} Every method minimises the {record(self.world.cfg).loss}."


def azl_charts(threshold: float, threshold_text: str, methods: list[tuple[str, str]],
               marks: list[dict]) -> list[dict]:
    """Its charts: every method's test error (log axis) with the kα² line, the
    ResNet's c_F and c_G, where its weights sit, and the neurons per pair."""
    t = f"{threshold:.2f}"
    errs = [series(name, "errs", colour, index=q, width=1.5 if q else 2.5, dash=DASHES[q % 8])
            for q, (name, colour) in enumerate(methods)]
    return [
        chart("acc", "Test error E‖out − y‖² per method",
              f"log scale; kα² = {t} is the error of a perfect F with no G", errs, lo=0.1, hi=30,
              log=True, ticks=(0.1, 0.3, 1, 3, 10, 30), fmt="num", limits=True,
              lines=[{"y": threshold, "text": f"kα² = {t}: {threshold_text}"}], height=230),
        chart("align", "F first, then G (3-layer ResNet)",
              "c_F = share of F learned, c_G = share of αG learned (exact projections)",
              [series("c_F", "cf", BLUE), series("c_G", "cg", VERM, dash=True)],
              lo=-0.05, hi=1.05),
        chart("grad", "Where the ResNet's weights sit",
              "W: pair purity, share on x₁…x₂ₖ; V: share on out₁…out₄ (what G reads)",
              [series("pair purity", "purity", GREEN),
               series("share on x₁…x₂ₖ", "rel", SKY, dash=True),
               series("V on out₁…₄", "vsup", PURPLE, dash=DASHES[2])]),
        count_chart(marks, "Neurons per pair over steps",
                    "within cos 0.9 of one of the pair's four stars", height=260),
    ]


# registered into engine.frames.MAKERS under the record's `frame` name (engine/frames/stream.py)
MAKERS = {"azl": AZLFrames}
