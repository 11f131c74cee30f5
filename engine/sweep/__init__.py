"""Sweeps: settings × seeds × methods, run locally or on Ray, stored one SQLite file per sweep."""

from .driver import plan, run_sweep
from .spec import SweepSpec, check, row_key
from .store import Store, load, load_curves, store_path

__all__ = ["SweepSpec", "Store", "check", "load", "load_curves", "plan", "row_key", "run_sweep",
           "store_path"]
