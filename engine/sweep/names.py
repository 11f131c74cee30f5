"""What a sweep's charts call its methods and which levels they draw: the names of the procedure
that trains its world. The resnet3 procedure trains Allen-Zhu & Li's nets under the engine's
method names (engine/procedures.py: network = the 3-layer ResNet, rf = the last-layer kernel),
and its test error has a level, kα² = the error of a perfect F with no G. One place, so that a
procedure record carrying its own labels and lines can replace this table alone."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..azl.config import LABELS as RESNET3_LABELS
from ..azl.world import from_engine
from ..method_table import LABELS
from ..procedures import procedure_of

if TYPE_CHECKING:
    from ..config import Config

# the engine's method names the resnet3 procedure trains as its own nets
RESNET3_NAMES = {"network": "resnet3", "ntk": "ntk", "rf": "last_layer"}
KALPHA_WORDS = "the error of a perfect F with no G: above it G is not learned at all"


def method_label(cfg: Config, method: str) -> str:
    """The method's label in cfg's procedure (the AZL world's network is the 3-layer ResNet)."""
    if procedure_of(cfg).name == "resnet3":
        own = RESNET3_NAMES.get(method, method)
        if own in RESNET3_LABELS:
            return RESNET3_LABELS[own]
    return LABELS.get(method, method)


def levels(cfg: Config) -> dict[str, tuple[float, str]]:
    """{metric: (level, words)}: the reference levels cfg's procedure draws on its charts."""
    if procedure_of(cfg).name != "resnet3":
        return {}
    level = from_engine(cfg).threshold
    return {"test_err": (level, f"kα² = {level:.2f}, {KALPHA_WORDS}")}
