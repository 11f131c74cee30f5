"""Reproduce page: the "Allen-Zhu & Li 2019, Figure 2" group, one card per preset of the AZL
world, the source's claims beside our stored numbers over three seeds (docs/results/azl.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import streamlit as st

from engine.presets import Preset
from engine.procedures import RECORDS
from ui import limit_cells as lc
from ui import reproduce_cards as rc

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results" / "azl.json"
GROUP = "Allen-Zhu & Li 2019, Figure 2 (depth)"
NO_NUMBERS = ("The source's Figure 2 gives no per-method numbers in its text, only the claims "
              "below: **every number here is ours** (mean ± std over seeds 0–2, "
              "`docs/results/azl.json`; choices that fill the source's gaps: docs/azl.md). "
              "kα² is the test error of a perfect F with no G: below it, part of G is learned.")
CLAIMS = ("“3resnet is the only method capable of learning αG(F(x)) to some non-trivial "
          "accuracy” [L241]; “3 layer fully-connected networks and kernel methods can indeed "
          "fail to learn G(F) up to any non-trivial accuracy” [L112]; F is learned first, then G.")
LABELS = RECORDS["resnet3"].labels()  # the procedure's record (engine/procedures/resnet3)


def azl_presets() -> list[Preset]:
    """Presets whose world trains by the resnet3 procedure (the AZL world), in registry order."""
    return rc.presets_of("resnet3")


def stored() -> dict:
    """docs/results/azl.json's presets, or {} when it is missing."""
    return json.loads(RESULTS.read_text())["presets"] if RESULTS.exists() else {}


def numbers_table(entry: dict) -> pd.DataFrame:
    """Per method: test error (mean ± std), below kα² or not, c_F and c_G (means)."""
    line = entry["threshold"]
    rows = {}
    for method, m in entry["methods"].items():
        rows[LABELS.get(method, method)] = {
            "test error": f"{m['test_err']:.3f} ± {m['test_err_std']:.3f}",
            "test error · converged limit": lc.limit_cell(m, method, "test_err",
                                                          lambda v: f"{v:.3f}"),
            f"below kα² = {line:g}": "yes" if m["test_err"] < line else "no",
            "c_F": f"{m['c_F']:.2f}", "c_G": f"{m['c_G']:.2f}"}
    return pd.DataFrame(rows).T


def card(p: Preset) -> None:
    """One preset: the source's claims, our numbers, the command, open in Explore / Compare."""
    with st.container(border=True):
        st.markdown(f"### {p.title}")
        st.caption(f"`{p.name}` · source: {p.source}")
        st.write(p.description)
        st.markdown(f"**The source's claims:** {CLAIMS}")
        entry = stored().get(p.name)
        if entry is not None:
            seeds = ", ".join(str(s) for s in entry["seeds"])
            st.markdown(f"**Our numbers** (seeds {seeds}):")
            st.dataframe(numbers_table(entry).rename_axis("method"), width="stretch")
            st.caption("`OMP_NUM_THREADS=1 .venv/bin/python -m scripts.azl_results`")
            if lc.missing(entry["methods"]):
                st.caption(lc.not_stored(p.name))
        st.code(rc.command(p.name), language="bash")
        rc.buttons(p.name, "preset")
