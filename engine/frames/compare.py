"""CompareStream: one Compare comparison (its seeds one after another), read by the page through
plain JSON-able calls — rows, meta, report, CSV, limits — never through the runs."""

from __future__ import annotations

import time
from collections.abc import Callable

from ..config import Config
from ..limits import background
from ..procedures import procedure_of, source_of
from ..procedures.words import MSE_KEY
from ..report import build_report, clean, rows_csv
from ..run import DivergenceError
from ..seeds import SeedSeries


class CompareStream:
    """The chosen methods trained side by side on seeds seed, seed+1, …; the page holds this."""

    def __init__(self, cfg: Config, methods, seeds: int = 1, device: str = "auto",
                 prepare: Callable[[Config], bool] | None = None):
        # prepare(cfg) runs before each seed is built (the guard's check; may raise ConfigError)
        self.cfg, self.methods, self.seeds = cfg, tuple(methods), seeds
        self.proc = procedure_of(cfg)
        self._series = SeedSeries(cfg, self.methods, seeds, device, embed=False, prepare=prepare)
        # comparison → (it, method → its rows so far), appended to as its history grows; the
        # first seed's and the shown seed's (the CSV, report size and curves read one each)
        self._rows: dict[int, tuple] = {}
        self.error = ""

    @property
    def T(self) -> int:  # noqa: N802 (the frame contract's name, as FrameStream.T)
        return self.cfg.T

    @property
    def done(self) -> bool:
        """Every seed finished, or one diverged."""
        return self._series.done

    @property
    def diverged(self) -> DivergenceError | None:
        return self._series.diverged

    @property
    def started(self) -> bool:
        """The first seed has been built (there are rows to show)."""
        return self._series.first is not None

    @property
    def running(self) -> bool:
        """A seed is being trained now (False between seeds and when done)."""
        return self._series.current is not None

    @property
    def finished(self) -> int:
        """Seeds finished so far."""
        return len(self._series.per_seed)

    @property
    def t(self) -> int:
        """Steps taken by the shown seed (the running one, else the first)."""
        shown = self._series.shown
        return 0 if shown is None else shown.t

    def advance(self, budget_s: float | None = None) -> None:
        """Build the next seed if needed, then step for about budget_s (SeedSeries.advance); a
        divergence sets `error` and ends the stream. ConfigError (the guard) and a failing run's
        ValueError / RuntimeError / MemoryError reach the caller as before."""
        if self.done:
            return
        try:
            self._series.advance(budget_s)
        except DivergenceError as err:
            self.error = str(err)

    def _comp_rows(self, comp) -> dict[str, list[dict]]:
        """method → the JSON rows of comp's runs, the new steps appended (a history only grows)."""
        if comp is None:
            return {}
        keep = {id(c) for c in (self._series.first, self._series.shown) if c is not None}
        self._rows = {k: v for k, v in self._rows.items() if k in keep}
        if id(comp) not in self._rows or self._rows[id(comp)][0] is not comp:
            self._rows[id(comp)] = (comp, {m: [] for m in comp.runs})
        rows = self._rows[id(comp)][1]
        for m, run in comp.runs.items():
            have = rows[m]
            have.extend(clean(s.scalars()) for s in run.history[len(have):])
        return rows

    def rows(self, start: int = 0, stop: int | None = None) -> dict[str, list[dict]]:
        """method → per-step rows start..stop-1 of the shown seed (the report's history rows:
        step, train/test accuracy, MSE / Var(y), test_err, c_F, c_G, … as the run measures)."""
        return {m: r[start:stop] for m, r in self._comp_rows(self._series.shown).items()}

    def last_rows(self) -> tuple[int, dict[str, list[dict]]]:
        """(seed index, method → its rows) of the seed stepped last: the running one, or the one
        that just finished (the hub's worker sends each seed's rows as they grow)."""
        comp = self._series.last
        if comp is None:
            return 0, {}
        return comp.cfg.seed - self.cfg.seed, self._comp_rows(comp)

    def _first_rows(self) -> dict[str, list[dict]]:
        """The first seed's rows (the CSV and the report's history), cached like the shown
        seed's: while later seeds train they were cleaned again on every tick."""
        return self._comp_rows(self._series.first)

    def meta(self) -> dict:
        """JSON-able: the procedure's methods (labels, colours), charts with their reference
        lines, its source, and whether the curves are test MSE / Var(y) (a regression world)."""
        proc, cfg, source = self.proc, self.cfg, source_of(self.cfg)
        rows = next(iter(self.rows(0, 1).values()), [])
        charts = [{"name": c.name, "title": c.title, "curves": list(c.curves), "axis": c.axis,
                   "log": c.log, "lines": [{"value": line.value(cfg), "label": line.label}
                                           for line in c.lines]} for c in proc.charts
                  if "compare" in c.views]
        return clean({
            "procedure": proc.name, "T": self.T, "seeds": self.seeds,
            "source": {"citation": source.citation, "claim": source.claim},
            "methods": [self._method(m) for m in self.methods],
            "charts": charts, "own_panel": proc.narrate is not None,
            "regression": (MSE_KEY in rows[0]) if rows else None})

    def _method(self, name: str) -> dict:
        info = self.proc.method(name)
        return {"name": name, "label": info.label, "color": info.color, "marker": info.marker,
                "structure": info.structure}

    def narration(self) -> tuple[str, str] | None:
        """(method, words) on the shown seed's last step of the procedure's lead method, for a
        procedure that narrates its Compare runs itself (resnet3); None otherwise."""
        shown, proc = self._series.shown, self.proc
        if proc.narrate is None or shown is None:
            return None
        names = {proc.aliases.get(m, m): m for m in shown.runs}
        if not names:
            return None
        lead = proc.lead if proc.lead in names else next(iter(names))
        last = shown.runs[names[lead]].history[-1]
        extra = getattr(last, "extra", None) or {}
        return lead, proc.narrate(extra, last.step, shown.cfg, proc.labels().get(lead, lead))

    def timing(self) -> dict:
        """Seconds since the stream began and the first seed's setup."""
        return {"total_s": time.perf_counter() - self._series.t0,
                "setup_s": self._series.first.setup_s}

    def report(self, preset=None, timing: dict | None = None) -> dict:
        """The JSON report (the CLI's schema, engine.report.build_report) of the finished seeds,
        the first seed's history, diverged_at after a divergence."""
        series = self._series
        first, timing = series.first, self.timing() if timing is None else timing
        return build_report(first.cfg, first.runs, str(first.world.device), timing,
                            series.per_seed, preset, series.diverged)

    def csv(self) -> str:
        """The first seed's per-step rows of every method as one CSV (a `method` column first)."""
        return rows_csv([{"method": m, **row} for m, rows in self._first_rows().items()
                         for row in rows])

    def export_size(self) -> tuple[int, int]:
        """(rows, columns) of the CSV and report history, to size them before they are built."""
        rows = self._first_rows()
        return (sum(len(r) for r in rows.values()),
                max((len(r[-1]) for r in rows.values() if r), default=0))

    def limits_start(self) -> None:
        """Begin the converged limits of the first seed's fixed-feature methods (a background
        thread, engine/limits/background.py; once)."""
        if self._series.first is not None:
            background.start(self, self._series.first.runs)

    def limits_pending(self) -> bool:
        """True while the converged limits are still being computed."""
        return background.pending(self)

    def limits(self) -> dict:
        """method → converged limit of those computed so far."""
        return background.ready(self)

    def close(self) -> None:
        """Nothing to leave: the comparison lives in this session (HubCompare leaves the hub)."""
