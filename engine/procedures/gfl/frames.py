"""Frames of Shi's Algorithm 1 (this package): the map with a star per feature direction, each
group in its colour with its count, drawn in the truth's plane for a subspace world."""

from __future__ import annotations

import numpy as np

from ...frames.base import Maker
from ...frames.charts import coverage_chart, map_spec
from ...frames.procedure import record
from .narrate import gfl_text
from .probes import layer_probes, plane_basis, plane_map

PLANE = {"title": "Map in the relevant plane span(u₁, u₂): neuron directions projected",
         "x": "⟨w/‖w‖, u₁⟩", "y": "⟨w/‖w‖, u₂⟩"}


def direction_marks(dirs) -> list[tuple[str, np.ndarray]]:
    """(name, rows) of each direction's stars: D_j for a cluster centre (−D_j, where it is a
    centre, is a direction of its own), ±D_j for a feature or a subspace direction."""
    out = []
    for j, v in enumerate(dirs.vectors):
        both = dirs.kind != "centre"
        out.append((f"{'±' if both else ''}D{j + 1}", np.vstack([v, -v]) if both else v[None]))
    return out


class GFLFrames(Maker):
    """Algorithm 1's run: the directions D_j as star groups, their counts, its own probes."""

    TERMS = ("test accuracy", "MSE / Var(y)", "coverage", "on a direction", "relevant share",
             "D_j", "MDS map")

    def __init__(self, run, world):
        super().__init__(run, world)
        self.dirs = run.prep.dirs
        marks = direction_marks(self.dirs)
        self.groups = [(name, rows, g) for (name, rows), g in
                       zip(marks, self.dirs.groups, strict=True)]
        self.basis = plane_basis(self.dirs)

    def weights(self) -> np.ndarray:
        """The learner's current first layer (4m×d)."""
        return self.run.learner.weights().detach().float().cpu().numpy()

    def map(self, snap) -> tuple[np.ndarray, np.ndarray, dict]:
        """Neurons and each direction's stars: a subspace truth's own plane (fixed axes u₁,
        u₂), else cosine MDS aligned to the previous frame."""
        w = np.asarray(self.weights(), dtype=np.float64)
        self._w = w  # the counts of this frame read the weights its map was drawn from
        rows = np.vstack([w, *[r for _, r, _ in self.groups]])
        emb = plane_map(rows, self.basis) if self.basis is not None else self.aligned_mds(rows)
        out, at = {}, len(w)
        for name, r, _ in self.groups:
            out[name], at = emb[at:at + len(r)], at + len(r)
        return emb[:len(w)], snap.cos, out

    def counts(self, snap) -> list[int]:
        """Neurons within cos 0.9 of each direction's stars (the probes' rule)."""
        return [int(c) for c in layer_probes(self._w, self.dirs)["nice"]]

    def map_spec(self) -> dict:
        """A subspace world's map is its relevant plane, with the plane's axes."""
        if self.basis is None:
            return map_spec()
        return map_spec(PLANE["title"], {"x": PLANE["x"], "y": PLANE["y"]})

    DRAWS = ("score", "coverage")

    def chart_specs(self, marks: list[dict]) -> dict:
        """The score and Algorithm 1's probes."""
        return {"score": super().chart_specs(marks)["accuracy"], "coverage": coverage_chart()}

    def narrate(self, i: int) -> str:
        return gfl_text(self.run.history[i])

    def probes(self) -> str:
        """What is measured every step: Algorithm 1's probes, not the paper's Σ_A M ones."""
        cfg = self.world.cfg
        return (f"Measured after every step: train and test accuracy (MSE / Var(y) on a "
                f"regression world) on fixed samples of the {cfg.n:,} training and "
                f"{cfg.n_test:,} test points (the whole sets at steps 0, 1, 2 and T); for the "
                f"{record(cfg).neurons(cfg.m):,} neurons, "
                "coverage (min over the feature directions D_j of the best neuron's |cos|), the "
                "share of neurons on a direction (within cos 0.9 of a D_j star; a star's count "
                "is how many) and the relevant share (median share of a neuron's weight in the "
                "span of the D_j); the MDS map (classical MDS on cosine distance, rotated onto "
                "the previous frame), or the relevant plane for a subspace world. It minimises "
                f"the {record(cfg).loss}.")


# registered into engine.frames.MAKERS under the record's `frame` name (engine/frames/stream.py)
MAKERS = {"gfl": GFLFrames}
