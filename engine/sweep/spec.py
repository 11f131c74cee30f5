"""What a sweep runs: settings (a grid or a list of cells) × seeds × methods, validated up front."""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from dataclasses import dataclass, field

from .. import guard
from .. import presets as preset_mod
from ..config import KNOWN, SPECS, Config, ConfigError, coerce, from_dict
from ..echo import plain
from ..methods import parse_methods as parse_methods  # the one rule, re-exported
from ..procedures import check_methods
from ..reads import refuse_unread

MAX_CELLS = 10_000  # settings × seeds × methods: beyond this a sweep is surely a typo
MAX_SEEDS = 100


@dataclass(frozen=True)
class SweepSpec:
    """A preset, fixed overrides, the swept settings, seeds and methods."""

    preset: str = "quick-parity"
    fixed: dict = field(default_factory=dict)  # KEY -> value applied to every cell
    axes: tuple = ()  # ((name, (v1, v2, ...)), ...) for a grid
    cells: tuple = ()  # ((name, value) pairs, ...) for a list; used when given
    seeds: int = 1
    seed: int = 0  # first seed
    methods: tuple = ("network", "ntk", "rf", "one_step")
    device: str = "cpu"

    def names(self) -> list[str]:
        """The swept settings, in axis order."""
        if self.cells:
            seen: list[str] = []
            for cell in self.cells:
                seen += [k for k, _ in cell if k not in seen]
            return seen
        return [name for name, _ in self.axes]

    def count(self) -> int:
        """How many settings (cells), from the axis lengths: nothing is built."""
        return len(self.cells) if self.cells else math.prod(len(v) for _, v in self.axes)

    def settings(self) -> list[dict]:
        """Each cell's swept settings as {name: value}."""
        if self.cells:
            return [dict(cell) for cell in self.cells]
        names = self.names()
        return [dict(zip(names, combo, strict=True))
                for combo in itertools.product(*(vals for _, vals in self.axes))]

    def config(self, setting: dict, seed: int) -> Config:
        """The validated Config of one cell and seed."""
        values = {**preset_mod.get(self.preset).settings, **self.fixed, **setting, "seed": seed}
        return from_dict(values)

    def to_dict(self) -> dict:
        """JSON-safe description (stored with the results)."""
        return {"preset": self.preset, "fixed": self.fixed,
                "axes": [[n, list(v)] for n, v in self.axes],
                "cells": [[list(p) for p in c] for c in self.cells], "seeds": self.seeds,
                "seed": self.seed, "methods": list(self.methods), "device": self.device}

    @classmethod
    def from_dict(cls, d: dict) -> SweepSpec:
        """Inverse of to_dict."""
        return cls(d["preset"], dict(d["fixed"]), tuple((n, tuple(v)) for n, v in d["axes"]),
                   tuple(tuple(tuple(p) for p in c) for c in d["cells"]), d["seeds"], d["seed"],
                   tuple(d["methods"]), d.get("device", "cpu"))


def parse_values(name: str, text: str) -> tuple:
    """'1,3,5' for setting `name` → typed values; ConfigError names the setting."""
    if name not in SPECS or name == "seed":
        # the first few names: the list grows with every world and procedure, the line may not
        allowed = ", ".join([k for k in SPECS if k != "seed"][:12])
        raise ConfigError("--grid", name, f"a setting name, e.g. {allowed} (`python -m engine "
                          "settings` lists all; seeds: use --seeds)")
    if text.count(",") >= MAX_CELLS:  # counted before any value is built
        raise ConfigError(name, f"{text.count(',') + 1} values",
                          f"at most {MAX_CELLS} values (a sweep has at most {MAX_CELLS} rows)")
    parts = [t.strip() for t in text.split(",") if t.strip()]
    if not parts:
        raise ConfigError(name, text, "a comma-separated list of values: " +
                          SPECS[name].allowed())
    values = tuple(coerce(name, p) for p in parts)
    if len(set(values)) != len(values):
        raise ConfigError(name, text, "distinct values (a repeated value would repeat cells)")
    return values


