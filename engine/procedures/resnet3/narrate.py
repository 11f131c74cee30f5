"""One plain sentence per snapshot for the live view: has F arrived, has G, where the test error
stands against kα² (the error of a perfect F with no G)."""

from __future__ import annotations

F_LEARNED, G_STARTED = 0.9, 0.1  # c_F, c_G levels the narration (and the tests' order) use


def narrate(extra: dict, step: int, threshold: float, seed: int, label: str = "") -> str:
    """E.g. "step 120 · 3-layer ResNet: F learned (c_F 0.96) — G not yet (c_G 0.04); test error
    1.10 is above kα² = 0.72: G is not learned at all (seed 0)"."""
    c_f, c_g, err = extra["c_F"], extra["c_G"], extra["test_err"]
    f_part = f"F learned (c_F {c_f:.2f})" if c_f >= F_LEARNED else f"F not yet (c_F {c_f:.2f})"
    g_part = (f"G being learned (c_G {c_g:.2f})" if c_g >= G_STARTED
              else f"G not yet (c_G {c_g:.2f})")
    if err > threshold:
        level = f"is above kα² = {threshold:.2f}: G is not learned at all"
    else:
        level = f"is below kα² = {threshold:.2f}: part of G is learned"
    who = f" · {label}" if label else ""
    return f"step {step}{who}: {f_part} — {g_part}; test error {err:.2f} {level} (seed {seed})"
