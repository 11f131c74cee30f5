"""What a procedure's pages tell beside its runs, as plain data its package fills and ui/ draws
(ui/telling.py): its Guide sections, its Reproduce figures and its group of Reproduce cards.
No Streamlit here: a block is a (kind, body) pair, and the page picks the widget by its kind."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["KINDS", "Block", "CardGroup", "Figure", "GuideSection", "text_of"]

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


def text_of(body) -> str:
    """A block's text: itself, or what its callable says now (stored numbers read late)."""
    return body() if callable(body) else body
