"""Guide section 8: Algorithm 1 and gradient features in plain words (Shi's dissertation, ch. 3),
its numbers read from docs/results/gfl.json."""

from __future__ import annotations

import streamlit as st

from ui.gfl_cards import stored


def _xor_numbers() -> str:
    """'coverage 0.16 at step 0, 0.95 after step 1; network 99.1 %, RF 63.5 %' (stored, seed 0)."""
    entry = stored().get("gfl-xor")
    if entry is None:
        return "the stored numbers are missing (run `python -m scripts.gfl_results`)"
    net, rf = entry["methods"]["network"], entry["methods"]["rf"]
    return (f"coverage {net['probes']['0']['coverage']:.2f} at step 0 and "
            f"{net['probes']['1']['coverage']:.2f} after step 1; test accuracy "
            f"{100 * net['test_acc']:.1f} % for the network against {100 * rf['test_acc']:.1f} % "
            "for random features")


def section() -> None:
    """Algorithm 1, gradient features, and what the six GFL worlds show."""
    st.header("8 · One procedure, many worlds: gradient features")
    st.write(
        "Shi's dissertation (chapter 3) asks whether the two-step story above is special to "
        "sparse parities. Its answer is **Algorithm 1**, one training procedure for many data "
        "distributions: start from a symmetric network whose output is exactly zero (every "
        "neuron has a twin that cancels it), take **one large gradient step** on the whole "
        "training set, then train as usual.")
    st.latex(r"g^{(0)} \equiv 0, \qquad w_i^{(1)} = \eta^{(1)} a_i^{(0)}\,"
             r"\mathbb{E}\big[y\,x\,\mathbf{1}\{\langle w_i^{(0)}, x\rangle > b_i\}\big]")
    st.write(
        "Because the output starts at zero, the first step moves each neuron to a **gradient "
        "feature**: the average of y·x over the inputs that switch the neuron on. Where the "
        "labels depend on a few directions D_j of the input (XOR's centres, a parity's relevant "
        "bits, a mixture's cluster means, a plane in the multi-index world), those averages "
        "point along the D_j, whatever the random start was. The theorems say that enough "
        "neurons land near every D_j, and that a readout on them then fits the labels; fixed "
        "features (random features, the NTK) never move and need far more neurons or samples.")
    st.write(
        "The dashboard measures this per step: **coverage** = for the worst-found direction, the "
        "best neuron's |cos| (1 = every D_j has a neuron on it), the share of neurons within "
        "cos 0.9 of some D_j, and the **relevant share** (how much of a neuron's weight lies "
        "in the relevant subspace). On the XOR world (preset gfl-xor, seed 0): "
        f"{_xor_numbers()}. The chapter runs no experiments, so these numbers are ours, "
        "not the source's. In Explore each D_j is a star in its own colour with its count of "
        "neurons; the six presets are in the Reproduce page's \"Dissertation, chapter 3\" group.")
