"""FrameStream: one Explore run's frames, made in the engine (the frame contract)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator, Mapping
from importlib import import_module
from importlib.util import find_spec

import numpy as np

from ..config import Config, ConfigError
from ..methods import make_run
from ..procedures import REGISTRY as PROCEDURE_PACKAGES
from ..run import DivergenceError
from ..worlds import build_world
from .frame import Frame, pack
from .limits import LimitJob
from .paper import PaperFrames
from .procedure import frame_name, lead, own_explore_run


class Makers(Mapping):
    """The frame makers, by the name a procedure gives as its `frame` (engine/frames/procedure.py):
    the paper's PaperFrames as "engine", and each procedure package's own, registered by its
    module engine/procedures/<name>/frames.py in its MAKERS. Read on first use, not at import:
    a package's frames module builds on engine.frames, which must be loaded first."""

    def __init__(self) -> None:
        self._read: dict[str, type] | None = None

    def _all(self) -> dict[str, type]:
        if self._read is None:
            read: dict[str, type] = {"engine": PaperFrames}
            for name in PROCEDURE_PACKAGES:
                module = f"engine.procedures.{name}.frames"
                if find_spec(module) is not None:
                    read |= import_module(module).MAKERS
            self._read = read
        return self._read

    def __getitem__(self, name: str) -> type:
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


MAKERS = Makers()
MARK_STYLES = {"+Σ_A M": ("star", 1), "−Σ_A M": ("diamond", -1)}
# Okabe–Ito, one per direction group (the neurons' own cosine scale stays blue-to-grey)
DIRECTION_COLOURS = ("#D55E00", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#F0E442",
                     "#0072B2", "#000000")


def maker_of(cfg: Config) -> type:
    """The frame maker of cfg's procedure (ConfigError for a procedure the world lacks)."""
    return MAKERS[frame_name(cfg)]


def explore_run(world):
    """The run Explore plays: the procedure's own (the AZL world: the ResNet with its other
    methods beside it), else its lead method's run."""
    own = own_explore_run(world.cfg)
    return own(world) if own is not None else make_run(lead(world.cfg), world)


def check_outputs(cfg: Config, world) -> None:
    """ConfigError unless the world's target is one ±1 label or the world has its own Explore
    run (the engine's network and the player read one label)."""
    y = world.ds.y_train
    outputs = y.shape[1] if y.ndim > 1 else 1
    if outputs > 1 and own_explore_run(cfg) is None:
        raise ConfigError("scenario", cfg.scenario,
                          f"a world with one ±1 label in Explore's live view; this world's "
                          f"target has {outputs} outputs. Open its preset in Compare, or train "
                          f"it with `python -m engine run --preset …` (docs/azl.md)")


class FrameStream:
    """One Explore run's frames, made in the engine."""

    def __init__(self, cfg: Config, device: str = "cpu"):
        maker = maker_of(cfg)
        self.world = build_world(cfg, device)
        check_outputs(cfg, self.world)
        self.cfg, self.error = cfg, ""
        self.run = explore_run(self.world)
        self.T: int = self.run.T
        self.id = uuid.uuid4().hex[:12]  # the player's run id: a new stream, a new player
        self._maker = maker(self.run, self.world)
        self._frames: list[Frame] = [self._maker.frame(0)]
        curves = self._maker.limit_curves()
        self._limits = LimitJob(curves) if curves else None

    @property
    def identity(self) -> str:
        """What names this run for caches shared by its views (this stream alone)."""
        return f"local-{id(self)}"

    @property
    def done(self) -> bool:
        """Every step taken, or stopped by an error."""
        return bool(self.error) or self.run.done

    def __len__(self) -> int:
        return len(self._frames)

    def advance(self, budget_s: float | None = None, until: int | None = None) -> int:
        """Take steps until `until` frames exist, the budget is spent or the run is done;
        returns the steps taken (a divergence stops the run and sets `error`)."""
        t0, taken = time.perf_counter(), 0
        while not self.done and (until is None or len(self._frames) < until):
            try:
                self.run.step()
            except DivergenceError as err:
                self.error = str(err)
                break
            self._frames.append(self._maker.frame(len(self.run.history) - 1))
            taken += 1
            if budget_s is not None and time.perf_counter() - t0 > budget_s:
                break
        return taken

    def meta(self) -> dict:
        """JSON-able: the player's meta (sizes, marks, chart spec) and Explore's words around
        it (credit, what is measured, step-size table, the report's fixed part)."""
        first, maker = self._frames[0], self._maker
        rows = [{"name": name, "rows": len(np.atleast_2d(xy)),
                 "style": MARK_STYLES.get(name, ("dot", 0))[0],
                 "count": MARK_STYLES.get(name, ("dot", 0))[1]}
                for name, xy in first.marks.items()]
        groups = maker.groups
        if groups is not None:  # a star per direction or pair, in its group's colour
            rows = [{**r, "style": "star", "slot": j, "colour": DIRECTION_COLOURS[g % 8]}
                    for j, (r, (_, _, g)) in enumerate(zip(rows, groups, strict=True))]
        base = maker.meta(first)
        return {"run": self.id, **base, "points": base["neurons"] + sum(r["rows"] for r in rows),
                "marks": rows, "count_note": maker.count_note(rows), "charts": maker.charts(rows),
                "limit_curves": self._limits is not None, **maker.about()}

    def limits(self) -> dict | None:
        """The converged limits of the chart's fixed-feature curves: None where it draws none;
        else {"pending", "lines"}, started in a background thread once the run is done (a run
        stopped by an error gets none)."""
        job = self._limits
        if job is None:
            return None
        if self.done and not self.error:
            job.start()
        elif self.error:
            return {"pending": False, "lines": []}
        return job.payload()

    def wait_limits(self, timeout: float) -> None:
        """Block at most `timeout` seconds for the limits (a hub worker between its turns)."""
        if self._limits is not None:
            self._limits.wait(timeout)

    def frames(self, start: int, stop: int) -> dict:
        """JSON-able packed batch of frames start..stop-1 (clamped to those made)."""
        start, stop = max(0, start), min(stop, len(self._frames))
        return pack(self._frames[start:max(start, stop)])

    def frame(self, i: int) -> Frame:
        """The Frame record of step index i."""
        return self._frames[i]
