"""Seeds of one setting trained as one batched computation (a leading batch dimension).

What batches: the network and its frozen-layer variants (rf, one_step, two_step) of every seed, as
E = seeds × methods entries of one stacked state stepped together, on the data of a world whose
record says `batched_sweeps` (the sparse-coding world), with the paper or theory schedule (SGD
without momentum or Adam, averaging, intercept). What does not: the NTK, the *_no_structure
methods, other worlds, momentum (the standard schedule) and classifier=logreg; those go through
engine.compare one seed at a time. Data, initial networks and schedules come from the engine's own
build_world per seed, and whole-set accuracies (steps 0-2 and T) from its Evaluator, so rows match
the unbatched engine to float rounding (tests/test_sweep_batched.py).

Where the time goes: on a CPU the matmuls are per-entry loops of addmm/mv on one stacked buffer
(CPU BLAS is faster that way than torch.baddbmm/bmm at these shapes; on CUDA tensors they are one
bmm/baddbmm launch each, batched_step.KERNELS), so batching saves the Python and bookkeeping of
each step, not arithmetic. Frozen layers' activations (training set and
probes) are computed once, as in the unbatched engine, and one seed's entries that share the
full-batch steps 1-2 (network, One and Two Step) are evaluated once.
"""

from __future__ import annotations

import time
from types import SimpleNamespace

import torch

from ..methods import BY_NAME, METHOD_RECORDS
from ..network import Params
from ..scenarios import world as world_record
from ..trainer import FEATURE_CACHE_BYTES
from ..worlds import build_world
from . import batched_step as bs
from .rows import curve_stride, make_row

# the network and its frozen-layer variants, on the structured world
FAMILY = tuple(m.name for m in METHOD_RECORDS if m.structure and not m.linearised)
FREEZE_AFTER = {m: BY_NAME[m].freeze_after for m in FAMILY}


def supported(world) -> bool:
    """Whether the batched path reproduces the engine for this world."""
    cfg, sch = world.cfg, world.schedule
    return (world_record(cfg).batched_sweeps and cfg.classifier == "schedule"
            and all(s.momentum == 0 for s in (sch.step1, sch.step2, sch.later)))


def _stack(worlds, entries) -> dict:
    """The batched state: parameters, averages and optimizer state of every entry."""
    first = [worlds[i].init for i, _ in entries]
    st = {k: torch.stack([getattr(p, k) for p in first]) for k in ("q", "b", "a")}
    st["c"] = torch.zeros(len(entries), dtype=st["a"].dtype, device=st["a"].device)
    st["perp"] = torch.tensor([p.perp_scale for p in first], dtype=torch.float64)
    st["avg"] = {k: v.clone() for k, v in st.items()}
    st["avg_on"] = torch.zeros(len(entries), dtype=torch.bool)
    st["opt"] = {"E": len(entries)}
    return st


def _params(st: dict, e: int, world) -> Params:
    """Entry e's reported parameters (the average once it started) as engine Params; an
    intercept that was never trained is 0, which adds exactly nothing."""
    src = st["avg"] if bool(st["avg_on"][e]) else st
    return Params(src["q"][e], src["b"][e], src["a"][e], world.init.perp,
                  float(src["perp"][e]), src["c"][e])


class Orders:
    """Each entry's mini-batch order: the engine Trainer's seeded reshuffle per epoch."""

    def __init__(self, worlds, entries, batch: int):
        self.gens = [torch.Generator().manual_seed(worlds[i].cfg.seed * 104729 + 3)
                     for i, _ in entries]
        self.n, self.batch = worlds[0].data.z_train.shape[0], batch
        self.order = [None] * len(entries)
        self.cursor = [0] * len(entries)

    def take(self, e: int) -> torch.Tensor:
        """The next batch of indices of entry e."""
        if self.order[e] is None or self.cursor[e] + self.batch > self.n:
            self.order[e] = torch.randperm(self.n, generator=self.gens[e])
            self.cursor[e] = 0
        idx = self.order[e][self.cursor[e]:self.cursor[e] + self.batch]
        self.cursor[e] += self.batch
        return idx


def _groups(entries, t: int, sch) -> dict:
    """(stage, trains first layer) → entry indices taking step t with the same parameters."""
    out: dict = {}
    for e, (_, m) in enumerate(entries):
        f = FREEZE_AFTER[m]
        frozen = f is not None and t > f
        sp = sch.later if frozen else sch.at(t)
        out.setdefault((sch.stage(t) if not frozen else "later", not frozen, id(sp)),
                       (sp, []))[1].append(e)
    return out


def _frozen_acts(st, slot: str, ix: list[int], sets, truncated: bool):
    """(activations on sets()[e], folded) of the frozen entries ix, computed once per set of
    entries (engine.trainer.DeviceData.frozen_features batched); None above the budget."""
    cache = st.setdefault(slot, {})
    key = tuple(ix)
    if key not in cache:
        cache.clear()  # the frozen set only grows (steps 1-3): the old one is not needed again
        z = sets()
        units = st["q"].shape[1]
        if len(ix) * z.shape[1] * units * z.element_size() > FEATURE_CACHE_BYTES:
            cache[key] = None
        else:
            ix_t = torch.tensor(ix)
            cache[key] = bs.layer_acts(st["q"][ix_t], st["b"][ix_t], z, truncated)
    return cache[key]


