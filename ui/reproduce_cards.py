"""Reproduce page content: every procedure's figures of its source, the presets with a source's
table, and every other preset (a procedure's own group of cards: ui/telling.py)."""

from __future__ import annotations

import json
import shlex
from dataclasses import replace
from pathlib import Path

import pandas as pd
import streamlit as st

from engine import guard, scenarios
from engine.config import ConfigError
from engine.methods import LABELS, METHODS, REGISTRY
from engine.presets import PRESETS, Preset, preset_config
from engine.procedures import RECORDS, procedure_of
from engine.procedures.views import Figure
from engine.report import cell
from ui import limit_cells as lc

EXPLORE, COMPARE = "pages/explore.py", "pages/compare.py"
RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results" / "tables.json"
SHORT = {m.name: m.short for m in REGISTRY}  # card-width labels
PAGES = {"explore": EXPLORE, "compare": COMPARE}  # a Figure's page word: the page it opens
# every registered procedure's figures of its source (its package's), in the registry's order,
# each with the methods its Compare button trains (the procedure's defaults where it names none)
FIGURES = tuple(replace(f, methods=f.methods or r.defaults)
                for r in RECORDS.values() for f in r.figures)


def command(name: str) -> str:
    """The shell command that regenerates a preset's table."""
    return shlex.join(["python", "-m", "engine", "run", "--preset", name])


def paper_table(paper: dict, ours: dict | None = None) -> pd.DataFrame:
    """Table 1's layout: rows train %, test %, cos, each the paper's and (given) ours; 'NA'
    where a number does not exist (the NTK's cosine)."""
    rows = {"Train %": "train_acc", "Test %": "test_acc", "Cos": "cos"}
    sources = {"paper": paper} if ours is None else {"paper": paper, "ours": ours}
    index = [f"{row} · {who}" for row in rows for who in sources]
    data = {}
    limits = ours is not None and lc.stored_any(ours)  # a row where the stored file has them
    for method in (m for m in METHODS if m in paper):
        data[SHORT.get(method, LABELS[method])] = {
            f"{row} · {who}": cell(key, src.get(method, {}).get(key))
            for row, key in rows.items() for who, src in sources.items()}
        if limits:
            data[SHORT.get(method, LABELS[method])][lc.ROW] = lc.limit_cell(
                ours.get(method, {}), method, "test_acc", lambda v: cell("test_acc", v), True)
    return pd.DataFrame(data, index=index + ([lc.ROW] if limits else []))


def stored_results() -> dict:
    """Our stored numbers per Table preset (docs/results/tables.json, written by
    scripts/table_results.py), or {} when the file is missing or unreadable."""
    try:
        return json.loads(RESULTS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def results_note(entry: dict | None) -> str:
    """Where each row of a card's table comes from."""
    note = "Paper: mean of 5 runs."
    if entry:
        note += (f" Ours: seed 0 on this engine (commit {entry['commit']}, {entry['date']}, "
                 "the command below); every table: `python -m scripts.table_results`.")
    return note


def cost_note(name: str) -> str | None:
    """What the live Compare of a preset costs on this server, or why it is refused."""
    cfg = preset_config(name)
    methods = procedure_of(cfg).defaults  # what Compare trains for this preset
    try:
        est = guard.check(cfg, methods, embed=False)
    except ConfigError as err:
        return (f"Too large for a live Compare on this server ({err}); "
                "the command line runs it.")
    return f"Live Compare of its {len(methods)} methods here: {est.describe()}."


def open_in(name: str, page: str, methods: tuple[str, ...] | None = None) -> None:
    """Load a preset into the session and go to Explore or Compare."""
    from ui.compare_view import for_procedure
    from ui.state import get_state

    state = get_state()
    try:
        cfg = preset_config(name)
    except ConfigError as err:
        st.error(f"Cannot load {name}: {err}")
        return
    state.cfg, state.preset = cfg, name
    if methods is None:  # the procedure's own defaults, unless a choice of its methods was made
        methods = for_procedure(state.compare.methods, procedure_of(cfg))
    if methods is not None:
        state.compare.methods = methods
    st.switch_page(page)


def buttons(name: str, where: str, methods: tuple[str, ...] | None = None,
            pages: tuple[str, ...] = (EXPLORE, COMPARE)) -> None:
    """'Open in Explore' / 'Open in Compare' for one preset (where: a unique key part).

    One above the other, each the card's width: side by side in a narrow card (three cards
    in a row at 768 px) the labels were cut to "Ope…".
    """
    for page in pages:
        label = "Open in Explore" if page == EXPLORE else "Open in Compare"
        icon = ":material/scatter_plot:" if page == EXPLORE else ":material/compare_arrows:"
        short = "explore" if page == EXPLORE else "compare"
        if st.button(label, key=f"{where}-{name}-{short}", icon=icon, width="stretch"):
            open_in(name, page, methods if page == COMPARE else None)


def figure_card(fig: Figure, index: int) -> None:
    """A card for one figure."""
    with st.container(border=True):
        st.markdown(f"### {fig.title}")
        st.write(fig.shows)
        st.markdown(f"**What to look for:** {fig.look_for}")
        st.code(command(fig.preset), language="bash")
        first = (PAGES[fig.page], COMPARE if fig.page == "explore" else EXPLORE)
        buttons(fig.preset, f"fig{index}", fig.methods, first)


def preset_card(p: Preset) -> None:
    """A card for one preset: what it is, the paper's numbers if any, the command, buttons."""
    with st.container(border=True):
        st.markdown(f"### {p.title}")
        st.caption(f"`{p.name}` · source: {p.source}")
        st.write(p.description)
        if p.paper:
            entry = stored_results().get(p.name)
            st.dataframe(paper_table(p.paper, entry and entry["methods"]).rename_axis("measure"),
                         width="stretch")  # a named index: no empty column header
            st.caption(results_note(entry))
            if entry and lc.missing(entry["methods"]):
                st.caption(lc.not_stored(p.name))
            elif entry and lc.stored_any(entry["methods"]):
                st.caption(lc.caption(entry["methods"]))
        st.code(command(p.name), language="bash")
        note = cost_note(p.name)
        if note:
            st.caption(note)
        buttons(p.name, "preset")


def presets_of(procedure: str) -> list[Preset]:
    """Presets whose world trains by `procedure` by default, in registry order (its group of
    cards, ui/telling.py)."""
    out = []
    for p in PRESETS.values():
        try:
            if scenarios.world(preset_config(p.name)).procedures[0] == procedure:
                out.append(p)
        except ConfigError:
            continue
    return out


def table_presets() -> list[Preset]:
    """Presets that carry the paper's table numbers, in registry order."""
    return [p for p in PRESETS.values() if p.paper]


def needs_download(name: str) -> bool:
    """Whether this server refuses the preset because its data would be downloaded
    (FEX_ALLOW_DOWNLOADS=0, the Docker image's setting): its card would only be refused."""
    try:
        guard.check_downloads(preset_config(name))
    except ConfigError:
        return True
    return False


def other_presets(exclude=()) -> dict[str, list[Preset]]:
    """Every other registered preset (but those in exclude and those this server cannot load
    without a download), grouped by its source."""
    groups: dict[str, list[Preset]] = {}
    for p in PRESETS.values():
        if not p.paper and p.name not in exclude and not needs_download(p.name):
            groups.setdefault(p.source, []).append(p)
    return groups
