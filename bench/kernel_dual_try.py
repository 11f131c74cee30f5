"""Times engine/limits/kdual.py on a pickled NTK Problem (its Gram): the λ = 1e-2, 1e-4 points and
the hard margin, each with its seconds, steps, certificate and test accuracy.
Usage: python -m bench.kernel_dual_try PROBLEM.pkl (a Problem pickled after
engine.limits.sources.problem_of, its train operator with .gram())."""

import pickle
import sys
import time
from dataclasses import replace

import torch

from engine.limits import hardmargin, kdual, svm
from engine.limits.ops import Gram


def main(file: str) -> None:
    """Prints one line per solve."""
    torch.set_num_threads(1)
    with open(file, "rb") as handle:
        prob = pickle.load(handle)  # noqa: S301 (a file this bench wrote itself)
    op, y = Gram(prob.train.gram()), prob.y_train.double()
    prev = None
    for lam in (1e-2, 1e-4):
        obj = replace(prob.objective, lam=lam)
        t = time.perf_counter()
        got = kdual.solve(op, y, obj, prev)
        value = svm.primal_value(op, y, obj, got["w"], None)
        print(f"λ={lam:g} {time.perf_counter() - t:.2f} s {got['iterations']} steps gap "
              f"{svm.gap_at(op, y, obj, value, got['alpha']):.1e} test {_test(prob, got):.4f}")
        prev = got["alpha"]
    t = time.perf_counter()
    hard = kdual.hard(op, y, prev / (2 * 1e-4))
    if hard is None:
        print("hard margin: none (not separable or not converged)")
        return
    cert = hardmargin.certify(op, y, prob.objective, hard, 1e-8)[1]
    print(f"hard {time.perf_counter() - t:.2f} s {hard['iterations']} steps, "
          f"{int((hard['alpha'] > 0).sum())} support vectors, gap at 1e-8 {cert:.1e}, "
          f"test {_test(prob, hard):.4f}")


def _test(prob, got: dict) -> float:
    pred = prob.test.mv(prob.train.rmv(got["w"]))
    return float(((pred * prob.y_test.double()) > 0).double().mean())


if __name__ == "__main__":
    main(sys.argv[1])
