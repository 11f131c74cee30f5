"""Tiny settings of each run type that the frame tests play (paper, centres, GFL, AZL)."""

from __future__ import annotations

from engine.config import Config
from engine.presets import preset_config

GFL_TINY = {"n": 600, "n_test": 500, "m": 16, "T": 6, "batch": 100}
SETTINGS = {
    "paper": Config(n=1000, n_test=500, T=6, m=20, batch=100),
    "paper-mog": preset_config("paper-mog-1").replace(n=600, n_test=400, m=12, T=6, batch=100),
    "fcb-xor": preset_config("fcb-xor").replace(n=400, n_test=300, m=12, T=6),
    "gfl-xor": preset_config("gfl-xor").replace(**{**GFL_TINY, "n": 2000, "m": 40}),
    "gfl-mog": preset_config("gfl-mog").replace(**{**GFL_TINY, "n": 2000, "m": 40}),
    "gfl-multi-index": preset_config("gfl-multi-index").replace(**GFL_TINY),
    "azl": preset_config("azl-resnet").replace(n=1000, n_test=600, m=40, T=40, batch=100,
                                               azl_drop_epoch=0),
}
