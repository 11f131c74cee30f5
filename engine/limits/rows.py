"""Repeated training rows merged: a sample drawn from a finite set (gfl-uniform-parity's 30 000
rows are 2 048 distinct points of {±1}¹¹) puts the same (x, y) in many rows. The hinge (and the
hard margin) sees k copies of a row only as its weight k, so the solvers work on the distinct
rows with the counts as weights — the same objective, its value, gradient and Hessian equal up
to rounding — and every certificate is taken again on all the rows."""

from __future__ import annotations

import torch

from .ops import DENSE_BYTES, DT, Dense, TangentDense, kernel_embedding
from .problem import Problem

WORTH = 0.5  # merged only where at most this fraction of the rows is distinct
BLOCK = 4096  # rows compared at a time (the check makes no n×p copy)
EMBED = 6000  # distinct inputs whose Gram is embedded, at most (sources.DIRECT_WIDTH's bound)


class Distinct:
    """The distinct (x, y) rows of a Dense operator: `first` (one row index per group, in order
    of first appearance), `group` (each row's group) and `count` (rows per group)."""

    def __init__(self, op: Dense, y: torch.Tensor, first, group, count):
        self.op, self.first, self.group, self.count = op, first, group, count
        self.x = Dense(op.take(first))
        self.y_all = y.to(DT)
        self.y = self.y_all[first]

    def weights(self, s: torch.Tensor) -> torch.Tensor:
        """Per-distinct-row weights whose mean over the distinct rows is the mean of s over all
        rows: s_i · count · (distinct / n)."""
        return s[self.first] * self.count.to(DT) * (len(self.first) / len(self.group))

    def rows(self, order: torch.Tensor) -> torch.Tensor:
        """An order of all rows as an order of the groups (each at its first place in it)."""
        n = len(order)
        place = torch.full((len(self.first),), n).scatter_reduce(
            0, self.group[order], torch.arange(n), "amin")
        return torch.argsort(place)

    def spread(self, alpha: torch.Tensor) -> torch.Tensor:
        """A dual vector of the groups on all rows, each group's weight shared equally by its
        rows (one y, so one box s_i/n each): the largest λ_max = min s_i/(2nα_i) it allows."""
        return (alpha / self.count.to(DT))[self.group]


def distinct(op, y: torch.Tensor) -> Distinct | None:
    """op's distinct (x, y) rows where they are few (≤ WORTH·n), found once per operator and
    kept on it; None otherwise (not Dense, or too many distinct rows)."""
    if not isinstance(op, Dense):
        return None
    y = y.to(DT)
    kept = getattr(op, "_distinct", None)
    if kept is None or not torch.equal(kept[0], y):
        kept = op._distinct = (y, _find(op, y))
    return kept[1]


def _find(op: Dense, y: torch.Tensor) -> Distinct | None:
    """Groups by a random projection of x beside y (equal rows project equally), checked
    exactly; where the projection put unequal rows together (rows apart by a rounding: One
    Step's features), grouped by the rows themselves (a sort of n rows of p, ~2× slower)."""
    if y.dim() != 1:
        return None
    r = torch.randn(op.p, dtype=DT, generator=torch.Generator().manual_seed(0))
    group, count = _groups(torch.stack([op.x @ r, y], 1))
    if len(count) > WORTH * op.n:
        return None
    first = _firsts(group, len(count))
    if not all(torch.equal(op.x[i:i + BLOCK], op.x[first[group[i:i + BLOCK]]])
               for i in range(0, op.n, BLOCK)):  # (y is in the key)
        group, count = _groups(torch.cat([op.x, y[:, None]], 1))
        if len(count) > WORTH * op.n:
            return None
    return _in_order(op, y, group, count)


def _in_order(op: Dense, y: torch.Tensor, group, count) -> Distinct:
    """The Distinct of a grouping, its groups in order of first appearance: the sample's own
    order, kept for the NNLS's spread."""
    first = _firsts(group, len(count))
    order = torch.argsort(first)
    rank = torch.empty_like(order)
    rank[order] = torch.arange(len(order))
    return Distinct(op, y, first[order], rank[group], count[order])


