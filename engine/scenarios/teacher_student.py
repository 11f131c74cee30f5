"""The effect of input structure on real data (App. E.5), at digits scale.

A teacher FC(9) (one hidden layer, quadratic activation, as in E.5) is trained on the bundled
handwritten digits L (target: digit < 5) with the E.5 regulariser on Gaussian inputs U
(R = R1 + R2: balanced class averages on U, confident predictions on U). It then labels L and U.
The student (the engine's network, typical practice) is trained on the mixture, a fraction α of
which is Gaussian. Headline [P 623–630]: the student learns the real part better and faster
than the Gaussian part. Without input structure the real inputs are replaced by a Gaussian with
the digits' own mean and covariance (second moments kept, structure removed).

Per step the runs report acc_real / acc_gauss / acc_all on the test set (ScenarioSnapshot.extra);
`part_accuracy(world, params)` computes them for any network state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import torch
import torch.nn.functional as F

from ..data import Dataset
from ..errors import ConfigError
from ..method_table import BY_NAME
from ..network import Params, predict
from ..preset import Preset
from ..run import Run, World
from ..spec import Spec, WorldRecord
from ._common import SCHEDULE_K, TRAINING, input_space, stats, torch_threads, with_extra
from .real import _digits

if TYPE_CHECKING:  # annotations only: the settings sit above the worlds
    from ..settings import Settings as Config  # the Protocol: engine/config.py sits above

SCENARIO = "teacher_student"
TEACHER_WIDTH = 9


def _gaussian(rng, n: int, d: int, like: np.ndarray | None = None) -> np.ndarray:
    """Isotropic Gaussian inputs with E‖x‖² = 1, or a Gaussian with the moments of `like`."""
    if like is None:
        return rng.standard_normal((n, d)) / np.sqrt(d)
    cov = np.cov(like, rowvar=False)
    return rng.multivariate_normal(like.mean(axis=0), cov, size=n, method="eigh")


def train_teacher(x_l: np.ndarray, t_l: np.ndarray, x_u: np.ndarray, seed: int) -> callable:
    """FC(9) with quadratic activation on L (logistic loss) plus R1 + R2 on U; returns f(x)."""
    gen = torch.Generator().manual_seed(seed * 31 + 5)
    d = x_l.shape[1]
    u = (torch.randn(TEACHER_WIDTH, d, generator=gen) / np.sqrt(d)).requires_grad_()
    v = (torch.randn(TEACHER_WIDTH, generator=gen) / TEACHER_WIDTH).requires_grad_()
    c = torch.zeros(1, requires_grad=True)
    f = lambda x: ((x @ u.T) ** 2) @ v + c  # noqa: E731
    xl, tl, xu = (torch.as_tensor(a, dtype=torch.float32) for a in (x_l, t_l, x_u))
    opt = torch.optim.Adam([u, v, c], lr=0.02)
    for _ in range(400):
        opt.zero_grad()
        pu = torch.sigmoid(f(xu))
        mean = torch.stack([pu.mean(), 1 - pu.mean()])
        r1 = (mean * mean.clamp_min(1e-12).log()).sum()  # lowest when U's classes balance
        r2 = -(pu * pu.clamp_min(1e-12).log() + (1 - pu) * (1 - pu).clamp_min(1e-12).log())
        loss = F.softplus(-tl * f(xl)).mean() + r1 + r2.mean()
        loss.backward()
        opt.step()
    with torch.no_grad():
        u, v, c = u.detach().clone(), v.detach().clone(), c.detach().clone()
    return lambda x: (((torch.as_tensor(x, dtype=torch.float32) @ u.T) ** 2) @ v + c).numpy()


def _split(cfg: Config, rng) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Digits centred and scaled to E‖x‖² = 1 (like the Gaussian part): train, test, targets."""
    x, digit = _digits()
    order = rng.permutation(len(x))
    x, digit = x[order], digit[order]
    x = x - x.mean(axis=0)
    x = x / np.sqrt((x**2).sum(axis=1).mean())
    cut = int(round(0.7 * len(x)))
    x_l, x_lt = x[:cut][: cfg.n], x[cut:][: cfg.n_test]
    return x_l, x_lt, np.where(digit[:cut][: len(x_l)] < 5, 1.0, -1.0), x


