"""Conjugate gradients for the limits' symmetric positive-definite solves: one vector (the hinge
Newton's direction) or several columns at once (each with its own step lengths: the ridge's
outputs), optionally preconditioned (kernelsq: a float32 Cholesky of the same matrix)."""

from __future__ import annotations

import torch

from .problem import check_cancel


def _dot(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """⟨a, b⟩, per column for matrices."""
    return a @ b if a.dim() == 1 else (a * b).sum(0)


def cg(apply, b: torch.Tensor, tol: float, cap: int, precond=None
       ) -> tuple[torch.Tensor, int, bool]:
    """(x, products, converged) for apply(x) = b, stopped once every column's residual is
    ≤ tol × its ‖b‖ or after cap products; started at precond(b) (0 without a preconditioner)."""
    if precond is None:
        x, r = torch.zeros_like(b), b.clone()
    else:
        x = precond(b)
        r = b - apply(x)
    z = r if precond is None else precond(r)
    d, rz, rr = z.clone(), _dot(r, z), _dot(r, r)
    floor = (tol * (b.norm() if b.dim() == 1 else b.norm(dim=0))) ** 2
    if bool((rr <= floor).all()):
        return x, 0, True
    for products in range(1, cap + 1):
        check_cancel()
        q = apply(d)
        step = rz / _dot(d, q).clamp_min(1e-300)
        x += step * d
        r -= step * q
        rr = _dot(r, r)
        if bool((rr <= floor).all()):
            return x, products, True
        z = r if precond is None else precond(r)
        rz, old = (rr if precond is None else _dot(r, z)), rz
        d = z + (rz / old) * d
    return x, cap, False
