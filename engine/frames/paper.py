"""Frames of the engine's network runs (the paper's Run, the fcb2022 trainer, a world's own run
with params): the MDS map with ±Σ_A M, or with the data's centres where there is no planted
Σ_A M."""

from __future__ import annotations

import numpy as np

from ..scenarios import centre_cosines
from .base import Maker
from .narrate import narrate

STARS = ("+Σ_A M", "−Σ_A M")


class PaperFrames(Maker):
    """The paper's map: each snapshot's own embedding (neurons, then the two stars)."""

    def weights(self) -> np.ndarray:
        """The run's current first-layer weights (data coordinates)."""
        return self.run.params.q.float().cpu().numpy()

    def map(self, snap) -> tuple[np.ndarray, np.ndarray, dict]:
        """(neuron points, colour cosines, marks) of the newest snapshot."""
        centres = self.world.ds.centres
        if centres is None:
            marks = {STARS[0]: snap.embedding[-2], STARS[1]: snap.embedding[-1]}
            return snap.embedding[:-2], snap.cos, marks if self.truth else {}
        return self._centre_map(np.asarray(centres, dtype=np.float64))

    def cosine_words(self) -> str:
        """Data without a planted Σ_A M (FCB's XOR, mixtures, real images): the centres."""
        if self.world.ds.centres is None:
            return super().cosine_words()
        return (f"the largest |cosine| of every one of the {2 * self.world.cfg.m} neurons with "
                "the data's centres (class means or mixture centres: this data has no single "
                "planted Σ_A M, so there is no relevant/background split of the gradient)")

    def _centre_map(self, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict]:
        """Map of the neurons and the data's centres; colour = the best |cos| to a centre."""
        w = np.asarray(self.weights(), dtype=np.float64)
        if centres.shape[1] < w.shape[1]:
            pad = np.zeros((len(centres), w.shape[1] - centres.shape[1]))
            centres = np.hstack([centres, pad])
        centres = centres[:, :w.shape[1]]
        emb = self.aligned_mds(np.vstack([w, centres]))
        cos = np.abs(centre_cosines(w, centres)).max(axis=0)
        labels, width, marks = self.world.ds.centre_labels, len(w), {}
        for sign, name in ((1, "centres, label +1"), (-1, "centres, label −1")):
            sel = np.ones(len(centres), bool) if labels is None else np.sign(labels) == sign
            if sel.any():
                marks[name if labels is not None else "centres"] = emb[width:][sel]
        return emb[:width], cos, marks

    def narrate(self, i: int) -> str:
        return narrate(self.run.history, i, self.truth)