def make_dataset(cfg: Config, space: str = "auto") -> Dataset:
    """Digits + Gaussian mixture labelled by the teacher; `real_train` / `real_test` masks in
    ds.extras."""
    if cfg.d != 64:
        raise ConfigError("d", cfg.d, "64 (the input size of the bundled digits)")
    rng = np.random.default_rng([cfg.seed, 0xE5])
    x_l, x_lt, target, x_all = _split(cfg, rng)
    n_g = lambda n_real: int(round(n_real * cfg.alpha / (1 - cfg.alpha)))  # noqa: E731
    x_u, x_ut = _gaussian(rng, n_g(len(x_l)), 64), _gaussian(rng, n_g(len(x_lt)), 64)
    with torch_threads(1):
        teacher = train_teacher(x_l, target, x_u, cfg.seed)
    label = lambda a: np.where(teacher(a) >= 0, 1.0, -1.0)  # noqa: E731
    agreement = float((label(x_l) == target).mean())
    if not cfg.structure:  # the same teacher labels a Gaussian with the digits' moments
        x_l, x_lt = _gaussian(rng, len(x_l), 64, x_all), _gaussian(rng, len(x_lt), 64, x_all)
    x_tr, x_te = np.concatenate([x_l, x_u]), np.concatenate([x_lt, x_ut])
    y_tr, y_te = label(x_tr), label(x_te)
    mean_diff = x_tr[y_tr > 0].mean(axis=0) - x_tr[y_tr < 0].mean(axis=0)
    M = (mean_diff / np.linalg.norm(mean_diff))[:, None]
    ds = input_space(M, np.array([0]), x_tr, y_tr, x_te, y_te,
                     stats(1.0, pos_frac=float((y_tr > 0).mean())))
    ds.extras["real_train"] = np.arange(len(x_tr)) < len(x_l)
    ds.extras["real_test"] = np.arange(len(x_te)) < len(x_lt)
    ds.teacher_agreement = agreement
    ds.has_truth = False  # the class-mean direction is a probe axis, not a feature to learn
    return ds


def part_accuracy(world: World, params: Params) -> dict:
    """Test accuracy on the real part, the Gaussian part and the whole mixture."""
    d, ds = world.data, world.ds
    margin = (predict(params, d.z_test, world.schedule.truncated) * d.y_test).cpu().numpy()
    right = (margin > 0) + 0.5 * (margin == 0)
    real = ds.extras["real_test"]
    return {"acc_real": float(right[real].mean()), "acc_gauss": float(right[~real].mean()),
            "acc_all": float(right.mean())}


class PartsRun(Run):
    """The engine's Run with the per-part test accuracies added to every snapshot."""

    def _record(self, g, a_prev):
        snap = with_extra(super()._record(g, a_prev), part_accuracy(self.world, self.params))
        self.history[-1] = snap
        return snap


def make_run(method: str, world: World, embed: bool = True, freeze_after: int | None = None):
    """PartsRun for the network and its frozen-layer variants; the engine's NTK otherwise."""
    info = BY_NAME[method]
    if info.linearised:
        return None
    run = PartsRun(world, info.base, embed=embed, freeze_after=freeze_after)
    run.method = method
    return run


PRESETS = [
    Preset("digits-teacher-student", "Input structure on real data (App. E.5, digits scale)",
           "A quadratic FC(9) teacher trained on the bundled digits (digit < 5) labels a mixture "
           "of digits and Gaussian inputs (α = 0.5); a ReLU student (2m = 50, SGD + momentum) "
           "learns the real part faster and better than the Gaussian part.",
           "App. E.5, Fig. 4/22 (digits instead of MNIST)",
           {"scenario": SCENARIO, "d": 64, "D": 1, "k": 1, "alpha": 0.5, "schedule": "standard",
            "m": 25, "n": 1258, "n_test": 539, "batch": 50, "T": 600, "eta": 0.05,
            "momentum": 0.95}),
]

RECORD = WorldRecord(
    SCENARIO, "teacher-student on digits mixed with Gaussian inputs (App. E.5)",
    make_dataset, presets=tuple(PRESETS),
    settings={"alpha": Spec(float, 0, 1, open_lo=True, open_hi=True,
                            label="α (Gaussian fraction)", default=0.5,
                            help="input structure on real data (App. E.5): fraction of "
                                 "Gaussian inputs")},
    make_run=make_run, pins=lambda cfg: {"d": (64, "the input size of the bundled digits")},
    # the teacher labels: no D, labeling or p_o; k is read by the paper's schedule
    common=("d", "k", "structure", "n", "n_test", "seed", TRAINING),
    reads_if={"k": SCHEDULE_K})
