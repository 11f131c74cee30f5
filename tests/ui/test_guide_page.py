"""AppTest tests of the Guide page: it renders and carries the paper's key formulas."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from engine.presets import preset_config
from engine.procedures.gfl.cards import stored
from engine.run import Run
from engine.worlds import build_world

APP = str(Path(__file__).resolve().parents[2] / "app.py")
ROOT = Path(__file__).resolve().parents[2]
# the paper's Guide sections, as its procedure's package tells them
GUIDE = ROOT / "engine" / "procedures" / "shi2022" / "guide.py"


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


def test_the_guides_paper_parity_numbers_are_the_engines() -> None:
    # the Guide quotes paper-parity's steps 1-2 and 50; T does not change them (paper schedule)
    world = build_world(preset_config("paper-parity").replace(T=50), "cpu")
    run = Run(world, "network", embed=False)
    while not run.done:
        run.step()
    h = run.history
    rel = [h[t].grad["grad_rel"] for t in (1, 2)]
    bg = [h[t].grad["grad_bg"] for t in (1, 2)]
    shares = [round(r / (r + b), 2) for r, b in zip(rel, bg, strict=True)]
    ratios = [round(r / b) for r, b in zip(rel, bg, strict=True)]
    assert shares == [0.95, 0.97] and ratios == [21, 29]
    assert h[2].frac_aligned == 1.0 and round(h[2].cos_max, 3) == 0.999
    assert h[50].frac_aligned == 1.0  # the classifier stage keeps every neuron on its star
    same = Run(build_world(preset_config("paper-parity").replace(T=50, optimizer_w="same"),
                           "cpu"), "network", embed=False)
    while not same.done:  # Adam on both layers, the previous default: the features dissolve
        same.step()
    assert round(100 * same.history[50].frac_aligned) == 38
    text = GUIDE.read_text(encoding="utf-8")
    for quoted in ("0.999 here on paper-parity", "0.95 at step 1", "0.97 at step 2", "21 → 29",
                   "all 600 neurons are still within cos 0.9 of",
                   "falls to 38 % by step 50"):
        assert quoted in text, quoted


def test_the_guides_depth_numbers_are_the_stored_results() -> None:
    """Section 7 quotes docs/results/azl.json (azl-resnet, seeds 0-2), rounded as shown."""
    import json

    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("pages/guide.py").run()
    assert "Depth" in " ".join(h.value for h in at.header)
    text = " ".join(m.value for m in at.markdown)
    stored = json.loads((ROOT / "docs" / "results" / "azl.json").read_text())
    methods = stored["presets"]["azl-resnet"]["methods"]
    assert f"test error is {methods['resnet3']['test_err']:.2f}" in text
    assert f"learns {100 * methods['resnet3']['c_G']:.0f} % of αG" in text
    assert f"2-layer net stays at {methods['two_layer']['test_err']:.2f}" in text
    assert f"G: {100 * methods['two_layer']['c_G']:.0f} %" in text
    assert f"NTK at {methods['ntk']['test_err']:.2f}" in text
    assert f"last layer at {methods['last_layer']['test_err']:.2f}" in text
    assert f"({methods['fc3']['test_err']:.2f})" in text


def test_the_guide_explains_algorithm_1_with_the_stored_gfl_numbers() -> None:
    """Issue 21 item 4: a section on Algorithm 1 whose numbers are docs/results/gfl.json's."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("pages/guide.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("gradient features" in h.value for h in at.header)
    assert any(r"g^{(0)} \equiv 0" in x.value for x in at.latex)
    net = stored()["gfl-xor"]["methods"]["network"]
    text = " ".join(m.value for m in at.markdown)
    assert f"{net['probes']['1']['coverage']:.2f} after step 1" in text
    assert f"{100 * net['test_acc']:.1f} % for the network" in text
    assert "no experiments" in text


# how the Guide writes a key of the player's KEYS table (ui/player/playback.js)
KEY_WORDS = {" ": "space", "ArrowRight": "→", "ArrowLeft": "←", "r": "R", "R": "R"}


def test_the_guide_lists_every_key_of_the_player() -> None:
    """The Keyboard section (issue 34) names each key the player answers, read from its code."""
    import re

    js = (ROOT / "ui" / "player" / "playback.js").read_text(encoding="utf-8")
    table = re.search(r"const KEYS = \{(.*?)\};", js, re.S).group(1)
    keys = re.findall(r'"?([^",{}:\s]+|" ")"?\s*:\s*"\w+"', table)
    keys = [" " if k == '" "' else k for k in keys]
    assert {"ArrowRight", "ArrowLeft", " "} <= set(keys), keys
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("pages/guide.py").run()
    assert "Keyboard" in [h.value for h in at.header]
    section = next(m.value for m in at.markdown if "| key | does |" in m.value)
    rows = dict(re.findall(r"^\| (.+?) \| (.+?) \|$", section, re.M))
    for key in keys:
        assert KEY_WORDS.get(key, key) in rows, f"the Guide does not list the key {key!r}"
    assert "Tab" in section and "focus ring" in section


def test_guide_defines_the_converged_limit_terms():
    """Explore and Compare draw converged limits: the Guide defines the limit, its certificate,
    the ridge path and 'Network − best limit' (issue 36)."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.switch_page("pages/guide.py").run()
    assert not at.exception, [e.value for e in at.exception]
    text = " ".join(m.value for m in at.markdown)
    for term in ("**converged limit**", "**certificate**", "**ridge path**",
                 "**Network − best limit**", "max-margin", "λ → 0"):
        assert term in text, term
