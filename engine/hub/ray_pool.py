"""Runs as Ray actors (FEX_RAY_ADDRESS): one actor per run, driven one chunk at a time by a
thread in the server, so a hall of students' own settings spreads over a cluster while the web
server only streams. The actor wraps the same Slot as a local worker: the same frames."""

from __future__ import annotations

import socket
import threading

import torch

from ..config import ConfigError
from ..sweep.executors import connect
from ..sweep.ray_join import PREFACE, check_address
from .slot import CHUNK_S, Slot

# the server starts and serves within 10 s whatever FEX_RAY_ADDRESS does (a plain TCP listener
# held the probe 10 s per page; an HTTP/2 one let ray.init hang until the CLI's watcher ended
# the server after 25 s): the join runs in a thread, bounded, and the hub falls back to local
NAME = "FEX_RAY_ADDRESS"
JOIN_S = 8.0
PROBE_S = 3.0
GCS_JOIN_S = 60.0  # an address whose GCS answered: ray.init may take this long on a busy host
# one gRPC call, by hand (Ray bundles no Python gRPC): HEADERS for Ray's GetClusterId (HPACK
# literals, no Huffman) and an empty message; a GCS answers with HEADERS, a fake never does
PATH = b"/ray.rpc.NodeInfoGcsService/GetClusterId"


def join(address: str, limit: float = JOIN_S):
    """The ray module joined to address, or a one-line ConfigError within `limit` seconds
    (a ray.init that hangs is left in its daemon thread; this process never uses it)."""
    box: dict = {}

    def work() -> None:
        try:
            check_address(address, PROBE_S)
            if not address.startswith("ray://"):
                gcs_answers(address, PROBE_S)
                box["gcs"] = True  # a real head: its join may be slow, not hanging
            box["ray"] = connect(address)  # not the main thread: no signal watcher, no exit
        except ConfigError as err:
            box["why"] = err.allowed
        except Exception as err:  # noqa: BLE001 - whatever Ray raises: one line, run locally
            box["why"] = f"a Ray cluster that answers ({type(err).__name__})"

    thread = threading.Thread(target=work, name="fex-ray-join", daemon=True)
    thread.start()
    thread.join(limit)
    if thread.is_alive() and box.get("gcs"):
        thread.join(GCS_JOIN_S)
    if "ray" in box:
        return box["ray"]
    raise ConfigError(NAME, address, box.get("why", f"a Ray cluster that this server joins "
                                                    f"within {limit:g} s (none did)"))


class RunActor:
    """One run on the cluster (a Ray actor: its state stays between turns)."""

    def __init__(self, key: str, settings: dict, until: int, have: int, factory: str):
        torch.set_num_threads(1)  # on the cluster's worker: one thread per run, as locally
        self.slot = Slot(key, settings, until, have, factory)

    def turn(self, until: int) -> tuple[list, bool]:
        """One chunk of steps; (messages for the hub, whether it has more to compute)."""
        self.slot.until = max(self.slot.until, until)
        msgs = self.slot.turn(CHUNK_S) if self.slot.wants() else []
        return msgs, self.slot.wants()


def gcs_answers(address: str, timeout_s: float) -> None:
    """ConfigError unless HOST:PORT answers a gRPC call as Ray's GCS does (a listener that
    sends HTTP/2 SETTINGS and then holds passes the CLI's probe, never this one)."""
    host, _, port = address.rpartition(":")
    frame = _frame(1, 0x4, 1, b"\x83\x86" + _lit(4, PATH) + _lit(1, host.encode())
                   + b"\x0f\x10" + _str(b"application/grpc") + b"\x00" + _str(b"te")
                   + _str(b"trailers")) + _frame(0, 0x1, 1, b"\x00" * 5)
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s) as s:
            s.settimeout(timeout_s)
            s.sendall(PREFACE + _frame(4, 0x1, 0, b"") + frame)
            if _reply_headers(s):
                return
    except OSError:
        pass
    raise ConfigError(NAME, address, "a Ray cluster head (it does not answer as Ray's GCS "
                                     f"within {timeout_s:g} s); runs are computed locally")


