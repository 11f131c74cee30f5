"""What every run type's frame maker shares: the curves of a snapshot, its signs, its row."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np

from .. import mds
from ..evaluate import PROBE_SAMPLES, star_counts
from ..procedures.words import extra, regression, scores, zero_gradient
from ..report import build_report, clean
from . import charts
from .frame import Frame, rounded
from .procedure import credit, record


def grad_share(grad: dict) -> float | None:
    """‖relevant‖ / (‖relevant‖ + ‖background‖) of the step's gradient, or None without one."""
    rel, bg = grad.get("grad_rel"), grad.get("grad_bg")
    if rel is None or bg is None or not math.isfinite(rel + bg) or rel + bg <= 0:
        return None
    return float(rel / (rel + bg))


def signs(snap, n: int) -> np.ndarray:
    """The sign of each neuron's output weight a_i as int8; all + where the neurons have no
    single output weight (the AZL world: A is k×m)."""
    a = np.ones(n) if snap.a is None else np.asarray(snap.a)
    return np.where(a >= 0, 1, -1).astype(np.int8)


class Maker:
    """Frames of one run, made right after each step (so a map is drawn from that step's own
    weights); a run type's module overrides the map, the counts, its curves and its words."""

    groups: list | None = None  # (name, star rows, colour group) per labelled star group
    # the probe names its probes(), curves and narration show: the Guide defines each
    # (tests/ui/test_guide_glossary.py), with the records' chart terms
    TERMS: tuple[str, ...] = ("test accuracy", "cos", "MDS map")
    # the record chart names chart_specs has a spec of; a record's other Explore charts are
    # drawn from their curves (charts.own_chart, the frames' `own` column)
    DRAWS: tuple[str, ...] = ("accuracy", "cos", "gradient")

    def __init__(self, run, world):
        self.run, self.world = run, world
        self.truth = bool(world.ds.has_truth)
        self._prev: np.ndarray | None = None  # the last MDS map, the next one is aligned to it

    def aligned_mds(self, rows: np.ndarray) -> np.ndarray:
        """Cosine MDS of the rows, rotated onto the previous frame's map."""
        with mds.single_thread_blas():
            emb = mds.align(mds.classical(rows), self._prev)
        self._prev = emb
        return emb

    def frame(self, i: int) -> Frame:
        """The frame of history index i (the newest: the run's weights are its own)."""
        snap = self.run.history[i]
        row = clean(snap.scalars())
        points, cos, marks = self.map(snap)
        train, test = scores(snap)
        frac = float(snap.frac_aligned)
        plus, minus = star_counts(snap.cos) if self.truth else (0, 0)
        curves = {"train": rounded(train), "test": rounded(test),
                  "cosmax": round(float(snap.cos_max), 5),
                  "frac": round(frac, 5) if math.isfinite(frac) else None,
                  "share": grad_share(snap.grad) if self.truth else None,
                  "zero": zero_gradient(snap), "plus": plus, "minus": minus,
                  "cover": extra(snap).get("coverage"), "rel": extra(snap).get("relevant_share"),
                  "own": [rounded(row.get(k)) for c in self.own_charts() for k in c.curves],
                  **self.more_curves(snap)}
        return Frame(snap.step, snap.stage, points, cos, signs(snap, len(cos)), marks,
                     self.counts(snap), curves, self.narrate(i), row,
                     clean(self.run.summary()))

    def more_curves(self, snap) -> dict:
        """Curves of this run type besides the common ones."""
        return {}

    def counts(self, snap) -> list[int] | None:
        """Neurons on each star group; None for a run without star groups."""
        return None

    def limit_curves(self) -> list:
        """The fixed-feature curves the chart draws (engine.frames.limits.Curve): none where
        Explore shows only the network (the paper's and GFL's charts)."""
        return []

    def count_note(self, marks: list[dict]) -> str | None:
        """What a star's count counts (the map's legend note), from the meta's marks: a star per
        direction D_j (named ±D_j: both signs; a centre's D_j: only the neurons pointing at it),
        or ±Σ_A M; None where nothing is counted."""
        if any("slot" in mk for mk in marks):
            signed = not any(str(mk["name"]).startswith("±") for mk in marks)
            return f"counts: neurons with {'cos' if signed else '|cos|'}(w_i, D_j) > 0.9"
        if any(mk.get("count") for mk in marks):
            return "counts: neurons with |cos(w_i, Σ_A M)| > 0.9"
        return None

    def meta(self, first: Frame) -> dict:
        """What stays fixed over a run besides the marks (the map's marks come from `first`)."""
        return {"T": self.run.T, "neurons": len(first.cos), "truth": self.truth,
                "map": self.map_spec()}

    def map_spec(self) -> dict:
        """The player's map: its title, fixed axes (none: MDS) and sign colouring."""
        return charts.map_spec()

    def charts(self, marks: list[dict]) -> list[dict]:
        """The player's charts (engine.frames.charts): the record's declared Explore charts, in
        its order, each the maker's spec of that name (the first is the one presentation mode
        keeps); a declared chart this world cannot show (no planted Σ_A M) is left out, and
        nothing the record does not declare is drawn."""
        drawn, at = self.chart_specs(marks), 0
        for c in self.own_charts():  # the record's charts no spec here draws: their curves
            drawn[c.name] = charts.own_chart(f"own{at}", c.title, c.axis, c.curves, at, c.log)
            at += len(c.curves)
        return [{**drawn[c.name], "name": c.name} for c in record(self.world.cfg).charts
                if "explore" in c.views and drawn.get(c.name) is not None]

    def own_charts(self) -> list:
        """The record's Explore charts this maker has no spec of (DRAWS), in its order."""
        return [c for c in record(self.world.cfg).charts
                if "explore" in c.views and c.name not in self.DRAWS]

    def chart_specs(self, marks: list[dict]) -> dict:
        """{record chart name: the player's spec} this maker can draw from its frame columns
        (None: not on this world). The engine's runs: the score, and where the world plants
        Σ_A M the neurons on its stars and the gradient's relevant share."""
        score = charts.score_chart("mse" if regression(self.run.history[0]) else "acc")
        truth = self.truth
        return {"accuracy": score, "cos": charts.star_chart() if truth else None,
                "gradient": charts.gradient_chart() if truth else None}

    def about(self) -> dict:
        """Explore's words around the player: credit, what is measured, step sizes, report."""
        return {**credit(self.world.cfg), "probes": self.probes(),
                "step_sizes": self.step_sizes(),
                "report": self.report_head()}

    def report_head(self) -> dict:
        """The JSON report (engine.report.build_report) without its per-step parts: those keys
        are None here, and engine.frames.report fills them from the frames."""
        # the run's world (its schedule) without its history: meta() is asked on every page
        # run, and cleaning 600 steps' scalars there took ~50 ms
        fixed = SimpleNamespace(history=[], world=getattr(self.run, "world", self.world))
        head = build_report(self.world.cfg, {"network": fixed}, str(self.world.device), {},
                            per_seed=[{"network": {}}])
        return {**head, "preset": None, "methods": None, "history": None, "timing": None}

    def probes(self) -> str:
        """What is measured every step, and on which samples (the loss the record declares)."""
        cfg = self.world.cfg
        n_tr, n_te = min(cfg.n, PROBE_SAMPLES), min(cfg.n_test, PROBE_SAMPLES)
        # a run that scores every step on the whole sets says so (its `whole_sets`); the
        # engine's Run scores on fixed samples between steps 0, 1, 2 and T
        run = getattr(self, "run", None)  # None: a maker asked for its words alone
        whole = getattr(run, "whole_sets", False) or (n_tr, n_te) == (cfg.n, cfg.n_test)
        on = (f"on the whole sets of {cfg.n:,} training and {cfg.n_test:,} test points"
              if whole else
              f"on fixed samples of {n_tr:,} training and {n_te:,} test points (drawn once "
              f"from the seed; the whole sets of {cfg.n:,} and {cfg.n_test:,} at steps 0, 1, "
              "2 and T)")
        return (f"Measured after every step: train and test accuracy and the "
                f"{record(cfg).loss} {on}; {self.cosine_words()}, and the MDS map "
                "(classical MDS on cosine distance, rotated onto the previous frame so points "
                "do not jump).")

    def cosine_words(self) -> str:
        """What the colour cosines measure (Σ_A M), and the gradient split where the procedure
        shows it (its glossary defines the relevant share)."""
        proc = record(self.world.cfg)
        words = (f"the cosine of every one of the {proc.neurons(self.world.cfg.m):,} neurons "
                 "with Σ_A M")
        if "relevant share" in dict(proc.glossary):
            words += ", the relevant/background split of the loss gradient (root mean square "\
                     "over neurons)"
        return words

    def step_sizes(self) -> dict | None:
        """The step-size table the procedure declares (its note and rows), or None: none."""
        table = record(self.world.cfg).step_table
        if table is None:
            return None
        out = table(self.run, self.world)
        return {"note": out["note"], "rows": clean(out["rows"])}