def _step(st, t, entries, worlds, orders, z_all, y_all, sidx) -> None:
    sch, cfg = worlds[0].schedule, worlds[0].cfg
    for (_, train_first, _), (sp, ix) in _groups(entries, t, sch).items():
        ix_t = torch.tensor(ix)
        seeds = sidx[ix_t]
        if sp.full_batch or cfg.batch >= orders.n:
            g = _full_batch_grads(st, ix, seeds, z_all, y_all, sp, sch, train_first)
        else:
            idx = torch.stack([orders.take(e) for e in ix]).to(z_all.device)
            y = _rows(y_all, seeds, idx)
            cached = None
            if not train_first and sp.xi <= 0.0:
                cached = _frozen_acts(st, "train_acts", ix, lambda s=seeds: z_all[s],
                                      sch.truncated)
            if cached is None:
                z = _rows(z_all, seeds, idx)
            else:  # rows of the cached activations instead of the batch's forward pass
                local = torch.arange(len(ix), device=idx.device)
                cached, z = (_rows(cached[0], local, idx), cached[1]), None
            sub = {k: st[k][ix_t] for k in ("q", "b", "a", "c")}
            g = bs.hinge_grads(sub, z, y, sp.xi, sch.truncated, train_first, sp.class_weights,
                               cached)
        bs.apply(st, ix_t, g, sp, train_first, t, sch.T, sch.dim)