def _reply_headers(sock: socket.socket) -> bool:
    """Read frames until the reply's HEADERS on stream 1 (True) or the peer stops (False)."""
    buf = b""
    while True:
        chunk = sock.recv(4096)
        if not chunk:
            return False
        buf += chunk
        while len(buf) >= 9:
            size = int.from_bytes(buf[:3], "big")
            kind, stream = buf[3], int.from_bytes(buf[5:9], "big") & 0x7FFFFFFF
            if kind == 0x1 and stream == 1:
                return True
            if len(buf) < 9 + size:
                break
            buf = buf[9 + size:]


def _frame(kind: int, flags: int, stream: int, payload: bytes) -> bytes:
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") \
        + payload


def _str(raw: bytes) -> bytes:
    return bytes([len(raw)]) + raw if len(raw) < 127 else b"\x7f" + _int(len(raw) - 127) + raw


def _int(value: int) -> bytes:
    out = b""
    while value >= 128:
        out += bytes([value % 128 + 128])
        value //= 128
    return out + bytes([value])


def _lit(index: int, value: bytes) -> bytes:
    """A literal header (not indexed) whose name is HPACK's static entry `index` (< 15)."""
    return bytes([index]) + _str(value)


class RayPool:
    """The Ray executor: same interface as engine.hub.local.LocalPool."""

    executor = "ray"

    def __init__(self, address: str, factory: str, deliver, crashed):
        self.ray = join(address)  # one-line ConfigError when there is no cluster to join
        self.remote = self.ray.remote(num_cpus=1, max_restarts=0)(RunActor)
        self.factory, self.deliver, self.crashed = factory, deliver, crashed
        self.runs: dict[str, dict] = {}  # key -> actor, until, pending call, more to do
        self.lock = threading.Lock()
        self.wake = threading.Event()
        self.closed = False
        self.thread = threading.Thread(target=self._drive, name="fex-hub-ray", daemon=True)
        self.thread.start()

    @property
    def size(self) -> int:
        return int(self.ray.cluster_resources().get("CPU", 1))

    def start(self, key: str, settings: dict, until: int, have: int) -> None:
        actor = self.remote.remote(key, settings, until, have, self.factory)
        with self.lock:
            self.runs[key] = {"actor": actor, "until": until, "ref": None, "more": True}
        self.wake.set()

    def until(self, key: str, n: int) -> None:
        with self.lock:
            if key in self.runs:
                self.runs[key]["until"] = max(self.runs[key]["until"], n)
                self.runs[key]["more"] = True
        self.wake.set()

    def stop(self, key: str) -> None:
        self.finished(key)

    def finished(self, key: str) -> None:
        with self.lock:
            entry = self.runs.pop(key, None)
        if entry is not None:
            self.ray.kill(entry["actor"], no_restart=True)

    def queued(self) -> int:
        with self.lock:
            return max(0, len(self.runs) - self.size)

    def _drive(self) -> None:
        """Keep one turn in flight per run with work; deliver each turn's messages."""
        while not self.closed:
            with self.lock:
                for entry in self.runs.values():
                    if entry["ref"] is None and entry["more"]:
                        entry["ref"] = entry["actor"].turn.remote(entry["until"])
                        entry["asked"] = entry["until"]
                refs = {e["ref"]: k for k, e in self.runs.items() if e["ref"] is not None}
            if not refs:
                self.wake.wait(0.5)
                self.wake.clear()
                continue
            ready, _ = self.ray.wait(list(refs), num_returns=1, timeout=0.5)
            for ref in ready:
                self._collect(refs[ref], ref)

    def _collect(self, key: str, ref) -> None:
        try:
            msgs, more = self.ray.get(ref)
        except Exception as err:  # noqa: BLE001 - the actor died: only its run fails
            with self.lock:
                alive = self.runs.pop(key, None) is not None
            if alive:
                self.crashed({key}, key, f"ray: {type(err).__name__}")
            return
        with self.lock:
            entry = self.runs.get(key)
            if entry is not None:
                # an ask that came while the turn ran is not in its answer
                entry["ref"], entry["more"] = None, more or entry["until"] > entry["asked"]
        for msg in msgs:
            self.deliver(msg)

    def close(self) -> None:
        self.closed = True
        with self.lock:
            keys = list(self.runs)
        for key in keys:
            self.finished(key)
