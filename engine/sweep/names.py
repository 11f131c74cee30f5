"""What a sweep's charts call its methods and which levels they draw, read from the record of the
procedure that trains its world (engine/procedures): its labels (an older method name, e.g. the
AZL store's `network`, through its aliases) and its charts' reference lines (resnet3's kα²)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..method_table import LABELS
from ..procedures import procedure_of

if TYPE_CHECKING:
    from ..config import Config


def method_label(cfg: Config, method: str) -> str:
    """The method's label in cfg's procedure (the AZL world's network is the 3-layer ResNet)."""
    proc = procedure_of(cfg)
    return proc.labels().get(proc.aliases.get(method, method)) or LABELS.get(method, method)


def levels(cfg: Config) -> dict[str, tuple[float, str]]:
    """{metric: (level, words)}: the reference lines cfg's procedure draws on its charts."""
    out = {}
    for chart in procedure_of(cfg).charts:
        for line in chart.lines:
            value = line.value(cfg)
            name, _, words = line.label.partition(":")
            for curve in chart.curves:
                out[curve] = (value, f"{name} = {value:.2f}:{words}")
    return out
