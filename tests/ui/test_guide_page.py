"""AppTest tests of the Guide page: it renders and carries the paper's key formulas."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def test_guide_renders_the_theory_with_its_formulas() -> None:
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("pages/guide.py").run()
    assert not at.exception, [e.value for e in at.exception]
    headers = " ".join(h.value for h in at.header)
    for topic in ("data", "network", "Step 1", "Step 2", "fixed features", "input structure"):
        assert topic in headers
    latex = " ".join(x.value for x in at.latex)
    for formula in (r"\tilde x = M\tilde\phi",  # the data model
                    r"\gamma = \mathbb{E}[y\,\tilde\phi_j]",  # the input structure
                    r"\tilde\sigma^2",  # the normalisation
                    r"\sigma(z) = \min(1, \max(z, 0))",  # the truncated ReLU
                    r"a_{m+i}^{(0)} = -a_i^{(0)}",  # the symmetric initialisation
                    r"\sum_{j\in A} M_j",  # step 1 points at Σ_A M
                    r"\frac{\sqrt{2NB}}{2^{k}}"):  # the fixed-feature lower bound
        assert formula in latex, formula
    text = " ".join(m.value for m in at.markdown)
    assert "p_o" in text and "Σ_A M" in " ".join(i.value for i in at.info)
