"""What each procedure's package tells beside its runs (engine/procedures/views.py), drawn: its
Guide sections, numbered in the registry's order, and its group of Reproduce cards. Nothing here
knows a procedure: a new one's sections and cards appear by registering it."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from engine import scenarios
from engine.presets import PRESETS, Preset
from engine.procedures import RECORDS, ProcedureRecord
from engine.procedures.views import sections, text_of
from ui import limit_cells as lc
from ui import reproduce_cards as rc

DRAW = {"text": st.write, "markdown": st.markdown, "latex": st.latex, "caption": st.caption,
        "subheader": st.subheader,
        "info": lambda body: st.info(body, icon=":material/lightbulb:")}


def table(index: str, rows: dict) -> pd.DataFrame:
    """A table block's frame: one row per key of rows, its index named (no empty header)."""
    return pd.DataFrame(rows).T.rename_axis(index)


def draw(blocks) -> None:
    """Each (kind, body) block with its widget, top to bottom."""
    for kind, body in blocks:
        if kind == "table":
            st.dataframe(table(*body), width="stretch")
        else:
            DRAW[kind](text_of(body))


def guide_sections() -> list[tuple[int, str, tuple]]:
    """(number, title, blocks) of every registered procedure's Guide sections: those their
    packages give, in the registry's order, then one told from the record alone for each
    procedure whose package gives none (so the numbers of the others stay)."""
    records = list(RECORDS.values())
    found = [s for r in records if r.guide for s in r.guide]
    found += [s for r in records if not r.guide for s in sections(r)]
    return [(i, s.title, s.blocks) for i, s in enumerate(found, start=1)]


def guide() -> None:
    """Every procedure's Guide sections, numbered 1, 2, … across the registry."""
    for number, title, blocks in guide_sections():
        st.header(f"{number} · {title}")
        draw(blocks)


def sources() -> list[str]:
    """Every registered procedure's and world's source, each citation once ("claim (citation)"),
    in the registries' order: the works the Reproduce page reproduces."""
    found = [r.source for r in RECORDS.values()]
    found += [w.source for w in scenarios.WORLDS.values() if w.source is not None]
    first = {}
    for source in found:
        first.setdefault(source.citation, source.credit())
    return list(first.values())


def world_glossary() -> list[tuple[str, str, str]]:
    """(symbol, meaning, world) of every registered world's glossary, in the registry's order."""
    return [(term, meaning, w.label.split(":")[0]) for w in scenarios.WORLDS.values()
            for term, meaning in w.glossary]


def table_groups() -> list:
    """The table headers the procedures tell (TableGroup), in the registry's order."""
    return [r.tables for r in RECORDS.values() if r.tables is not None]


def card_groups() -> list[tuple[ProcedureRecord, list[Preset]]]:
    """(record, its presets) of every procedure with a group of cards and presets to show, in
    the order of the presets' registry (each group where its first preset is)."""
    groups = [(r, rc.presets_of(r.name)) for r in RECORDS.values() if r.cards is not None]
    order = {name: i for i, name in enumerate(PRESETS)}
    return sorted([g for g in groups if g[1]], key=lambda g: order[g[1][0].name])


def group_card(record: ProcedureRecord, p: Preset) -> None:
    """One preset of a procedure's group: its title and source, the body its package tells,
    the missing-limits note, the command and the buttons."""
    with st.container(border=True):
        st.markdown(f"### {p.title}")
        st.caption(f"`{p.name}` · source: {p.source}")
        entry = record.cards.stored().get(p.name)
        draw(record.cards.body(p, entry, lc.limit_cell))
        if entry is not None and lc.missing(entry["methods"]):
            st.caption(lc.not_stored(p.name))
        st.code(rc.command(p.name), language="bash")
        rc.buttons(p.name, "preset")
