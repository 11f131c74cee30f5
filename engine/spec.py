"""How one setting is typed, bounded and explained: the rows of engine.config.SPECS."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Spec:
    """How one setting is typed, bounded and explained."""

    kind: type
    lo: float | None = None
    hi: float | None = None
    choices: tuple = ()
    group: str = "data"
    label: str = ""
    help: str = ""
    open_lo: bool = False  # lo itself excluded
    open_hi: bool = False
    optional: bool = False  # None means "derived from the schedule"
    text: str = ""  # the allowed values of a free-text setting; or a note on a numeric range

    def allowed(self) -> str:
        """Human-readable allowed range."""
        if self.kind is str and not self.choices:
            return self.text
        if self.choices:
            return "one of " + ", ".join(str(c) for c in self.choices)
        if self.kind is bool:
            return "true or false" + (" (or 'auto')" if self.optional else "")
        lo = "(" if self.open_lo else "["
        hi = ")" if self.open_hi else "]"
        lo_v = "-inf" if self.lo is None else _fmt(self.lo)
        hi_v = "inf" if self.hi is None else _fmt(self.hi)
        word = "an integer" if self.kind is int else "a number"
        tail = " (or 'auto')" if self.optional else ""
        tail += f" ({self.text})" if self.text else ""
        return f"{word} in {lo}{lo_v}, {hi_v}{hi}{tail}"


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() and abs(v) < 1e12 else f"{v:g}"
