"""The Snapshot record (what a step measured, as plain numbers and arrays) and the alignment
rule every view counts by. A low module: worlds, procedures and frames read it without pulling
in the trainer (engine/evaluate.py fills it and re-exports these names)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Snapshot:
    """Plain numbers and arrays describing the network after `step` updates."""

    step: int
    T: int
    stage: str
    train_acc: float
    test_acc: float
    train_loss: float
    test_loss: float
    full_eval: bool  # accuracies on the whole sets (else on the probe samples)
    cos_max: float
    cos_min: float
    cos_mean: float
    weight_ratio: float
    off_span: float
    hinge_active: float = float("nan")
    frac_aligned: float = float("nan")  # share of neurons with |cos| > ALIGNED to Σ_A M
    grad: dict = field(default_factory=dict)  # empty at step 0 and for frozen layers
    cos: np.ndarray | None = None  # per neuron
    a: np.ndarray | None = None
    b: np.ndarray | None = None
    embedding: np.ndarray | None = None  # (2m+2)×2, last two rows are the ±Σ_A M stars
    weights: np.ndarray | None = None  # 2m×r in data coordinates, kept on some steps
    elapsed: float = 0.0

    def scalars(self) -> dict:
        """The scalar fields, for tables, CSV and JSON."""
        out = {k: getattr(self, k) for k in SCALAR_FIELDS}
        out.update({k: v for k, v in self.grad.items() if not isinstance(v, np.ndarray)})
        return out


SCALAR_FIELDS = ("step", "stage", "train_acc", "test_acc", "train_loss", "test_loss",
                 "full_eval", "cos_max", "cos_min", "cos_mean", "frac_aligned", "weight_ratio",
                 "off_span", "hinge_active", "elapsed")

ALIGNED = 0.9  # |cos| above which a neuron counts as sitting on a star (issue 11's measure)


def star_counts(cos) -> tuple[int, int]:
    """(neurons on +Σ_A M, on −Σ_A M): cos > ALIGNED and cos < −ALIGNED, from exact cosines
    (the narration, the map's labels and the GIF all show these two numbers)."""
    c = np.asarray(cos, dtype=np.float64)
    return int((c > ALIGNED).sum()), int((c < -ALIGNED).sum())
