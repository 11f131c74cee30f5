"""Reproduce page: the "Dissertation, chapter 3" group, one card per preset of a world trained
by the GFL procedure (Algorithm 1), the source's claim in words beside our stored numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import streamlit as st

from engine.presets import Preset
from ui import limit_cells as lc
from ui import reproduce_cards as rc

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results" / "gfl.json"
GROUP = "Dissertation, chapter 3"
NO_EXPERIMENTS = ("Shi's dissertation, chapter 3, states theorems with Θ(·) scales only and runs "
                  "no experiments: the claims below are its statements in words, and **every "
                  "number is ours** (seed 0, `docs/results/gfl.json`; choices that fill the "
                  "source's gaps: docs/gfl.md).")
# what the dissertation proves for each preset's data, in words (new-worlds-spec §3 "What emerges")
CLAIMS = {
    "gfl-xor": "One gradient step from the symmetric start turns neurons toward the four XOR "
               "centres ±µ₁, ±µ₂; the trained network then classifies with small error, while "
               "fixed features (random features, the NTK) need far more neurons or samples.",
    "gfl-uniform-parity": "After one step the weights concentrate on the k relevant bits (share of "
                          "A rises); a bump function of ⟨Σ_A e_j, x⟩ then fits the parity exactly.",
    "gfl-multi-index": "One giant step projects every neuron onto the 2-d relevant plane; random "
                       "features stay at their random share ≈ 0.22 and fit the target worse.",
    "gfl-linear": "With a large bias every neuron's gradient points along Σ_A M: the linear "
                  "threshold is learned after one step.",
    "gfl-parity-blocks": "Step 1 finds every block's direction D_j = Σ_{A_j} M_l/√k (coverage of "
                         "all r blocks); bumps on ⟨D_j, x⟩ fit the labels.",
    "gfl-mog": "Gradient features (D_j, +1) exist for every cluster centre: after step 1 each "
               "centre has neurons aligned with it, and the network separates the mixture.",
}


def gfl_presets() -> list[Preset]:
    """Presets whose world trains by the GFL procedure by default, in registry order."""
    return rc.presets_of("gfl")


def stored() -> dict:
    """docs/results/gfl.json, or {} when it is missing."""
    return json.loads(RESULTS.read_text()) if RESULTS.exists() else {}


def numbers_table(entry: dict) -> pd.DataFrame:
    """Per method: the test number (accuracy % or MSE / Var(y)) at T and at its converged limit,
    coverage and relevant share at steps 0 → 1 → T."""
    rows = {}
    for method, m in entry["methods"].items():
        probes = m["probes"]
        steps = sorted(probes, key=int)
        mse = m.get("test_mse_ratio")
        key, fmt = (("test_mse_ratio", lambda v: f"MSE/Var {v:.3f}") if mse is not None
                    else ("test_acc", lambda v: f"{100 * v:.1f} %"))
        rows[method] = {
            "test": fmt(m[key]),  # at T, the preset's step budget
            "test · converged limit": lc.limit_cell(m, method, key, fmt),
            "coverage 0 → 1 → T": " → ".join(f"{probes[s]['coverage']:.2f}" for s in steps),
            "relevant share 0 → 1 → T": " → ".join(f"{probes[s]['relevant_share']:.2f}"
                                                   for s in steps)}
    return pd.DataFrame(rows).T


def card(p: Preset) -> None:
    """One preset: the source's claim, our numbers, the command, open in Explore / Compare."""
    with st.container(border=True):
        st.markdown(f"### {p.title}")
        st.caption(f"`{p.name}` · source: {p.source}")
        st.markdown(f"**The source's claim:** {CLAIMS.get(p.name, p.description)}")
        entry = stored().get(p.name)
        if entry is not None:
            st.markdown("**Our numbers** (seed 0):")
            st.dataframe(numbers_table(entry).rename_axis("method"), width="stretch")
            st.caption(f"`{entry['command']}` · commit {entry['commit']} · {entry['date']}")
            if lc.missing(entry["methods"]):
                st.caption(lc.not_stored(p.name))
        st.code(rc.command(p.name), language="bash")
        rc.buttons(p.name, "preset")
