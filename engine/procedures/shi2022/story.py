"""The shi2022 procedure's stages in words: what to look for at step 1, step 2 and in the
classifier stage, with the numbers of that snapshot (markdown with **bold**)."""

from __future__ import annotations

import numpy as np

from ...evaluate import ALIGNED
from ..words import aligned as _aligned
from ..words import pct as _pct
from ..words import score_text, zero_gradient


def narrate(history: list, i: int, source: str = "", truth: bool = True) -> str:
    """The shi2022 procedure's stages in words at history index i, with the numbers of that
    snapshot; `source`: whose theory the run illustrates (the credit's citation)."""
    snap = history[i]
    acc = score_text(snap)
    if not truth:
        return f"**Step {snap.step}** ({snap.stage}): {acc}."
    where = _aligned(snap)
    if snap.step == 0:
        return (f"**Initialisation.** The neurons point in random directions: {where}; {acc}. "
                "Press **Step** (→) to take the first step.")
    if snap.stage == "step 1":
        text = f"**After step 1** (one large step on the whole training set): {where}. "
        if snap.frac_aligned < 0.5:
            text += "Most neurons are still in the cloud: their random start still dominates."
        elif snap.frac_aligned >= 1:
            text += f"One step already put every one of the {len(snap.cos)} neurons on a star."
        else:
            text += f"One step already put {_pct(snap.frac_aligned)} of the neurons on a star."
        return text + f" {acc}."
    if snap.stage == "step 2":
        before = history[i - 1] if i > 0 else snap
        gain = snap.frac_aligned - before.frac_aligned
        text = f"**After step 2:** {where}"
        text += (f", up from {_pct(before.frac_aligned)} after step 1. " if gain > 0.005
                 else ". ")
        whose = f"{source}'s theory" if source else "the theory"
        return text + (f"{acc}. These are the features {whose} says the network learns "
                       "(fixed features such as the NTK do not).")
    text = f"**Classifier stage, step {snap.step}** (t > 2): {acc}; {where}."
    text += _drift(history, snap)
    if zero_gradient(snap):
        text += (" The gradient on w is exactly zero at this step: every sample of the batch has "
                 "margin y·g(x) ≥ 1, so the hinge loss is flat.")
    return text


def _drift(history: list, snap) -> str:
    """Whether the neurons on a star after step 2 are still there; when visibly many left,
    which ones and what they weigh."""
    after2 = next((s for s in history if s.stage == "step 2"), None)
    if after2 is None:
        return ""
    if snap.frac_aligned > after2.frac_aligned - 0.05:
        return _kept(after2, snap)
    was = np.abs(np.asarray(after2.cos)) > ALIGNED
    now = np.abs(np.asarray(snap.cos)) > ALIGNED
    left, stayed = was & ~now, was & now
    if not left.any() or not stayed.any():
        return ""
    a = np.abs(np.asarray(snap.a))
    a_left, a_stay = float(np.median(a[left])), float(np.median(a[stayed]))
    verdict = ("so the classifier rests mostly on the neurons still on the stars"
               if a_stay > 1.5 * a_left else "so the off-star neurons weigh about as much")
    return (f" After step 2, {_pct(after2.frac_aligned)} were on a star. Both layers keep "
            f"training in this stage: the {int(left.sum())} neurons that left have a median "
            f"output weight |a| of {a_left:.3g}, against {a_stay:.3g} for the "
            f"{int(stayed.sum())} that stayed, {verdict}. The theory has the first layer barely "
            "move after step 2.")


def _kept(after2, snap) -> str:
    """How many of the neurons on a star after step 2 still are, and how little they turned."""
    was = np.abs(np.asarray(after2.cos)) > ALIGNED
    if not was.any():
        return ""
    still = int((was & (np.abs(np.asarray(snap.cos)) > ALIGNED)).sum())
    before = float(np.median(np.abs(np.asarray(after2.cos))[was]))
    now = float(np.median(np.abs(np.asarray(snap.cos))[was]))
    return (f" Of the {int(was.sum())} neurons on a star after step 2, {still} still are (their "
            f"median |cos| with Σ_A M: {before:.3f} then, {now:.3f} now): the features learned "
            "in steps 1-2 stay while the output layer trains, as in the theory, where the first "
            "layer barely moves after step 2.")