def _rows(x: torch.Tensor, which: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    """x[which[e], idx[e]] for every e (E×B rows of E sets) by one index_select: advanced
    indexing with two index tensors is 2-3× slower on a CPU."""
    n = x.shape[1]
    flat = (which.to(idx.device)[:, None] * n + idx).reshape(-1)
    out = x.reshape(x.shape[0] * n, *x.shape[2:]).index_select(0, flat)
    return out.reshape(*idx.shape, *x.shape[2:])


def _full_batch_grads(st, ix, seeds, z_all, y_all, sp, sch, train_first: bool) -> dict:
    """Full-batch gradients of entries ix; entries of one seed in the same state (network,
    One and Two Step share steps 1-2, as engine.trainer's full_batch_cache exploits) are
    evaluated once and their gradients copied."""
    uniq, useed, src = [], [], []  # evaluated entries, their seeds; per entry its source
    for pos, e in enumerate(ix):
        s = int(seeds[pos])
        j = next((j for j, u in enumerate(uniq) if useed[j] == s and
                  all(torch.equal(st[k][e], st[k][u]) for k in "qbac")), None)
        if j is None:
            j = len(uniq)
            uniq.append(e)
            useed.append(s)
        src.append(j)
    sub = {k: st[k][torch.tensor(uniq)] for k in ("q", "b", "a", "c")}
    us = torch.tensor(useed, device=z_all.device)
    g = bs.hinge_grads(sub, z_all[us], y_all[us], sp.xi, sch.truncated, train_first,
                       sp.class_weights)
    pick = torch.tensor(src)
    return {k: v[pick.to(v.device)] for k, v in g.items()}



class Probe:
    """Every seed's probe samples and ground truth, stacked for batched measurements."""

    def __init__(self, worlds, sidx):
        ev = [w.evaluator for w in worlds]
        self.z = torch.stack([e.probe_z for e in ev])[sidx]
        self.y = torch.stack([e.probe_y for e in ev])[sidx]
        self.k = ev[0].n_probe_train
        self.truth = torch.stack([e.geo.truth for e in ev])[sidx]
        self.truth_norm = torch.tensor([e.geo.truth_norm for e in ev])[sidx.cpu()]
        perp = [w.init.perp for w in worlds]
        self.perp_sq = None if perp[0] is None else \
            torch.stack([(p * p).sum(1) for p in perp])[sidx]


def _pick(st: dict) -> dict:
    """The reported parameters of every entry: the running average once it started."""
    on = st["avg_on"].to(st["q"].device)
    out = {k: torch.where(on.view(-1, *[1] * (st[k].dim() - 1)), st["avg"][k], st[k])
           for k in ("q", "b", "a", "c")}
    out["perp"] = torch.where(st["avg_on"], st["avg"]["perp"], st["perp"])
    return out


def _cos_max(p: dict, pr: Probe) -> torch.Tensor:
    """max_i cos(w_i, Σ_A M) per entry (engine.probes.cosines, batched)."""
    sq = (p["q"] * p["q"]).sum(-1)
    if pr.perp_sq is not None:
        sq = sq + (p["perp"] ** 2).to(sq.dtype).to(sq.device)[:, None] * pr.perp_sq
    norms = sq.sqrt() * pr.truth_norm.to(sq.dtype).to(sq.device)[:, None]
    dots = torch.bmm(p["q"], pr.truth[:, :, None]).squeeze(-1)
    return (dots / norms.clamp_min(1e-30)).max(1).values


def _probe_outputs(st, p: dict, t: int, entries, pr: Probe, truncated: bool, rows: slice):
    """g of every entry on its probe samples `rows`; frozen layers' activations (on every
    probe sample) are computed once."""
    frozen = [e for e, (_, m) in enumerate(entries)
              if FREEZE_AFTER[m] is not None and t > FREEZE_AFTER[m]]
    cached = _frozen_acts(st, "probe_acts", frozen, lambda: pr.z[torch.tensor(frozen)],
                          truncated) if frozen else None
    z = pr.z[:, rows]
    if cached is None:
        return bs.outputs(p["q"], p["b"], p["a"], p["c"], z, truncated)[0]
    g = torch.empty(z.shape[:2], dtype=z.dtype, device=z.device)
    fz = torch.tensor(frozen)
    g[fz] = bs.frozen_outputs(p["a"][fz], p["c"][fz], cached[0][:, rows], cached[1])
    rest = torch.tensor([e for e in range(len(entries)) if e not in set(frozen)], dtype=torch.long)
    if len(rest):
        g[rest] = bs.outputs(p["q"][rest], p["b"][rest], p["a"][rest], p["c"][rest], z[rest],
                             truncated)[0]
    return g


def _measure(st, t, T, entries, worlds, pr: Probe) -> list[list]:
    """Per entry [train_loss, train_acc, test_loss, test_acc, cos_max] after step t. Between
    the curves' stride steps only the test probe is measured (steps_95/99 need it every step;
    the rest is stored at the stride only) and the other fields are None."""
    p = _pick(st)
    if t <= 2 or t >= T:  # whole sets, by the engine's own evaluator
        stats = torch.stack([worlds[i].evaluator.accuracy_t(_params(st, e, worlds[i]), True)
                             for e, (i, _) in enumerate(entries)])
        return torch.cat([stats, _cos_max(p, pr)[:, None]], 1).double().cpu().tolist()
    full = t % curve_stride(T) == 0
    rows = slice(0, None) if full else slice(pr.k, None)
    margin = _probe_outputs(st, p, t, entries, pr, worlds[0].schedule.truncated, rows) \
        * pr.y[:, rows]
    splits = ((margin[:, :pr.k], pr.k), (margin[:, pr.k:], margin.shape[1] - pr.k)) if full \
        else ((margin, margin.shape[1]),)
    parts = []
    for m, n in splits:
        right = (m > 0).sum(1) + 0.5 * (m == 0).sum(1)
        parts += [(1.0 - m).clamp_min(0.0).sum(1) / n, right.to(m.dtype) / n]
    if not full:
        return [[None, None, lo, acc, None] for lo, acc in torch.stack(parts, 1).double().tolist()]
    out = torch.cat([torch.stack(parts, 1), _cos_max(p, pr)[:, None]], 1)
    return out.double().cpu().tolist()


def train_batched(spec, setting, seeds, methods, version, device):
    """(rows of the batched methods, methods left to the unbatched path)."""
    fam = [m for m in methods if m in FAMILY]
    worlds = [build_world(spec.config(setting, s), device) for s in seeds]
    if len(seeds) < 2 or not fam or not all(supported(w) for w in worlds) or \
            len({str(w.schedule.to_dict()) for w in worlds}) != 1:
        return [], list(methods)
    t0 = time.perf_counter()
    entries = [(i, m) for i in range(len(seeds)) for m in fam]
    sidx = torch.tensor([i for i, _ in entries])
    dev = worlds[0].data.z_train.device
    z_all = torch.stack([w.data.z_train for w in worlds])
    y_all = torch.stack([w.data.y_train for w in worlds])
    sidx_d = sidx.to(dev)
    probe = Probe(worlds, sidx_d)
    cfg, st = worlds[0].cfg, _stack(worlds, entries)
    orders, T = Orders(worlds, entries, cfg.batch), cfg.T
    hist = [[] for _ in entries]
    for t in range(T + 1):
        if t > 0:
            _step(st, t, entries, worlds, orders, z_all, y_all, sidx_d)
        for e, row in enumerate(_measure(st, t, T, entries, worlds, probe)):
            hist[e].append(SimpleNamespace(step=t, train_loss=row[0], train_acc=row[1],
                                           test_loss=row[2], test_acc=row[3], cos_max=row[4]))
    share = (time.perf_counter() - t0) / len(entries)
    rows = []
    for e, (i, m) in enumerate(entries):
        last = hist[e][-1]
        summary = {"train_acc": last.train_acc, "test_acc": last.test_acc, "cos": last.cos_max}
        rows.append(make_row(setting, worlds[i].cfg, m, SimpleNamespace(history=hist[e]),
                             summary, share, device, version, True))
    return rows, [m for m in methods if m not in FAMILY]