def _groups(key: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Each row's group among the equal rows of key, and the groups' sizes."""
    _, group, count = torch.unique(key, dim=0, return_inverse=True, return_counts=True)
    return group, count


def _firsts(group: torch.Tensor, groups: int) -> torch.Tensor:
    """The first row of each group."""
    n = len(group)
    return torch.full((groups,), n).scatter_reduce(0, group, torch.arange(n), "amin")


def on_distinct_inputs(tr, te, problem: tuple) -> Problem | None:
    """The n×n Gram's embedding on the distinct training inputs, where a sample drawn from a
    finite set repeats them (gfl-uniform-parity: 30 000 rows, 2 048 distinct points of {±1}¹¹;
    its 30 000² Gram, 6.7 GiB, was refused): equal inputs have equal tangent features, so K on
    the distinct ones and Φ repeated row by row are every row's features (the solvers merge the
    copies again: `distinct`); problem: the Problem's other fields (y_tr, y_te, objective, metric,
    offset, notes); None where the inputs are not few or Φ does not fit."""
    keep, group = _distinct(tr.z)
    count = len(keep)
    if count > min(EMBED, WORTH * tr.n) or (tr.n + te.n) * count * 8 > DENSE_BYTES:
        return None
    distinct = tr.rows(keep)
    t_keep, t_group = _distinct(te.z)  # test inputs drawn from the same finite set repeat too
    k_test = (distinct.gram_blocked(te.rows(t_keep))[t_group] if len(t_keep) <= WORTH * te.n
              else distinct.gram_blocked(te))
    train, test = kernel_embedding(TangentDense(distinct).gram(), k_test)
    form = f"dual: the tangent kernel on the {count} distinct of {tr.n} training inputs"
    *fields, notes = problem
    dense = Repeated(train, group)
    _hand_over(dense, fields[0], group)
    return Problem(dense, test, *fields, notes={**notes, "form": form})


class Repeated(Dense):
    """The rows of a Dense repeated by an index (row i is base's row index[i]): X w and Xᵀ u
    through base's rows, the n×p copy built only where a solver asks for all of x
    (gfl-uniform-parity's NTK: 30 000 × 1 190 rows, 285 MB and ≈ 1 s, from 2 048 distinct)."""

    def __init__(self, base: Dense, index: torch.Tensor):  # not Dense.__init__: x is built late
        self._base, self._index, self._x, self._gram = base, index, None, None
        self.n, self.p = len(index), base.p

    @property
    def x(self) -> torch.Tensor:
        """The explicit n×p rows, built on first use."""
        if self._x is None:
            self._x = self._base.x[self._index]
        return self._x

    def take(self, rows: torch.Tensor) -> torch.Tensor:
        """The rows R, from base's."""
        return self._base.x[self._index[rows]]

    def mv(self, w: torch.Tensor) -> torch.Tensor:
        """X w: base's products, repeated."""
        return self._base.mv(w)[self._index]

    def rmv(self, u: torch.Tensor) -> torch.Tensor:
        """Xᵀ u: u summed over each base row's copies first."""
        sums = torch.zeros(self._base.n, dtype=DT).index_add_(0, self._index, u.to(DT))
        return self._base.rmv(sums)


def _hand_over(op: Dense, y: torch.Tensor, inputs: torch.Tensor) -> None:
    """op's distinct (x, y) rows from its inputs' groups (equal inputs, equal rows), kept on it
    for `distinct`: not found again by a projection of its n × count rows (≈ 0.5 s on
    gfl-uniform-parity)."""
    if y.dim() != 1:
        return
    y = y.to(DT)
    group, count = _groups(torch.stack([inputs.to(DT), y], 1))
    found = _in_order(op, y, group, count) if len(count) <= WORTH * op.n else None
    op._distinct = (y, found)


def _distinct(z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(one row index per distinct row of z, each row's index among them)."""
    group, count = _groups(z)
    return _firsts(group, len(count)), group
