"""Colour arithmetic for the player's colour tests: sRGB ↔ CIELAB, CIEDE2000, WCAG contrast, and
dichromat simulation (Machado, Oliveira & Fernandes 2009, severity 1.0, on linear RGB)."""

from __future__ import annotations

import math

import numpy as np

# Machado et al. 2009, Table 1 (severity 1.0): linear-RGB matrices
MACHADO = {
    "protanopia": np.array([[0.152286, 1.052583, -0.204868],
                            [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968],
                              [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
}
D65 = np.array([0.95047, 1.0, 1.08883])
SRGB_TO_XYZ = np.array([[0.4124564, 0.3575761, 0.1804375],
                        [0.2126729, 0.7151522, 0.0721750],
                        [0.0193339, 0.1191920, 0.9503041]])


def rgb(hex_colour: str) -> np.ndarray:
    """'#RRGGBB' → sRGB in [0, 1]."""
    h = hex_colour.lstrip("#")
    return np.array([int(h[k:k + 2], 16) / 255 for k in (0, 2, 4)])


def linear(c: np.ndarray) -> np.ndarray:
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def simulate(hex_colour: str, kind: str | None) -> np.ndarray:
    """The colour as a dichromat of `kind` sees it, in linear RGB (None: as drawn)."""
    lin = linear(rgb(hex_colour))
    return lin if kind is None else np.clip(MACHADO[kind] @ lin, 0, 1)


def lab(lin: np.ndarray) -> np.ndarray:
    """Linear RGB → CIELAB (D65)."""
    xyz = SRGB_TO_XYZ @ lin / D65
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def ciede2000(a: np.ndarray, b: np.ndarray) -> float:
    """CIEDE2000 colour difference of two CIELAB colours (Sharma, Wu & Dalal 2005)."""
    (l1, a1, b1), (l2, a2, b2) = a, b
    cbar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(cbar ** 7 / (cbar ** 7 + 25 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360
    h2p = math.degrees(math.atan2(b2, a2p)) % 360
    dlp, dcp = l2 - l1, c2p - c1p
    dh = 0.0 if c1p * c2p == 0 else h2p - h1p - 360 * round((h2p - h1p) / 360)
    dhp = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    lbar, cbarp = (l1 + l2) / 2, (c1p + c2p) / 2
    hsum = h1p + h2p
    if c1p * c2p == 0:
        hbar = hsum
    elif abs(h1p - h2p) <= 180:
        hbar = hsum / 2
    else:
        hbar = (hsum + 360) / 2 if hsum < 360 else (hsum - 360) / 2
    cos = lambda deg: math.cos(math.radians(deg))  # noqa: E731 - the formula's shorthand
    t = (1 - 0.17 * cos(hbar - 30) + 0.24 * cos(2 * hbar) + 0.32 * cos(3 * hbar + 6)
         - 0.20 * cos(4 * hbar - 63))
    sl = 1 + 0.015 * (lbar - 50) ** 2 / math.sqrt(20 + (lbar - 50) ** 2)
    sc, sh = 1 + 0.045 * cbarp, 1 + 0.015 * cbarp * t
    rt = (-2 * math.sqrt(cbarp ** 7 / (cbarp ** 7 + 25 ** 7))
          * math.sin(math.radians(60 * math.exp(-(((hbar - 275) / 25) ** 2)))))
    return math.sqrt((dlp / sl) ** 2 + (dcp / sc) ** 2 + (dhp / sh) ** 2
                     + rt * (dcp / sc) * (dhp / sh))


def difference(c1: str, c2: str, kind: str | None) -> float:
    """CIEDE2000 between two '#RRGGBB' colours as `kind` sees them."""
    return ciede2000(lab(simulate(c1, kind)), lab(simulate(c2, kind)))


def contrast(fg: str, bg: str) -> float:
    """WCAG 2.1 contrast ratio of two '#RRGGBB' colours."""
    lum = [float(np.array([0.2126, 0.7152, 0.0722]) @ linear(rgb(c))) for c in (fg, bg)]
    hi, lo = max(lum), min(lum)
    return (hi + 0.05) / (lo + 0.05)
