"""Each procedure's source, as Explore's header and the exports credit it: (one-line claim,
citation), by procedure name (to move into each procedure's registry record as its source)."""

from __future__ import annotations

from ..config import Config, ConfigError
from ..procedures import procedure_of

CREDITS = {
    "shi2022": ("A two-layer network learns features from structured inputs",
                "Shi, Wei & Liang, ICLR 2022"),
    "fcb2022": ("Gradient descent amplifies a two-layer network's random features into the "
                "cluster directions of noisy XOR-like data",
                "Frei, Chatterji & Bartlett 2022"),
    "gfl": ("One gradient step from a symmetric start finds the feature directions; a "
            "classifier on them learns the task",
            "Shi 2024, dissertation ch. 3, Algorithm 1"),
    "resnet3": ("A 3-layer ResNet learns F, then G(F), which fixed features and shallower "
                "networks do not learn as efficiently",
                "Allen-Zhu & Li 2019"),
}


def credit(cfg: Config) -> dict:
    """{"claim", "source"} of cfg's procedure (the paper's for a setting it refuses)."""
    try:
        name = procedure_of(cfg).name
    except ConfigError:
        name = "shi2022"
    claim, source = CREDITS[name]
    return {"claim": claim, "source": source}
