"""What a procedure's pages tell beside its runs, as plain data its package fills and ui/ draws
(ui/telling.py): its Guide sections, its Reproduce figures and its group of Reproduce cards.
No Streamlit here: a block is a (kind, body) pair, and the page picks the widget by its kind."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["KINDS", "Block", "CardGroup", "Figure", "GuideSection", "TableGroup", "bad_blocks",
           "sections", "text_of"]

# what a block can be: st.write, st.markdown, st.latex, st.info (a lightbulb), st.caption,
# st.subheader, and a table: body (index name, {row: {column: cell}})
KINDS = ("text", "markdown", "latex", "info", "caption", "subheader", "table")
Block = tuple  # (kind, body): body a str, a () -> str read when the page is drawn, or a table


@dataclass(frozen=True)
class GuideSection:
    """One section of the Guide: its header (the Guide numbers it in the registry's order) and
    its blocks, top to bottom."""

    title: str
    blocks: tuple[Block, ...]


@dataclass(frozen=True)
class Figure:
    """A figure of the procedure's source that one preset regenerates: what it shows, what to
    look for, and the page that draws it ("explore" or "compare")."""

    title: str
    shows: str
    look_for: str
    preset: str
    page: str
    methods: tuple[str, ...] | None = None  # Compare's methods; None: the procedure's defaults


@dataclass(frozen=True)
class CardGroup:
    """The Reproduce page's group of the presets whose world trains by the procedure by
    default: a header, a note under it, and each card's body between its source line and its
    command. stored() -> {preset: entry} of the stored numbers (an entry's "methods" per method);
    body(preset, entry or None, limit) -> blocks, where limit(m, method, key, fmt) is the
    page's cell of a fixed-feature method's converged limit."""

    title: str
    note: str
    stored: Callable
    body: Callable


@dataclass(frozen=True)
class TableGroup:
    """The Reproduce page's header and caption over the presets carrying the source's table
    numbers (Preset.paper), told by the procedure whose tables they are."""

    title: str
    note: str


def text_of(body) -> str:
    """A block's text: itself, or what its callable says now (stored numbers read late)."""
    return body() if callable(body) else body


def told(record) -> GuideSection:
    """The Guide section of a procedure whose package gives none, from its record alone: its
    source's claim, Compare's words on what the comparison shows, its loss, stages, width and
    default methods."""
    stages = "; ".join(f"{name} (steps {steps})" for name, steps in record.stages) or "none"
    facts = (f"**Loss:** {record.loss}. **Stages:** {stages}. **Width:** m = 100 gives "
             f"{record.neurons(100):,} hidden neurons. **Compare trains by default:** "
             + ", ".join(record.labels()[m] for m in record.defaults) + ".")
    return GuideSection(record.label, (
        ("markdown", f"*{record.source.citation}*: {record.source.claim}."),
        ("text", record.table.intro), ("markdown", facts)))


def sections(record) -> tuple[GuideSection, ...]:
    """A procedure's Guide sections: its package's, or the one its record tells."""
    return record.guide or (told(record),)


def bad_blocks(record) -> list[str]:
    """The Guide blocks of a record whose kind no page draws, as "guide 'title': kind" (a
    card's blocks come from its body when drawn, checked by the conformance suite)."""
    return [f"guide {s.title!r}: {kind!r}" for s in record.guide for kind, _ in s.blocks
            if kind not in KINDS]
