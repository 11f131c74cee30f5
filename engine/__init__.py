"""Feature-emergence engine: the paper's data, network, training, probes and baselines."""

from .config import Config, ConfigError, from_dict, validate
from .evaluate import Snapshot
from .run import DivergenceError, Run, World
from .worlds import build_world

__all__ = ["Config", "ConfigError", "DivergenceError", "Run", "Snapshot", "World", "build_world",
           "from_dict", "validate"]
