"""The classifier-stage narration says how many neurons left the stars since step 2, with the
numbers of the snapshots, and draws a conclusion only when the output weights support it."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from engine.frames.narrate import narrate


def _snap(step, stage, cos, a):
    cos = np.asarray(cos, dtype=float)
    return SimpleNamespace(step=step, stage=stage, cos=cos, a=np.asarray(a, dtype=float),
                           b=np.zeros_like(cos), frac_aligned=float((np.abs(cos) > 0.9).mean()),
                           cos_max=float(cos.max()), test_acc=1.0, train_acc=1.0, grad={"x": 1})


def _history(a_late):
    cos2 = [0.99, -0.99, 0.98, -0.97, 0.99, -0.99]
    late = [0.99, -0.99, 0.3, -0.2, 0.1, -0.99]  # neurons 2, 3, 4 left the stars
    return [_snap(0, "init", [0.1] * 6, [0.0] * 6), _snap(1, "step 1", cos2, [0.0] * 6),
            _snap(2, "step 2", cos2, [0.001] * 6), _snap(50, "later", late, a_late)]


def test_drift_is_counted_and_weights_decide_the_verdict():
    text = narrate(_history([0.2, 0.2, 0.05, 0.05, 0.05, 0.2]), 3)
    assert "After step 2, 100 % were on a star" in text
    assert "the 3 neurons that left have a median output weight |a| of 0.05, against 0.2" in text
    assert "rests mostly on the neurons still on the stars" in text
    text = narrate(_history([0.2] * 6), 3)
    assert "weigh about as much" in text and "rests mostly" not in text


def test_no_drift_sentence_when_the_neurons_stayed():
    hist = _history([0.2] * 6)
    hist[3] = _snap(50, "later", hist[2].cos, [0.2] * 6)
    assert "After step 2" not in narrate(hist, 3)


def test_kept_features_are_counted_from_the_snapshots():
    hist = _history([0.2] * 6)
    late = [0.99, -0.99, 0.97, -0.95, 0.99, -0.98]
    hist[3] = _snap(50, "later", late, [0.2] * 6)
    text = narrate(hist, 3)
    assert "Of the 6 neurons on a star after step 2, 6 still are" in text
    assert "median |cos| with Σ_A M: 0.990 then, 0.985 now" in text
    assert "still are" not in narrate(_history([0.2] * 6), 3)  # 3 of 6 left: the drift text
