"""Words for the Explore page: what to look for at each stage, and what is measured."""

from __future__ import annotations

import html
import math

import numpy as np

from engine.config import Config, summary_line
from engine.evaluate import ALIGNED, PROBE_SAMPLES, star_counts
from engine.procedures import procedure_of
from engine.scenarios import reads_common, world

NO_TRUTH = ("This data has no single planted Σ_A M, so the map shows the data's centres "
            "(class means or mixture centres) instead of the stars and the gradient split is not "
            "defined; look for neurons gathering on the centres, in clusters.")


MSE_KEY = "test_mse_ratio"  # a regression world's test number (engine/gfl), in Snapshot.extra


def _pct(x: float) -> str:
    return f"{100 * x:.0f} %"


def _extra(snap) -> dict:
    """The snapshot's procedure numbers (the engine's own Snapshot has none)."""
    return getattr(snap, "extra", None) or {}


def regression(snap) -> bool:
    """Whether the run reports test MSE / Var(y) instead of an accuracy."""
    return MSE_KEY in _extra(snap)


def scores(snap) -> tuple[float, float]:
    """(train, test) of the chart: accuracy, or MSE / Var(y) for a regression world."""
    if regression(snap):
        extra = _extra(snap)
        return float(extra.get("train_mse_ratio", math.nan)), float(extra[MSE_KEY])
    return float(snap.train_acc), float(snap.test_acc)


def zero_gradient(snap) -> bool:
    """Whether the step's hinge gradient on w was exactly zero (measured by the engine's Run
    only: the GFL procedure's and the AZL world's snapshots carry their own probes instead)."""
    own = "coverage" in _extra(snap) or "c_G" in _extra(snap)  # a procedure's own probes
    return bool(snap.step > 0 and not snap.grad and not own)


def _score(snap) -> str:
    """'test accuracy 97 %, train 99 %' or 'test MSE / Var(y) 0.28 (lower is better), …'."""
    if regression(snap):
        train, test = scores(snap)
        return (f"test MSE / Var(y) {test:.3f} (lower is better; 1 = predicting the mean), "
                f"train {train:.3f}")
    return f"test accuracy {_pct(snap.test_acc)}, train {_pct(snap.train_acc)}"


def _aligned(snap) -> str:
    """'37 % of the 600 neurons within cos 0.9 of a star (120 on +Σ_A M, 102 on −Σ_A M)'."""
    plus, minus = star_counts(snap.cos)
    return (f"{_pct(snap.frac_aligned)} of the {len(snap.cos)} neurons within cos {ALIGNED:g} of a "
            f"star ({plus} on +Σ_A M, {minus} on −Σ_A M); max cos {snap.cos_max:.2f}")


def narrate(history: list, i: int, truth: bool = True) -> str:
    """What the charts show at history index i, with the numbers of that snapshot (markdown)."""
    snap = history[i]
    acc = _score(snap)
    if "coverage" in _extra(snap):
        return _gfl_text(snap, acc)
    if not truth:
        return f"**Step {snap.step}** ({snap.stage}): {acc}. {NO_TRUTH}"
    where = _aligned(snap)
    if snap.step == 0:
        return (f"**Initialisation.** The neurons point in random directions: {where}; {acc}. "
                "Press **Step** (→) to take the first step.")
    if snap.stage == "step 1":
        text = f"**After step 1** (one large step on the whole training set): {where}. "
        if snap.frac_aligned < 0.5:
            text += "Most neurons are still in the cloud: their random start still dominates."
        else:
            text += "One step already put most neurons on a star."
        return text + f" {acc}."
    if snap.stage == "step 2":
        before = history[i - 1] if i > 0 else snap
        gain = snap.frac_aligned - before.frac_aligned
        text = f"**After step 2:** {where}"
        text += (f", up from {_pct(before.frac_aligned)} after step 1. " if gain > 0.005
                 else ". ")
        return text + (f"{acc}. These are the features the paper proves the network learns "
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
            f"{int(stayed.sum())} that stayed, {verdict}. The paper's Fig. 2 shows steps 0-2 "
            "only; its theory has the first layer barely move after step 2.")


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
            "in steps 1-2 stay while the output layer trains, as in the paper's theory, where "
            "the first layer barely moves after step 2.")


