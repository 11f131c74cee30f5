"""Words for the Explore page: what to look for at each stage, and what is measured."""

from __future__ import annotations

from engine.config import Config
from engine.run import PROBE_SAMPLES

LOOK_FOR = {
    "init": "**Initialisation.** The neurons point in random directions: on the map they form a "
            "cloud with no neuron on a star, and accuracy is at chance. Press **Step** once.",
    "step 1": "**Step 1** (one large step on the whole training set). In the gradient of each "
              "neuron the *relevant* part (patterns in A) is already far larger than the "
              "*background* part — see the ratio chart. The weights start to lean towards "
              "±Σ_A M, but the random start still dominates their direction.",
    "step 2": "**Step 2.** The second step amplifies the signal: many neurons land near the red "
              "star +Σ_A M or the orange diamond −Σ_A M and the max cosine jumps towards 1. "
              "This is the feature the paper proves is learned — fixed features never get it.",
    "classifier": "**Classifier stage** (t > 2). The features are in place; smaller steps now "
                  "mostly train the output weights a_i on top of them. Watch train and test "
                  "accuracy climb while the neurons stay on the stars.",
}
NO_TRUTH = ("This data has no single planted Σ_A M, so the map shows the data's centres "
            "(class means or mixture centres) instead of the stars and the gradient split is not "
            "defined; look for neurons gathering on the centres, in clusters.")


def look_for(stage: str, truth: bool) -> str:
    """The hint for a stage ('init', 'step 1', 'step 2', 'classifier')."""
    text = LOOK_FOR.get(stage, LOOK_FOR["classifier"])
    return text if truth else text + " " + NO_TRUTH


def probes(cfg: Config) -> str:
    """What is measured every step, and on which samples."""
    n_tr, n_te = min(cfg.n, PROBE_SAMPLES), min(cfg.n_test, PROBE_SAMPLES)
    return (f"Measured after every step: train and test accuracy and hinge loss on fixed samples "
            f"of {n_tr:,} training and {n_te:,} test points (drawn once from the seed; the whole "
            f"sets of {cfg.n:,} and {cfg.n_test:,} at steps 0, 1, 2 and T); the cosine of every "
            f"one of the {2 * cfg.m} neurons with Σ_A M, the relevant/background split of the "
            "loss gradient (root mean square over neurons), and the MDS map (classical MDS on "
            "cosine distance, rotated onto the previous frame so points do not jump).")
