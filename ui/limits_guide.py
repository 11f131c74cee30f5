"""The Guide's definitions of the converged limits (engine/limits, docs/limits.md) that Explore,
Compare and Reproduce draw: the limit, its certificate, the ridge path, Network − best limit."""

from __future__ import annotations

import streamlit as st

TERMS = (
    ("converged limit",
     "a fixed-feature method's readout (RF, One/Two Step, the NTK) trained on the same features "
     "with the same loss until it cannot improve: the value its T-step curve tends to. Where the "
     "method trains with its own weight decay λ (the paper schedule's classifier stage, AZL's "
     "weight decay) that λ defines the problem. Where it trains without decay (GFL, FCB, the "
     "theory and standard schedules) gradient descent tends to the λ → 0 end of the "
     "regularised path: the max-margin readout where the features separate the training set "
     "(decided by a linear program), else the smallest λ of the path (least squares: the "
     "minimum-norm fit)"),
    ("certificate",
     "why the limit's number can be trusted: for the hinge loss the relative duality gap "
     "(P(w) − D(α)) / P(w), with α built from the answer's margins alone, so any solver's answer "
     "(libsvm's, the engine's own Newton) is held to the same test; for the squared and logistic "
     "losses the relative gradient norm. Both are ≤ 1e-4 for a converged limit"),
    ("ridge path",
     "the same readout solved at λ = 1e-2, 1e-3, …, 1e-8: its test value at each λ, drawn on "
     "Compare with the chosen limit marked (★). A flat path says the limit does not hinge on the "
     "tie-break; a moving one shows how much λ → 0 changes the answer"),
    ("Network − best limit",
     "the network's test accuracy minus the best converged limit of any fixed-feature method "
     "(in points; for regression, the difference in MSE / Var(y)): positive where learning the "
     "features beats every fixed-feature readout even trained to convergence"),
)


def section() -> None:
    """The Guide's section on converged limits: one definition per term."""
    st.header("Converged limits: what the dashed lines are")
    st.markdown("\n\n".join(f"**{term}** — {text}." for term, text in TERMS))
