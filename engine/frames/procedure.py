"""What the frames read from a run's procedure: its frame maker's name, its own Explore run and
its credit line. Each comes from the procedure's registry record where the record has it
(engine/procedures/<name>/: `frame`, `explore_run`, `source`), else from the tables below, which
stand in for those fields until every record carries them; the tables then go."""

from __future__ import annotations

from .. import scenarios
from ..config import Config, ConfigError
from ..procedures import procedure_of

# procedure name → its frame maker's name (engine.frames.stream.MAKERS)
FRAMES = {"shi2022": "engine", "fcb2022": "engine", "gfl": "gfl", "resnet3": "azl"}
# procedure name → (one-line claim, citation)
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


def frame_name(cfg: Config) -> str:
    """The name of the frame maker that draws cfg's runs (ConfigError for a procedure the
    world does not run with)."""
    proc = procedure_of(cfg)
    return getattr(proc, "frame", None) or FRAMES[proc.name]


def lead(cfg: Config) -> str:
    """The method Explore plays and the guard sizes it by: the procedure's first default."""
    return procedure_of(cfg).defaults[0]


def neurons(cfg: Config) -> int:
    """Hidden neurons of cfg's width m: the procedure's count where its record has one, else
    the paper's twin network's 2m."""
    count = getattr(procedure_of(cfg), "neurons", None)
    return count(cfg.m) if count is not None else 2 * cfg.m


def own_explore_run(cfg: Config):
    """The procedure's (or, before the records carry it, the world's) own Explore run maker,
    (built world) → run, or None: Explore plays the procedure's network run."""
    return (getattr(procedure_of(cfg), "explore_run", None)
            or getattr(scenarios.world(cfg), "explore_run", None))


def credit(cfg: Config) -> dict:
    """{"claim", "source"} of cfg's procedure (the paper's for a setting it refuses)."""
    try:
        proc = procedure_of(cfg)
    except ConfigError:
        return dict(zip(("claim", "source"), CREDITS["shi2022"], strict=True))
    record = getattr(proc, "source", None)
    if record is not None:
        return {"claim": record.claim, "source": record.citation}
    claim, source = CREDITS[proc.name]
    return {"claim": claim, "source": source}