def _gfl_text(snap, acc: str) -> str:
    """Algorithm 1's frame in words, quoting the snapshot's probes."""
    e = _extra(snap)
    cover, aligned, share = e["coverage"], snap.frac_aligned, e["relevant_share"]
    probes = (f"coverage {cover:.2f} — every feature direction has a neuron within cos "
              f"{cover:.2f}; {_pct(aligned)} of the neurons within cos {ALIGNED:g} of a "
              f"direction; relevant share {share:.2f} (median share of a neuron's weight in "
              "the relevant subspace)")
    if snap.step == 0:
        head = "**Initialisation** (g⁽⁰⁾ ≡ 0: the twins cancel)"
    elif snap.step == 1 and snap.stage.startswith("step 1"):
        head = "**After step 1** (the reset: one gradient step from the symmetric start)"
    else:
        head = f"**Step {snap.step}** ({snap.stage})"
    return f"{head}: {probes}; {acc}."


def azl_markdown(run, i: int) -> str:
    """The AZL Explore run's narration of history index i, its head ("step 120 · 3-layer
    ResNet") in bold."""
    head, _, rest = run.narration(run.history[i]).partition(": ")
    return f"**{head[:1].upper()}{head[1:]}:** {rest}"


def narrate_html(history: list, i: int, truth: bool = True, run=None) -> str:
    """narrate() (the AZL run's own narration where `run` has one) as HTML for the player
    (**bold** → <b>, everything else escaped)."""
    text = azl_markdown(run, i) if hasattr(run, "narration") else narrate(history, i, truth)
    parts = html.escape(text).split("**")
    return "".join(f"<b>{p}</b>" if k % 2 else p for k, p in enumerate(parts))


AZL_PROBES = (
    "Measured after every step, for all five methods trained side by side on the same data, "
    "initialisation and mini-batches: the test error E‖out − y‖² and the projections c_F = "
    "mean_r E[out_r F_r] and c_G = mean_r E[out_r G_r]/α on 1 024 fixed test points (the whole "
    "test set at the last step). The map is the 3-layer ResNet's first layer W: classical MDS "
    "on the cosine distance of its rows and the 32 pair stars ±(e_{2r−1} ± e_{2r})/√2, one "
    "colour per pair r; a count is the neurons within cos 0.9 of one of that pair's four "
    "stars. Pair purity = mean over neurons of max_r (w²_{2r−1} + w²_{2r}) / ‖w‖²; V's share = "
    "the share of ‖V‖² on out₁…out₄, the coordinates G reads (docs/azl.md).")


def header(cfg: Config) -> str:
    """The setting in one line above the player (a world the resnet3 procedure trains, the AZL
    world: its own settings, no p_o and no paper schedule)."""
    if "resnet3" in world(cfg).procedures:
        return (f"**AZL world ({cfg.azl_variant}) · d={cfg.d} · k={cfg.k} outputs · "
                f"m={cfg.m}** · n={cfg.n:,} · T={cfg.T} SGD steps · batch={cfg.batch} · "
                f"seed={cfg.seed}")
    record = world(cfg)
    how = (f"schedule={cfg.schedule}" if reads_common(record, "schedule") else
           f"procedure={procedure_of(cfg).name}")
    return (f"**{summary_line(cfg)}** · n={cfg.n:,} · T={cfg.T} · batch={cfg.batch} · "
            f"{how} · seed={cfg.seed}")


def probes(cfg: Config, run=None) -> str:
    """What is measured every step, and on which samples (the AZL run's own words where `run`
    is the AZL world's)."""
    if hasattr(run, "narration"):
        return AZL_PROBES
    n_tr, n_te = min(cfg.n, PROBE_SAMPLES), min(cfg.n_test, PROBE_SAMPLES)
    return (f"Measured after every step: train and test accuracy and hinge loss on fixed samples "
            f"of {n_tr:,} training and {n_te:,} test points (drawn once from the seed; the whole "
            f"sets of {cfg.n:,} and {cfg.n_test:,} at steps 0, 1, 2 and T); the cosine of every "
            f"one of the {2 * cfg.m} neurons with Σ_A M, the relevant/background split of the "
            "loss gradient (root mean square over neurons), and the MDS map (classical MDS on "
            "cosine distance, rotated onto the previous frame so points do not jump).")