def parse_pair(text: str, flag: str) -> tuple[str, str]:
    """'KEY=VALUE' → (key, value)."""
    if "=" not in text:
        raise ConfigError(flag, text, f"KEY=VALUE with KEY {KNOWN}")
    key, value = text.split("=", 1)
    return key.strip(), value.strip()


def parse_cell(text: str) -> tuple:
    """'k=3 p_o=0.2' (space- or semicolon-separated) → ((k, 3), (p_o, 0.2))."""
    pairs = [parse_pair(t, "--cell") for t in text.replace(";", " ").split() if t]
    if not pairs:
        raise ConfigError("--cell", text, "one or more KEY=VALUE pairs, e.g. 'k=3 p_o=0.2'")
    names = [k for k, _ in pairs]
    if len(set(names)) != len(names) or "seed" in names:
        raise ConfigError("--cell", text, "each setting once per cell, seed not among them "
                          "(seeds: use --seeds)")
    return tuple((k, coerce(k, v)) for k, v in pairs)


def check_cells(cells: tuple) -> None:
    """ConfigError on a repeated cell (it would train the same runs twice)."""
    seen = set()
    for cell in cells:
        key = tuple(sorted(cell))
        if key in seen:
            where = " ".join(f"{k}={v}" for k, v in cell)
            raise ConfigError("--cell", where, "each cell once (this one is given twice)")
        seen.add(key)


def check_size(spec: SweepSpec) -> None:
    """ConfigError when settings × seeds × methods exceeds MAX_CELLS (counted, not built)."""
    rows = spec.count() * spec.seeds * len(spec.methods)
    if rows > MAX_CELLS:
        raise ConfigError("--grid", f"{spec.count()} settings × {spec.seeds} seeds × "
                          f"{len(spec.methods)} methods", f"at most {MAX_CELLS} rows per sweep")


def parse_fixed(texts: list[str], flag: str = "--set") -> dict:
    """'KEY=VALUE' texts → {key: value}, each key once."""
    fixed: dict = {}
    for text in texts:
        key, value = parse_pair(text, flag)
        if key in fixed:
            raise ConfigError(flag, text, f"each setting once ({plain(key, 40)} is given twice)")
        fixed[key] = value
    return fixed


def parse_int(flag: str, text, lo: int, hi: int) -> int:
    """An integer flag within [lo, hi], in ASCII digits."""
    try:
        raw = str(text).strip()
        value = int(raw) if raw.isascii() and "_" not in raw else lo - 1
    except ValueError:
        value = lo - 1
    if not lo <= value <= hi:
        raise ConfigError(flag, text, f"an integer in [{lo}, {hi}]")
    return value


def check(spec: SweepSpec, limits: bool = True, batch: bool = False, workers: int = 1
          ) -> list[tuple[dict, Config]]:
    """Validate every cell (first seed) before any work, each within the guard's limits with
    the seeds batched together and the workers running side by side; [(setting, Config)]."""
    preset_mod.get(spec.preset)
    for key, value in spec.fixed.items():
        coerce(key, value)
    check_size(spec)  # before a single cell is built
    check_cells(spec.cells)
    units = spec.count() * (1 if batch else spec.seeds)
    load = guard.Load(batched=spec.seeds if batch else 1, workers=min(workers, units))
    out = []
    for setting in spec.settings():
        try:
            cfg = spec.config(setting, spec.seed)
            refuse_unread(cfg, [*spec.fixed, *setting])
            # e.g. one_step in the AZL world: one line (a stored sweep may use older names)
            check_methods(cfg, spec.methods, legacy=True)
            if limits:
                guard.check(cfg, spec.methods, embed=False, load=load)
        except ConfigError as err:
            where = ", ".join(f"{k}={v}" for k, v in setting.items())
            raise type(err)(err.name, err.value, f"{err.allowed} (in the cell {where})") \
                from None
        out.append((setting, cfg))
    return out


def row_key(cfg: Config, method: str, version: str) -> str:
    """The row's identity: a hash of the full config, the method and the code version."""
    blob = json.dumps({"config": cfg.to_dict(), "method": method, "code": version},
                      sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:32]
