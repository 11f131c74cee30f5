"""The Explore page's one training run: set up, advance in time-budgeted chunks, restart."""

from __future__ import annotations

import time

import numpy as np
import streamlit as st

from engine import guard, mds
from engine.config import Config, ConfigError
from engine.gfl.probes import layer_probes, plane_basis, plane_map
from engine.methods import make_run
from engine.procedures import procedure_of
from engine.run import DivergenceError
from engine.scenarios import centre_cosines
from engine.worlds import build_world
from ui.state import AppState

TICK_S = 0.3  # the fragment timer (browser setInterval); ticks coalesce when the page is busy
# Compute per tick. The browser animates on its own clock, so a tick may take most of the
# interval; what is left keeps the server answering clicks.
BUDGET_S = 0.22
# Frames computed before anyone asks (steps 0, 1 and 2): the lecture's key moment is steps 1
# and 2, and on the paper default each took ~2 s under load after Play was pressed.
FIRST_FRAMES = 3


def wanted(player: dict, ahead: bool = True) -> int:
    """Frames the server owes: the browser's ask, the shown step, and (ahead) steps 0–2."""
    return max(player["want"], player["view"].get("step", 0) + 1, FIRST_FRAMES if ahead else 1)


def guard_check(cfg: Config) -> None:
    """Refuse settings beyond the server's limits (engine.guard)."""
    guard.check(cfg, methods=(procedure_of(cfg).lead,))


def ensure_run(state: AppState) -> None:
    """Start a fresh run when the setting changed; at most one run lives per session."""
    if state.explore.run is not None and state.explore.run_cfg == state.cfg:
        return
    if state.explore.guard_error and state.explore.guard_error[0] == state.cfg:
        return  # this setting was already refused
    cfg = state.cfg
    try:
        guard_check(cfg)
    except ConfigError as err:
        state.explore.guard_error = (cfg, str(err))
        return
    state.explore.guard_error = None
    # drop the old run before building: never two runs (and datasets) alive in one session
    state.explore.run = state.explore.world = state.explore.run_cfg = None
    t0 = time.perf_counter()
    neurons = procedure_of(cfg).neurons(cfg.m)
    with st.spinner(f"Drawing {cfg.n:,} + {cfg.n_test:,} samples and {neurons:,} neurons…"):
        try:
            world = build_world(cfg)
        except ConfigError as err:  # e.g. a dataset this machine cannot load
            state.explore.guard_error = (cfg, str(err))
            return
        outputs = world.ds.y_train.shape[1] if world.ds.y_train.ndim > 1 else 1
        if outputs > 1 and procedure_of(cfg).explore_run is None:
            # the engine's network and the player read one ±1 label (the AZL world has its
            # own Explore run)
            state.explore.guard_error = (
                cfg, f"Explore's live view plays worlds with one ±1 label; this world's target "
                     f"has {outputs} outputs. Open its preset in Compare, or train it with "
                     f"`python -m engine run --preset …` (docs/azl.md).")
            return
        state.explore.world, state.explore.run_cfg = world, cfg
        reset(state)
    state.explore.build_s = time.perf_counter() - t0


def reset(state: AppState) -> None:
    """Back to step 0 on the same data and initial network."""
    state.explore.run = None  # the old run goes before the new one is made
    # the procedure's own Explore run (resnet3: the ResNet with its other methods beside it),
    # else its lead method's run (engine Run, or Algorithm 1's for a gfl world)
    world = state.explore.world
    proc = procedure_of(world.cfg)
    state.explore.run = (proc.explore_run(world) if proc.explore_run is not None
                         else make_run(proc.lead, world))
    state.explore.error = state.explore.centre_map = None
    if state.explore.player is not None:  # a new run after another: show it from step 0
        state.explore.view["step"] = 0
    state.explore.player = None  # a new run: the browser gets it from frame 0


def compute(state: AppState, player: dict, ahead: bool = True) -> int:
    """Take steps until the browser has the frames it asked for (ahead: and steps 1 and 2),
    within one tick's budget."""
    run = state.explore.run
    if run is None or state.explore.error or run.done:
        return 0
    want = wanted(player, ahead)  # frames, step 0 included
    t0, done = time.perf_counter(), 0
    try:
        while len(run.history) < want and not run.done:
            run.step()
            done += 1
            if time.perf_counter() - t0 > BUDGET_S:
                break
    except DivergenceError as err:
        state.explore.error = str(err)
    return done


def has_truth(state: AppState) -> bool:
    """False where the data has no single planted Σ_A M (mixtures, real data): no stars and
    no relevant/background split then. The world and its setting are set and dropped
    together, so without a world there is no data to say otherwise."""
    return state.explore.world is None or state.explore.world.ds.has_truth


def map_data(state: AppState, i: int) -> tuple[np.ndarray, np.ndarray, dict]:
    """(2m×2 points, colour cosines, marks) for history index i."""
    snap, ds = state.explore.run.history[i], state.explore.world.ds
    groups = star_groups(state)
    if groups is not None:
        return direction_map(state, i, groups)
    centres = ds.centres
    if centres is None:
        marks = {"+Σ_A M": snap.embedding[-2], "−Σ_A M": snap.embedding[-1]}
        return snap.embedding[:-2], snap.cos, marks if has_truth(state) else {}
    emb, cos = centre_embedding(state, i, np.asarray(centres, dtype=np.float64))
    width = len(snap.cos)
    labels = ds.centre_labels
    marks = {}
    for sign, name in ((1, "centres, label +1"), (-1, "centres, label −1")):
        sel = np.ones(len(centres), bool) if labels is None else np.sign(labels) == sign
        if sel.any():
            marks[name if labels is not None else "centres"] = emb[width:][sel]
    return emb[:width], cos, marks


