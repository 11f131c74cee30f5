"""Cut a packed batch of frames (FrameStream.frames: base64 arrays and per-frame lists) into one
record per frame, and join records back into one batch: the hub stores frames one by one, so a
late joiner, the browser's resend and the disk cache each get exactly the frames they ask for.

Every frame of a run has the same shape, so a base64 column divides evenly by the frame count;
a list column holds one value per frame. The browser's payload schema is unchanged.
"""

from __future__ import annotations

import base64
import json

# per frame, besides its arrays: the dict, its list slots, the small numbers (measured ~1 KB
# of Python objects for a frame of ~20 columns)
FRAME_OVERHEAD = 1024


def split(batch: dict) -> list[dict]:
    """One record per frame: {column: value} for list columns, {column: bytes} for arrays."""
    n = len(batch.get("step", ()))
    frames: list[dict] = [{} for _ in range(n)]
    if n == 0:
        return frames
    for col, value in batch.items():
        if isinstance(value, str):
            raw = base64.b64decode(value)
            if len(raw) % n:
                raise ValueError(f"column {col}: {len(raw)} bytes do not divide into {n} frames")
            size = len(raw) // n
            for i, frame in enumerate(frames):
                frame[col] = raw[i * size:(i + 1) * size]
        elif isinstance(value, list) and len(value) == n:
            for frame, item in zip(frames, value, strict=True):
                frame[col] = item
        else:
            raise ValueError(f"column {col}: neither base64 nor one value per frame")
    return frames


def kinds(batch: dict) -> dict[str, bool]:
    """{column: True for a base64 array column}: the schema of an empty batch."""
    return {col: isinstance(value, str) for col, value in batch.items()}


def join(frames: list[dict], schema: dict[str, bool] | None = None) -> dict:
    """The packed batch of these frames (the browser player's payload); with no frames, the
    empty columns of `schema` (kinds())."""
    if not frames:
        return {col: "" if b64 else [] for col, b64 in (schema or {"step": False}).items()}
    out: dict = {}
    for col, first in frames[0].items():
        if isinstance(first, bytes):
            out[col] = base64.b64encode(b"".join(f[col] for f in frames)).decode("ascii")
        else:
            out[col] = [f[col] for f in frames]
    return out


def size(frame: dict) -> int:
    """Bytes one stored frame holds (arrays exactly, the rest as its JSON text plus overhead)."""
    raw = sum(len(v) for v in frame.values() if isinstance(v, bytes))
    rest = {k: v for k, v in frame.items() if not isinstance(v, bytes)}
    return raw + len(json.dumps(rest, default=str)) + FRAME_OVERHEAD
