"""The GIF export's server memory, measured (issue 30, finding 1): main kept every 480×480 frame
(~1.2 MB each) until Pillow saved them, +2.9 GB for a T = 2500 run. A fresh process trains the
Explore run, then its peak resident size is reset and the GIF built (bench/exports.py)."""

from __future__ import annotations

from pathlib import Path

from bench.exports import run_case

ROOT = Path(__file__).resolve().parents[2]
RUN = {"n": 400, "n_test": 200, "m": 20, "T": 300, "batch": 100}


def test_the_gif_is_written_frame_by_frame_within_its_estimate():
    r = run_case(RUN, "gif", ROOT)
    assert "error" not in r, r
    # 301 frames: kept whole they were ~350 MB; written one at a time, a few MB
    assert r["growth_mb"] < 60, r
    assert r["estimate_mb"] is not None and r["growth_mb"] <= r["estimate_mb"], r
