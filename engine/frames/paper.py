"""Frames of the engine's network runs (the paper's Run, the fcb2022 trainer, a world's own run
with params): the MDS map with ±Σ_A M, or with the data's centres where there is no planted
Σ_A M."""

from __future__ import annotations

import numpy as np

from ..evaluate import ALIGNED
from ..mds import with_stars
from ..scenarios import centre_cosines
from .base import Maker
from .narrate import plain
from .procedure import record, source_of

STARS = ("+Σ_A M", "−Σ_A M")


def direction_names(dirs) -> list[str]:
    """D_j for a cluster centre, ±D_j for a feature or subspace direction (both signs)."""
    both = dirs.kind != "centre"
    return [f"{'±' if both else ''}D{j + 1}" for j in range(len(dirs.vectors))]


class PaperFrames(Maker):
    """The paper's map: each snapshot's own embedding (neurons, then the two stars)."""

    def __init__(self, run, world):
        super().__init__(run, world)
        names, labels = world.ds.centre_names, world.ds.centre_labels
        if self.dirs is not None:  # the world's declared directions, each a star (±D_j
            # where both signs mean the same direction) with its count
            self.groups = [(name, None, int(g))
                           for name, g in zip(direction_names(self.dirs), self.dirs.groups,
                                              strict=True)]
        elif names is not None and world.ds.centres is not None:  # a star per named centre,
            # coloured by its label
            lab = np.ones(len(names)) if labels is None else np.asarray(labels)
            self.groups = [(name, None, 0 if lab[j] > 0 else 1) for j, name in enumerate(names)]

    @property
    def dirs(self):
        """The directions a world without Σ_A M or centres declares (Dataset.directions), or
        None: the map's stars then."""
        ds = self.world.ds
        return ds.directions if not ds.has_truth and ds.centres is None else None

    def weights(self) -> np.ndarray:
        """The run's current first-layer weights (data coordinates)."""
        return self.run.params.q.float().cpu().numpy()

    def map(self, snap) -> tuple[np.ndarray, np.ndarray, dict]:
        """(neuron points, colour cosines, marks) of the newest snapshot."""
        centres = self.world.ds.centres
        if self.dirs is not None:
            return self._direction_map()
        if centres is None:
            emb = snap.embedding if snap.embedding is not None else self._truth_map()
            marks = {STARS[0]: emb[-2], STARS[1]: emb[-1]}
            return emb[:-2], snap.cos, marks if self.truth else {}
        return self._centre_map(np.asarray(centres, dtype=np.float64))

    def cosine_words(self) -> str:
        """What the colours measure where the world plants no Σ_A M: its centres, its declared
        directions, or nothing (a world that declares neither)."""
        if self.world.ds.has_truth:
            return super().cosine_words()
        n = f"{record(self.world.cfg).neurons(self.world.cfg.m):,}"
        if self.dirs is not None:
            names = ", ".join(direction_names(self.dirs))
            return (f"the largest |cosine| of every one of the {n} neurons with the world's "
                    f"declared directions {names} (each direction's count: the neurons with "
                    f"|cosine| > {ALIGNED:g} with it)")
        if self.world.ds.centres is None:
            return f"the directions of the {n} neurons"
        if self.groups is not None:
            names = ", ".join(name for name, _, _ in self.groups)
            return (f"the largest |cosine| of every one of the {n} neurons with the data's "
                    f"centres {names} (each centre's count: the neurons with cosine > "
                    f"{ALIGNED:g} with it)")
        return (f"the largest |cosine| of every one of the {n} neurons with "
                "the data's centres (class means or mixture centres)")

    def _truth_map(self) -> np.ndarray:
        """The map of a run whose snapshots carry no embedding (a procedure need not know MDS):
        its current weights with the stars ±Σ_A M, the truth padded or cut to their width."""
        w = np.asarray(self.weights(), dtype=np.float64)
        truth = np.zeros(w.shape[1])
        own = np.asarray(self.world.ds.truth_coords, dtype=np.float64)[:w.shape[1]]
        truth[:len(own)] = own
        return self.aligned_mds(with_stars(w, truth))

    def _direction_map(self) -> tuple[np.ndarray, np.ndarray, dict]:
        """Map of the neurons and the declared directions' stars; colour = the best |cos|."""
        w = np.asarray(self.weights(), dtype=np.float64)
        v = np.asarray(self.dirs.vectors, dtype=np.float64)[:, :w.shape[1]]
        both = self.dirs.kind != "centre"
        stars = [np.vstack([u, -u]) if both else u[None] for u in v]
        emb = self.aligned_mds(np.vstack([w, *stars]))
        cosines = centre_cosines(w, v)
        self._counts = [int(c) for c in ((np.abs(cosines) if both else cosines) > ALIGNED)
                        .sum(axis=1)]
        marks, at = {}, len(w)
        for (name, _, _), rows in zip(self.groups, stars, strict=True):
            marks[name], at = emb[at:at + len(rows)], at + len(rows)
        return emb[:len(w)], np.abs(cosines).max(axis=0), marks

    def _centre_map(self, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict]:
        """Map of the neurons and the data's centres; colour = the best |cos| to a centre."""
        w = np.asarray(self.weights(), dtype=np.float64)
        if centres.shape[1] < w.shape[1]:
            pad = np.zeros((len(centres), w.shape[1] - centres.shape[1]))
            centres = np.hstack([centres, pad])
        centres = centres[:, :w.shape[1]]
        emb = self.aligned_mds(np.vstack([w, centres]))
        cosines = centre_cosines(w, centres)
        cos = np.abs(cosines).max(axis=0)
        labels, width, marks = self.world.ds.centre_labels, len(w), {}
        if self.groups is not None:  # the named centres, each its own star with its count
            self._counts = [int(c) for c in (cosines > ALIGNED).sum(axis=1)]
            return emb[:width], cos, {name: emb[width + j][None]
                                      for j, (name, _, _) in enumerate(self.groups)}
        for sign, name in ((1, "centres, label +1"), (-1, "centres, label −1")):
            sel = np.ones(len(centres), bool) if labels is None else np.sign(labels) == sign
            if sel.any():
                marks[name if labels is not None else "centres"] = emb[width:][sel]
        return emb[:width], cos, marks

    def counts(self, snap) -> list[int] | None:
        """Neurons within cos 0.9 of each named centre (signed: pointing at it); None without."""
        return getattr(self, "_counts", None) if self.groups is not None else None

    def count_note(self, marks: list[dict]) -> str | None:
        if self.dirs is not None:
            return f"counts: neurons with |cos(w_i, D_j)| > {ALIGNED:g}"
        if self.groups is not None:
            return f"counts: neurons with cos(w_i, centre) > {ALIGNED:g}"
        return super().count_note(marks)

    def narrate(self, i: int) -> str:
        """The procedure's own words on the step (its record's story), else its numbers."""
        story, source = record(self.world.cfg).story, source_of(self.world.cfg)
        if story is None:
            return plain(self.run.history[i], self.truth)
        return story(self.run.history, i, source.short or source.citation, self.truth)
