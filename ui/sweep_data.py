"""Sweep tables for the page: load a store, average over seeds, method differences, links."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pandas as pd

from engine.config import Config, ConfigError, from_dict
from engine.echo import markdown_plain
from engine.sweep import load
from ui.state import url_params

# the page's summaries, headline scores first (a world reports one of the first three)
METRICS = {"test_acc": "test accuracy", "test_err": "test error E‖out − y‖²",
           "test_mse_ratio": "test MSE / Var(y)", "share_1": "relevant share after step 1",
           "coverage_1": "coverage after step 1", "train_acc": "train accuracy",
           "cos": "max cosine to Σ_A M", "relevant_share": "relevant share at the end",
           "coverage": "coverage at the end", "c_F": "c_F (share of F learned)",
           "c_G": "c_G (share of G learned)", "steps_95": "steps to 95 % test",
           "steps_99": "steps to 99 % test", "time_s": "seconds per run"}


def metrics(df: pd.DataFrame) -> list[str]:
    """The summaries this sweep holds (a store from before a field existed, or a world whose
    methods do not report it, has NULLs there)."""
    return [m for m in METRICS if m in df and df[m].notna().any()]


def free_axes(df: pd.DataFrame, axes: list[str], by: list[str]) -> list[str]:
    """The axes not in `by` that still vary once `by` is fixed: a cell list can tie one setting
    to another (D = d, a step-size drop per n), and a tied one needs no picker."""
    rest = [a for a in axes if a not in by]
    if not by:
        return rest
    groups = df.groupby(by, dropna=False)
    return [a for a in rest if (groups[a].nunique(dropna=False) > 1).any()]


def load_frame(path) -> tuple[pd.DataFrame, list[str], dict]:
    """(one row per setting × seed × method, the swept settings, the stored sweep spec)."""
    meta, axes, rows = load(path)
    df = pd.DataFrame(rows)
    if df.empty:
        return df, axes, {}
    return df, axes, json.loads(meta.get("spec", "{}"))


def opening_index(values: list, axis: str) -> int:
    """The slice a picker opens on: the paper default's value of that setting where the sweep
    has it (the structure-strength sweep opened on its no-structure slice, the opposite of the
    paper's story), else the first."""
    default = getattr(Config(), axis, None)
    return next((i for i, v in enumerate(values) if default is not None and v == default), 0)


def per_seed(df: pd.DataFrame, axes: list[str], metric: str, method: str,
             minus: str | None = None) -> pd.DataFrame:
    """axes + seed + value: one method's metric, or its difference to `minus` per seed."""
    cols = [*axes, "seed"]
    a = df[df.method == method].set_index(cols)[metric].astype(float)
    if minus is None:
        return a.rename("value").reset_index()
    b = df[df.method == minus].set_index(cols)[metric].astype(float)
    return (a - b).dropna().rename("value").reset_index()


def over_seeds(values: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Mean, standard deviation and count over seeds (and any axis not in `by`)."""
    g = values.groupby(by, dropna=False)["value"]
    out = g.agg(["mean", "std", "count"]).reset_index()
    out["std"] = out["std"].fillna(0.0)
    return out


def whole_setting(df: pd.DataFrame, axes: list[str], setting: dict) -> dict:
    """`setting` with the values of the axes tied to it (D = d), read from the stored rows."""
    row = fix_others(df, setting).iloc[0]
    return {a: setting.get(a, row[a].item() if hasattr(row[a], "item") else row[a])
            for a in axes}


def fix_others(values: pd.DataFrame, fixed: dict) -> pd.DataFrame:
    """Keep the rows where each of the other axes has its chosen value."""
    for name, value in fixed.items():
        values = values[values[name] == value]
    return values


def cell_config(spec: dict, setting: dict):
    """The Config of a cell (first seed) from the stored spec: preset, fixed values, setting."""
    from engine.presets import get

    values = {**get(spec.get("preset", "quick-parity")).settings, **spec.get("fixed", {}),
              **setting, "seed": spec.get("seed", 0)}
    return from_dict(values)


def cell_line(spec: dict, setting: dict, methods: tuple[str, ...]) -> str:
    """The Markdown line under a clicked cell: its links, or in one line why it cannot open
    (a stored spec whose settings are each allowed may still break a relation: k=4, parity)."""
    where = markdown_plain(", ".join(f"{k}={v}" for k, v in setting.items()), 300)
    try:
        explore, compare = cell_links(spec, setting, methods)
    except ConfigError as err:
        return f"**{where}** cannot open: {markdown_plain(str(err), 300)}"
    return f"**{where}**: [Open in Explore]({explore}) · [Open in Compare]({compare})"


def cell_links(spec: dict, setting: dict, methods: tuple[str, ...]) -> tuple[str, str]:
    """Relative links that open a cell in Explore and in Compare (ui.state's URL format)."""
    cfg = cell_config(spec, setting)
    explore = url_params(cfg)
    compare = url_params(cfg, methods)
    return "/?" + urlencode(explore), "/compare?" + urlencode(compare)
