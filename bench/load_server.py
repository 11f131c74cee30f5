"""The load test's server: `streamlit run asgi.py` in a process of its own, with a probe thread
that samples the server's own numbers twice a second — resident memory (VmRSS, peak VmHWM), live
engine Run objects (and the hub's live runs) and active Streamlit sessions — into a JSON-lines
file. That is how "at most one live run per session" and "memory is released when sessions end"
are measured without changing the app (bench/load.py drives it; bench.hub_load and
bench.saturation start it too).

    python -m bench.load_server PROBE_FILE --port PORT     # what start_server runs
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _status_kb(field_name: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field_name + ":"):
            return int(line.split()[1])
    return 0


def _probe(path: str, every: float) -> None:
    """Append one JSON line per sample: time, RSS, peak RSS, live Runs, active sessions."""
    from engine.hub import peek_hub
    from engine.run import Run

    while True:
        try:
            from streamlit.runtime import Runtime

            mgr = Runtime.instance()._session_mgr
            sessions, stored = mgr.num_active_sessions(), mgr.num_sessions()
            # private counters: a browser that lost its connection under load shows here
            drops = getattr(mgr, "_disconnect_count", -1), getattr(mgr, "_reconnect_count", -1)
        except Exception:  # noqa: BLE001 - the runtime is not up yet
            sessions = stored = -1
            drops = (-1, -1)
        if os.path.exists(path + ".gc"):  # asked by the driver: a full collection, once
            os.remove(path + ".gc")
            gc.collect()
            _dump_referrers(path + ".refs", Run)
        runs = sum(1 for o in gc.get_objects() if type(o) is Run)
        hub = peek_hub()  # runs the hub's workers compute for this server's sessions
        runs += hub.metrics()["runs_live"] if hub is not None else 0
        row = {"t": time.time(), "rss_mb": _status_kb("VmRSS") / 1024,
               "peak_mb": _status_kb("VmHWM") / 1024, "runs": runs, "sessions": sessions,
               "stored_sessions": stored, "disconnects": drops[0], "reconnects": drops[1]}
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")
        time.sleep(every)


def _dump_referrers(path: str, cls) -> None:
    """Who still holds each live Run (types three levels up), to find what keeps it alive."""
    lines = []
    for obj in [o for o in gc.get_objects() if type(o) is cls]:
        level = [obj]
        for depth in range(11):
            nxt = [r for o in level for r in gc.get_referrers(o)
                   if r is not level and type(r).__name__ not in ("frame", "list_iterator")][:4]
            lines.append(f"{depth}: " + ", ".join(
                type(r).__name__ + (f"[{sorted(r)[:6]}]" if isinstance(r, dict) and all(
                    isinstance(k, str) for k in r) else "") for r in nxt))
            level = nxt
        lines.append("--")
    Path(path).write_text("\n".join(lines))


def serve(probe_path: str, port: int, extra: list[str]) -> None:
    """Run `streamlit run app.py` in this process with the probe thread beside it."""
    threading.Thread(target=_probe, args=(probe_path, 0.5), daemon=True).start()
    from streamlit.web import cli

    sys.argv = ["streamlit", "run", "asgi.py", "--server.headless", "true",
                "--server.address", "127.0.0.1", "--server.port", str(port),
                "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
                "--server.disconnectedSessionTTL", "2", *extra]
    cli.main()


@dataclass
class Server:
    """The app server process and its probe file."""

    url: str
    process: subprocess.Popen
    probe: Path
    log: Path

    def samples(self) -> list[dict]:
        """Every probe sample so far."""
        if not self.probe.exists():
            return []
        return [json.loads(line) for line in self.probe.read_text().splitlines() if line]

    def latest(self) -> dict:
        rows = self.samples()
        return rows[-1] if rows else {}

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()


def start_server(timeout: float = 90.0) -> Server:
    """Start the app with the probe on a free port; wait until it answers its health check."""
    from scripts.serve import free_port, health_ok

    work = Path(tempfile.mkdtemp(prefix="fex-load-"))
    port = free_port()
    probe, log = work / "probe.jsonl", work / "server.log"
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1"}
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "bench.load_server", str(probe),
                                 "--port", str(port)], cwd=ROOT, env=env, stdout=out,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    server = Server(f"http://127.0.0.1:{port}", proc, probe, log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        if health_ok(server.url):
            return server
        time.sleep(0.3)
    server.stop()
    raise RuntimeError(f"app server did not start:\n{log.read_text(errors='replace')[-3000:]}")


def main(argv=None) -> int:
    """Serve the app with the probe writing to PROBE_FILE."""
    p = argparse.ArgumentParser(prog="python -m bench.load_server",
                                description=__doc__.split("\n")[0])
    p.add_argument("probe")
    p.add_argument("--port", type=int, default=0)
    args = p.parse_args(argv)
    serve(args.probe, args.port, [])
    return 0


if __name__ == "__main__":
    sys.exit(main())
