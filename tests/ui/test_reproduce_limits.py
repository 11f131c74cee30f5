"""Reproduce cards show the T-step value and the converged limit side by side where the stored
results have it (docs/results/gfl.json, regenerated with limits), and a visible "limit: not
stored — run `python -m engine run --preset P`" note where they were stored before limits."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine.procedures.gfl.cards import stored
from engine.procedures.resnet3.cards import stored as azl_stored
from ui import limit_cells
from ui.reproduce_cards import paper_table, stored_results

APP = str(Path(__file__).resolve().parents[2] / "app.py")


@pytest.fixture(scope="module")
def at() -> AppTest:
    app = AppTest.from_file(APP, default_timeout=120)
    app.switch_page("pages/reproduce.py").run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def test_gfl_cards_show_each_fixed_feature_limit_beside_its_t_step_value(at: AppTest) -> None:
    results = stored()
    tables = [df.value for df in at.dataframe if "test · converged limit" in df.value.columns]
    assert len(tables) == 6
    for name, entry in results.items():
        for method, m in entry["methods"].items():
            lim = m.get("limit")
            if method == "network":
                assert lim is None
                continue
            assert lim is not None, (name, method)  # regenerated with limits on
            if lim.get("refused"):
                continue
            assert lim["certificate"] <= 1e-4 and lim["converged"], (name, method)
    xor = results["gfl-xor"]["methods"]["rf"]["limit"]
    want = f"{100 * xor['test_acc']:.1f} % (cert. {xor['certificate']:.0e})"
    assert any(df.loc["rf", "test · converged limit"] == want for df in tables)
    assert any(df.loc["network", "test · converged limit"] == "—" for df in tables)
    mse = results["gfl-multi-index"]["methods"]["rf"]["limit"]["test_mse_ratio"]
    assert any(df.loc["rf", "test · converged limit"].startswith(f"MSE/Var {mse:.3f}")
               for df in tables)


def test_azl_cards_show_the_kernels_stored_limits(at: AppTest) -> None:
    """docs/results/azl.json holds the NTK's and the last layer's limits since 2026-11-26: the
    AZL card shows them beside the T-step errors, '—' for the trained nets, no 'not stored'."""
    captions = [c.value for c in at.caption]
    assert limit_cells.not_stored("azl-resnet") not in captions
    ours = [df.value for df in at.dataframe if "test error · converged limit" in df.value.columns]
    lim = azl_stored()["azl-resnet"]["methods"]["ntk"]["limit"]
    assert ours and ours[0].loc["NTK (2-layer)", "test error · converged limit"] == \
        f"{lim['test_err']:.3f} (cert. {lim['certificate']:.0e})"
    assert ours[0].loc["3-layer ResNet", "test error · converged limit"] == "—"


def test_a_file_stored_before_limits_says_how_to_get_them() -> None:
    """An entry without limits (a results file from before them): 'not stored' for a
    fixed-feature method, '—' for a trained one, and the note names the command."""
    assert limit_cells.limit_cell({"test_err": 3.5}, "ntk", "test_err", str) == "not stored"
    assert limit_cells.limit_cell({"test_err": 0.2}, "resnet3", "test_err", str) == "—"
    assert limit_cells.missing({"ntk": {"test_err": 3.5}, "resnet3": {"test_err": 0.2}})
    assert "limit: not stored — run `python -m engine run --preset azl-resnet`" in \
        limit_cells.not_stored("azl-resnet")


def test_table_cards_show_the_stored_limits(at: AppTest) -> None:
    frames = [df.value for df in at.dataframe if limit_cells.ROW in df.value.index]
    assert len(frames) >= 8  # every Table preset's card (tables.json re-run with limits)
    rf = stored_results()["paper-parity"]["methods"]["rf"]["limit"]
    assert any(df.loc[limit_cells.ROW, "RF"] == f"{100 * rf['test_acc']:.1f}" for df in frames)
    assert all(df.loc[limit_cells.ROW, "NTK"] == "refused" for df in frames[:1])
    assert any(c.value.startswith("Converged limit (ours): each fixed-feature readout solved to "
                                  "a certificate ≤") for c in at.caption)


def test_the_table_layout_gains_a_limit_row_only_where_limits_are_stored() -> None:
    paper = {"rf": {"train_acc": 0.6, "test_acc": 0.5, "cos": 0.2},
             "network": {"train_acc": 1.0, "test_acc": 1.0, "cos": 0.9}}
    ours = {"rf": {"train_acc": 0.7, "test_acc": 0.6, "cos": 0.3,
                   "limit": {"test_acc": 0.65, "certificate": 3e-5, "converged": True}},
            "network": {"train_acc": 1.0, "test_acc": 1.0, "cos": 0.95}}
    frame = paper_table(paper, ours)
    assert frame.loc[limit_cells.ROW, "RF"] == "65.0"
    assert frame.loc[limit_cells.ROW, "Network"] == "—"
    without = paper_table(paper, {m: {k: v for k, v in e.items() if k != "limit"}
                                  for m, e in ours.items()})
    assert limit_cells.ROW not in without.index
