"""What a frame-cache file must hold before the hub replays it as a run (engine/hub/disk.py
reads it, bounded): the key and the very setting asked for, T, a meta the player can draw and
frames of the right count and shape. Anything else is ignored and the run computed instead, so
another run's frames filed under a key are never shown as that run."""

from __future__ import annotations

import base64
import binascii

from . import packing

MAX_DEPTH = 6  # a frame's values: numbers, text, small lists and dicts (rows, counts)
META_INTS = ("T", "neurons", "points")


def problem(body, key: str, settings: dict | None, T: int | None) -> str:
    """Why body is not key's complete run ('' when it is). settings/T: those of the setting
    asked for (None: not compared, `engine warm`'s own check of a file it wrote)."""
    if not isinstance(body, dict) or not {"key", "settings", "T", "meta", "frames"} <= set(body):
        return "not a cache record"
    if body["key"] != key:
        return "filed under another key"
    if settings is not None and body["settings"] != settings:
        return "its stored setting is not the key's"
    t = body["T"]
    if type(t) is not int or t < 0 or (T is not None and t != T):
        return "T does not match the setting"
    return _meta_problem(body["meta"], t) or _frames_problem(body["frames"], t, body["meta"])


def _meta_problem(meta, T: int) -> str:
    if not isinstance(meta, dict) or not isinstance(meta.get("run"), str):
        return "no meta"
    if any(type(meta.get(k)) is not int or meta[k] < 0 for k in META_INTS) or meta["T"] != T:
        return "meta's sizes do not match"
    if not isinstance(meta.get("marks", []), list) or _depth(meta) > 2 * MAX_DEPTH:
        return "meta's marks are not a list"
    if meta.get("limit_curves") and not _settled(meta.get("limits")):
        return "written before its limits arrived"
    return ""


def _settled(limits) -> bool:
    return isinstance(limits, dict) and limits.get("pending") is False


def _frames_problem(frames, T: int, meta: dict) -> str:
    if not isinstance(frames, dict) or frames.get("step") != list(range(T + 1)):
        return "its frames are not steps 0..T"
    for col, value in frames.items():
        if isinstance(value, str):
            try:
                size = len(base64.b64decode(value, validate=True))
            except (binascii.Error, ValueError):
                return f"column {col!r} is not base64"
            if size % (T + 1) or (col == "pos" and size // (T + 1) != 4 * meta["points"]):
                return f"column {col!r} does not fit {T + 1} frames of {meta['points']} points"
        elif not isinstance(value, list) or len(value) != T + 1:
            return f"column {col!r} is not one value per frame"
        elif any(_depth(v) > MAX_DEPTH for v in value):
            return f"column {col!r} nests too deep"
    return ""


def _depth(value) -> int:
    """How deep lists and dicts nest in value (iterative: a deep nest cannot recurse)."""
    deepest, todo = 0, [(value, 0)]
    while todo:
        item, level = todo.pop()
        deepest = max(deepest, level)
        if deepest > 4 * MAX_DEPTH:
            return deepest
        if isinstance(item, dict):
            todo.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            todo.extend((v, level + 1) for v in item)
    return deepest


def records(body: dict) -> dict:
    """{meta, T, frames (records), schema} of a checked body (engine.hub.store.load)."""
    return {"meta": body["meta"], "T": body["T"], "frames": packing.split(body["frames"]),
            "schema": packing.kinds(body["frames"])}
