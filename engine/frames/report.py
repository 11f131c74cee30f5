"""The Explore downloads from a stream's meta() and frames() alone (no run object): the metrics
CSV and the JSON report in the CLI's schema (engine.report)."""

from __future__ import annotations

from ..report import aggregate, clean, rows_csv, with_paper


def history_csv(rows: list[dict], method: str = "network") -> str:
    """The per-step rows as engine.report.history_csv writes them (a `method` column first)."""
    return rows_csv([{"method": method, **row} for row in rows])


def build_report(meta: dict, frames: dict, timing: dict, preset=None) -> dict:
    """engine.report.build_report's dict for the stream's one network run, from its meta (the
    report's fixed part) and its packed frames (their `rows` and the last `summary`)."""
    methods = with_paper(aggregate([{"network": frames["summary"][-1]}]),
                         preset.paper if preset else None)
    out = dict(meta["report"])  # its keys in the report's order; the per-step ones are None
    out.update(preset=preset.name if preset else None, methods=methods,
               history={"network": frames["rows"]}, timing=timing)
    return clean(out)
