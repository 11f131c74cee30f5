"""A light Explore client: one Streamlit session over its WebSocket, without a browser.

It does what the page's browser does for the server, and no more: it asks for the page with a
link's query string, then reruns the live fragment every 0.3 s (the browser's run_every timer)
and reads the player's batches (the component's JSON: meta, frames, done). It draws nothing, so
thirty of them fit beside the server on a 2-core machine where thirty Chromium pages do not.
Links carry step=T, so the server owes each session the whole run (no Play is pressed). A batch
that asks for an ack (ui/player_view.outgoing) gets the player's "held" with the next tick, and
the session stays until the server has taken it (its batches stop asking), as a page would.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

TICK_S = 0.3  # ui/live.TICK_S: the browser's fragment timer
STALL_S = 1.5  # no new frame for this long: say what is held (the browser's re-ask)
ACK_WAIT_S = 10.0  # with every frame in, wait at most this long for the server to take the ack


@dataclass
class LightResult:
    """What one light session saw (seconds from its connect)."""

    index: int
    query: str
    first_frame_s: float | None = None
    final_s: float | None = None
    frames: int = 0  # distinct frames received
    last_step: int = -1
    error: str = ""
    asks: int = 0  # times it told the server what it holds (a batch had gone missing)
    component: str = ""  # the player's widget id and run id, for those asks
    run: str = ""
    changed: float = 0.0  # when the last new frame came
    bytes: int = 0  # bytes of the server's messages received
    acked_s: float | None = None  # when the server's batches stopped asking for an ack
    asking: bool = False  # the last batch asked for an ack
    state: dict = field(default_factory=dict, repr=False)  # the component's state, as set
    sent_state: str = ""  # the state as last sent (a widget state goes when it changed)
    steps_seen: set = field(default_factory=set, repr=False)


def _rerun(query: str, page: str, fragment: str = "", ask: tuple | None = None) -> bytes:
    """A script run (or the live fragment's, with its id); `ask` = (component id, its state):
    the player's "want" and "held" as the browser's player sends them."""
    msg = BackMsg()
    state = msg.rerun_script
    state.query_string, state.page_script_hash = query, page
    if fragment:
        state.fragment_id, state.is_auto_rerun = fragment, True
    if ask is not None:
        state.widget_states.widgets.add(id=ask[0], json_value=json.dumps(ask[1]))
    return msg.SerializeToString()


def _player_data(fm: ForwardMsg) -> dict | None:
    """The player component's data in a delta, or None."""
    if fm.WhichOneof("type") != "delta" or fm.delta.WhichOneof("type") != "new_element":
        return None
    el = fm.delta.new_element
    if el.WhichOneof("type") != "bidi_component":
        return None
    text = el.bidi_component.json or el.bidi_component.mixed.json
    data = json.loads(text) if text else {}
    return data if "frames" in data else None


async def session(url: str, query: str, index: int, T: int, timeout_s: float) -> LightResult:
    """Open the link, tick until step T has arrived (or timeout); the session's figures."""
    res, t0 = LightResult(index, query), time.monotonic()
    ws_url = url.replace("http://", "ws://") + "/_stcore/stream"
    try:
        async with websockets.connect(ws_url, subprotocols=["streamlit"], max_size=None,
                                      origin=url, open_timeout=timeout_s) as ws:
            await ws.send(_rerun(query, ""))
            page, fragment = "", ""
            while time.monotonic() - t0 < timeout_s:
                page, fragment = await _read_run(ws, res, t0, page, fragment,
                                                 timeout_s - (time.monotonic() - t0))
                if res.last_step >= T and res.final_s is None:
                    res.final_s = time.monotonic() - t0
                if res.final_s is not None and not res.asking:
                    res.acked_s = time.monotonic() - t0
                if res.acked_s or res.final_s and time.monotonic() - t0 > res.final_s + ACK_WAIT_S:
                    return res  # acked_s None: every frame came, the ack was not taken
                await asyncio.sleep(TICK_S)
                if fragment:
                    await ws.send(_rerun(query, page, fragment, _ask(res, T)))
                else:  # no timer yet: the page's run is still setting up
                    await asyncio.sleep(TICK_S)
            if res.final_s is None:
                res.error = f"stopped at step {res.last_step} of {T}"
    except Exception as exc:  # noqa: BLE001 - reported per session, the others go on
        if res.final_s is None:  # after every frame came, only the ack's wait was cut short
            res.error = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
    return res


async def _read_run(ws, res: LightResult, t0: float, page: str, fragment: str,
                    left: float) -> tuple[str, str]:
    """Read messages until one script (or fragment) run has finished."""
    while True:
        raw = await asyncio.wait_for(ws.recv(), max(1.0, left))
        res.bytes += len(raw)
        fm = ForwardMsg()
        fm.ParseFromString(raw)
        kind = fm.WhichOneof("type")
        if kind == "new_session":
            page = fm.new_session.page_script_hash
        elif kind == "auto_rerun":
            fragment = fm.auto_rerun.fragment_id
        elif kind == "script_finished":
            return page, fragment
        data = _player_data(fm)
        if data is not None:
            res.component = fm.delta.new_element.bidi_component.id
            _take(res, data, t0)
            if data.get("error"):
                res.error = data["error"][:200]


def _ask(res: LightResult, T: int) -> tuple | None:
    """The component's state when it changed: the player's "held" for a batch that asked for
    an ack, and its re-ask after STALL_S without a new frame (the frames it holds go back to
    the server, which sends again the ones after them: ui/player_view._on_want)."""
    if not res.component:
        return None
    if res.last_step < T and time.monotonic() - res.changed >= STALL_S:
        res.asks += 1
        res.changed = time.monotonic()
        res.state["want"] = {"run": res.run, "n": T + 1, "have": len(res.steps_seen),
                             "t": int(time.time() * 1000)}
    text = json.dumps(res.state, sort_keys=True)
    if text == res.sent_state:
        return None
    res.sent_state = text
    return res.component, dict(res.state)


def _take(res: LightResult, data: dict, t0: float) -> None:
    res.run = (data.get("meta") or {}).get("run", res.run)
    res.asking = bool(data.get("ack"))
    if res.asking:  # component.js acknowledge(): once per count held
        res.state["held"] = {"run": res.run, "n": len(res.steps_seen | set(
            data["frames"].get("step") or []))}
    steps = data["frames"].get("step") or []
    if set(steps) - res.steps_seen:
        res.changed = time.monotonic()
    if steps and res.first_frame_s is None:
        res.first_frame_s = time.monotonic() - t0
    res.steps_seen.update(steps)
    res.frames = len(res.steps_seen)
    if steps:
        res.last_step = max(res.last_step, max(steps))