def _weights_at(state: AppState, i: int) -> np.ndarray:
    """First-layer weights at history index i (the newest live, else the last kept before i)."""
    hist = state.explore.run.history
    if i == len(hist) - 1:
        return live_weights(state.explore.run)
    for j in range(i, -1, -1):
        if hist[j].weights is not None:
            return hist[j].weights
    return live_weights(state.explore.run)


def live_weights(run) -> np.ndarray:
    """The run's current first-layer weights (the engine's Run, the AZL world's or the GFL
    procedure's)."""
    if hasattr(run, "first_layer"):
        return run.first_layer()
    if hasattr(run, "params"):
        return run.params.q.float().cpu().numpy()
    return run.learner.weights().detach().float().cpu().numpy()


def centre_embedding(state: AppState, i: int, centres: np.ndarray):
    """Map of neurons plus the data's centres, aligned to the previous such frame."""
    w = np.asarray(_weights_at(state, i), dtype=np.float64)
    if centres.shape[1] < w.shape[1]:
        centres = np.hstack([centres, np.zeros((len(centres), w.shape[1] - centres.shape[1]))])
    prev = state.explore.centre_map[1] if state.explore.centre_map else None
    emb = mds.align(mds.classical(np.vstack([w, centres[:, :w.shape[1]]])), prev)
    state.explore.centre_map = (i, emb)
    cos = np.abs(centre_cosines(w, centres[:, :w.shape[1]])).max(axis=0)
    return emb, cos


def directions(state: AppState):
    """The GFL procedure's feature directions (engine.data.Directions) of the run, or None."""
    prep = getattr(state.explore.run, "prep", None)
    return None if prep is None else prep.dirs


def direction_marks(dirs) -> list[tuple[str, np.ndarray]]:
    """(name, rows) of each direction's stars: D_j for a cluster centre (−D_j, where it is a
    centre, is a direction of its own), ±D_j for a feature or a subspace direction."""
    out = []
    for j, v in enumerate(dirs.vectors):
        both = dirs.kind != "centre"
        out.append((f"{'±' if both else ''}D{j + 1}", np.vstack([v, -v]) if both else v[None]))
    return out


def star_groups(state: AppState) -> list[tuple[str, np.ndarray, int]] | None:
    """(name, star rows, colour group) of each labelled group of stars on the map: the GFL
    procedure's feature directions, or the AZL world's pairs (four stars each, one colour per
    pair); None for a run without them."""
    dirs = directions(state)
    if dirs is not None:
        return [(name, rows, g) for (name, rows), g in
                zip(direction_marks(dirs), dirs.groups, strict=True)]
    pairs = getattr(state.explore.run, "pair_marks", None)
    return None if pairs is None else [(name, rows, r) for r, (name, rows) in enumerate(pairs())]


def direction_map(state: AppState, i: int, groups) -> tuple[np.ndarray, np.ndarray, dict]:
    """Map of the neurons and each group's stars: a subspace truth's own plane (fixed axes
    u₁, u₂), else cosine MDS aligned to the previous such frame."""
    w = np.asarray(_weights_at(state, i), dtype=np.float64)
    stars = np.vstack([rows for _, rows, _ in groups])
    dirs = directions(state)
    basis = None if dirs is None else plane_basis(dirs)
    if basis is not None:
        emb = plane_map(np.vstack([w, stars]), basis)
    else:
        prev = state.explore.centre_map[1] if state.explore.centre_map else None
        emb = mds.align(mds.classical(np.vstack([w, stars])), prev)
        state.explore.centre_map = (i, emb)
    out, at = {}, len(w)
    for name, rows, _ in groups:
        out[name], at = emb[at:at + len(rows)], at + len(rows)
    return emb[:len(w)], state.explore.run.history[i].cos, out


def plane_axes(state: AppState) -> dict | None:
    """The map's title and axis names when it is drawn in the truth's plane, else None."""
    dirs = directions(state)
    if dirs is None or plane_basis(dirs) is None:
        return None
    return {"title": "Map in the relevant plane span(u₁, u₂): neuron directions projected",
            "x": "⟨w/‖w‖, u₁⟩", "y": "⟨w/‖w‖, u₂⟩"}


def direction_counts(state: AppState, i: int) -> list[int] | None:
    """Neurons within cos 0.9 of each star group at history index i: the AZL snapshot's pair
    counts, or the GFL probes' per-direction count; None for a run without star groups."""
    counts = (getattr(state.explore.run.history[i], "extra", None) or {}).get("pair_counts")
    if counts is not None:
        return list(counts)
    dirs = directions(state)
    if dirs is None:
        return None
    w = np.asarray(_weights_at(state, i), dtype=np.float64)
    return [int(c) for c in layer_probes(w, dirs)["nice"]]
