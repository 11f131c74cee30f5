"""Real data (App. E.4): two-class subsets, a two-layer ReLU network with Gaussian init and SGD
with momentum 0.95 (schedule 'standard'); the neuron weights form clusters over the steps.

Offline default: scikit-learn's bundled handwritten digits (8×8, d = 64), any pair of classes.
MNIST (d = 784), CIFAR-10 (d = 3072) and SVHN (d = 3072) load through torchvision when it is
installed and the files can be downloaded (root: $FEATURE_EXPLORER_DATA or ~/.cache/...);
otherwise a ConfigError says why. Inputs are centred and divided by σ̃ (√ trace of the training
covariance). Ground truth for the common probes: the unit difference of the class means
(M = that d×1 vector, A = {0}); the Dataset's `centres` are the two class means.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..data import Dataset
from ..errors import ConfigError
from ..preset import Preset
from ..spec import Spec, WorldRecord
from ._common import SCHEDULE_K, TRAINING, input_space, stats

if TYPE_CHECKING:  # annotations only: the settings sit above the worlds
    from ..settings import Settings as Config  # the Protocol: engine/config.py sits above

SCENARIO = "real"
DIMS = {"digits": 64, "mnist": 784, "cifar10": 3072, "svhn": 3072}


def pins(cfg: Config) -> dict:
    """d = the chosen data set's pixels: fixed by `real`, never a control."""
    return {"d": (DIMS[cfg.real], f"the input size of {cfg.real}")} if cfg.real in DIMS else {}


def input_dim(cfg: Config) -> int:
    """Width of x: the chosen data set's pixels (cfg.d is not used)."""
    return DIMS.get(cfg.real, cfg.d)


def download_setting(cfg: Config) -> str | None:
    """The setting that makes this world download data (None: bundled digits only)."""
    return None if cfg.real == "digits" else "real"


def check(cfg: Config) -> None:
    """The pair names two distinct classes; the bundled digits hold n and n_test images of it
    (the downloaded sets are checked once loaded, in load_pair)."""
    a, b = parse_pair(cfg.pair)
    if cfg.real == "digits":
        _check_sizes(cfg, *_digit_split(a, b), "the bundled 8×8 digits")


@functools.lru_cache(maxsize=64)
def _digit_split(a: int, b: int) -> tuple[int, int]:
    """(train, test) images of digits a and b in the bundled set's 70/30 split."""
    count = int(np.isin(_digits()[1], (a, b)).sum())
    return int(round(0.7 * count)), count - int(round(0.7 * count))


def _check_sizes(cfg: Config, train: int, test: int, where: str) -> None:
    """n and n_test at most what the pair has: a larger one was silently cut before."""
    for name, have in (("n", train), ("n_test", test)):
        if getattr(cfg, name) > have:
            raise ConfigError(name, getattr(cfg, name),
                              f"at most {have}: {where} hold {have} "
                              f"{'training' if name == 'n' else 'test'} images of "
                              f"classes {'/'.join(map(str, parse_pair(cfg.pair)))}")


def parse_pair(text: str) -> tuple[int, int]:
    """The two class labels of a real-data subset, e.g. '0,1' -> (0, 1)."""
    if not str(text).isascii():
        raise ConfigError("pair", text, "two distinct class indices in ASCII digits like '0,1'")
    try:
        a, b = (int(t) for t in str(text).replace(";", ",").split(","))
    except ValueError:
        raise ConfigError("pair", text, "two distinct class indices like '0,1'") from None
    if a == b or min(a, b) < 0 or max(a, b) > 9:
        raise ConfigError("pair", text, "two distinct class indices in 0..9 like '0,1'")
    return a, b


def data_root() -> Path:
    """Where torchvision datasets are stored."""
    return Path(os.environ.get("FEATURE_EXPLORER_DATA",
                               Path.home() / ".cache" / "feature-explorer" / "data"))


def _digits() -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's bundled 8×8 digits, pixels scaled to [0, 1]."""
    from sklearn.datasets import load_digits  # imported where used: ~1 s (issue 37)

    bunch = load_digits()
    return bunch.data.astype(np.float32) / 16.0, bunch.target.astype(np.int64)


def _torchvision(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(x_train, y_train, x_test, y_test) as flat float32 in [0, 1] from torchvision."""
    try:
        import torchvision  # noqa: F401
        from torchvision import datasets
    except ImportError:
        raise ConfigError("real", name, "digits on this machine: torchvision is not installed "
                          "(pip install torchvision, then the data are downloaded on first "
                          "use)") from None
    except Exception as exc:  # noqa: BLE001 - e.g. a CUDA torchvision next to a CPU torch
        raise ConfigError("real", name, "digits on this machine: torchvision does not load "
                          f"({type(exc).__name__}: {str(exc)[:120]}); install the torchvision "
                          "build that matches torch (same index URL)") from None
    root = str(data_root())
    try:
        if name == "mnist":
            tr, te = (datasets.MNIST(root, train=s, download=True) for s in (True, False))
            arrs = [(np.asarray(ds.data, dtype=np.float32).reshape(len(ds.data), -1) / 255,
                     np.asarray(ds.targets)) for ds in (tr, te)]
        elif name == "cifar10":
            tr, te = (datasets.CIFAR10(root, train=s, download=True) for s in (True, False))
            arrs = [(np.asarray(ds.data, dtype=np.float32).reshape(len(ds.data), -1) / 255,
                     np.asarray(ds.targets)) for ds in (tr, te)]
        else:
            tr, te = (datasets.SVHN(root, split=s, download=True) for s in ("train", "test"))
            arrs = [(np.asarray(ds.data, dtype=np.float32).reshape(len(ds.data), -1) / 255,
                     np.asarray(ds.labels)) for ds in (tr, te)]
    except Exception as exc:  # noqa: BLE001 - network errors come in many types
        raise ConfigError("real", name, f"digits while offline: downloading {name} to {root} "
                          f"failed ({type(exc).__name__}: {exc})") from None
    (x_tr, y_tr), (x_te, y_te) = arrs
    return x_tr, y_tr, x_te, y_te


def load_pair(cfg: Config) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Raw inputs of the two classes, labels +1 (first class) / -1, train and test."""
    a, b = parse_pair(cfg.pair)
    if cfg.real == "digits":
        x, t = _digits()
        keep = np.isin(t, (a, b))
        x, t = x[keep], t[keep]
        order = np.random.default_rng([cfg.seed, 0xD161]).permutation(len(t))
        cut = int(round(0.7 * len(t)))
        x_tr, t_tr, x_te, t_te = x[order[:cut]], t[order[:cut]], x[order[cut:]], t[order[cut:]]
    else:
        x_tr, t_tr, x_te, t_te = _torchvision(cfg.real)
        keep_tr, keep_te = np.isin(t_tr, (a, b)), np.isin(t_te, (a, b))
        x_tr, t_tr, x_te, t_te = x_tr[keep_tr], t_tr[keep_tr], x_te[keep_te], t_te[keep_te]
        order = np.random.default_rng([cfg.seed, 0xD161]).permutation(len(t_tr))
        x_tr, t_tr = x_tr[order], t_tr[order]
    _check_sizes(cfg, len(t_tr), len(t_te), cfg.real.upper() if cfg.real != "digits" else
                 "the bundled 8×8 digits")
    x_tr, t_tr, x_te, t_te = x_tr[:cfg.n], t_tr[:cfg.n], x_te[:cfg.n_test], t_te[:cfg.n_test]
    lab = lambda t: np.where(t == a, 1.0, -1.0).astype(np.float32)  # noqa: E731
    return x_tr, lab(t_tr), x_te, lab(t_te)


def make_dataset(cfg: Config, space: str = "auto") -> Dataset:
    """Centred, σ̃-scaled inputs of the chosen pair; M = unit class-mean difference."""
    if cfg.d != DIMS[cfg.real]:
        raise ConfigError("d", cfg.d, f"{DIMS[cfg.real]} (the input size of {cfg.real})")
    x_tr, y_tr, x_te, y_te = load_pair(cfg)
    mean = x_tr.mean(axis=0)
    sigma2 = float(((x_tr - mean) ** 2).sum(axis=1).mean())
    scale = np.float32(1 / np.sqrt(sigma2))
    z_tr, z_te = (x_tr - mean) * scale, (x_te - mean) * scale
    means = np.stack([z_tr[y_tr > 0].mean(axis=0), z_tr[y_tr < 0].mean(axis=0)])
    diff = means[0] - means[1]
    M = (diff / np.linalg.norm(diff)).astype(np.float64)[:, None]
    st = stats(sigma2, pos_frac=float((y_tr > 0).mean()))
    ds = input_space(M, np.array([0]), z_tr, y_tr, z_te, y_te, st)
    ds.centres, ds.centre_labels = means.astype(np.float64), np.array([1.0, -1.0])
    ds.has_truth = False  # M (class-mean difference) is a probe axis, not a known feature
    return ds


# The paper uses no regulariser, but its (PyTorch-style) init is ~√d times smaller relative to
# the inputs than the standard schedule's σ_w = 1 on unit-norm inputs; at that scale the weights
# hardly move once the pair is separated (two-cluster score 0.21 = random). Weight decay makes
# the unused random part decay, so the neurons that carry the function show the two clusters.
LAM = 0.02


def _settings(real: str, pair: str, n: int, n_test: int, T: int, batch: int) -> dict:
    return {"scenario": SCENARIO, "real": real, "pair": pair, "d": DIMS[real], "D": 1, "k": 1,
            "schedule": "standard", "m": 50, "momentum": 0.95, "n": n, "n_test": n_test,
            "batch": batch, "T": T, "eta": 0.05, "lam": LAM}


PRESETS = [
    Preset("real-digits-01", "Handwritten digits 0 vs 1 (offline stand-in for MNIST 0/1)",
           "scikit-learn's bundled 8×8 digits, classes 0 and 1; m = 50, Gaussian init, SGD with "
           "momentum 0.95. The neuron weights form two clusters (Fig. 3/17 at digits scale).",
           "App. E.4, Fig. 3/17", _settings("digits", "0,1", 250, 108, 400, 25)),
    Preset("real-digits-38", "Handwritten digits 3 vs 8",
           "A harder pair of the bundled digits; same network and training as real-digits-01.",
           "App. E.4 (bundled digits)", _settings("digits", "3,8", 250, 107, 400, 25)),
    Preset("real-mnist-01", "MNIST 0 vs 1 (Fig. 3/17; needs torchvision + download)",
           "MNIST digits 0 and 1, m = 50, SGD with momentum 0.95: two clusters.",
           "App. E.4, Fig. 3/17", _settings("mnist", "0,1", 12665, 2115, 600, 100)),
    Preset("real-cifar10-plane-car", "CIFAR-10 airplane vs automobile (Fig. 18; torchvision)",
           "CIFAR-10 classes 0 (airplane) and 1 (automobile), m = 50: two clusters.",
           "App. E.4, Fig. 18", _settings("cifar10", "0,1", 10000, 2000, 600, 100)),
    Preset("real-svhn-01", "SVHN 0 vs 1 (Fig. 19; torchvision)",
           "SVHN digits 0 and 1, m = 50: the paper sees four clusters.",
           "App. E.4, Fig. 19", _settings("svhn", "0,1", 10000, 2000, 600, 100)),
]

RECORD = WorldRecord(
    SCENARIO, "real data: two classes of digits, MNIST, CIFAR-10 or SVHN (App. E.4)",
    make_dataset, check=check, presets=tuple(PRESETS), dictionary=False,
    settings={"real": Spec(str, choices=tuple(DIMS), label="real dataset", default="digits",
                           help="real data (App. E.4): digits is bundled; the others need "
                                "torchvision"),
              "pair": Spec(str, label="class pair", default="0,1",
                           help="real data: the two classes, e.g. '0,1'",
                           text="two distinct class indices in 0..9, e.g. '0,1'")},
    input_dim=input_dim, download_setting=download_setting, pins=pins,
    # the images and their pair: no D, labeling or p_o; k and structure are read by the
    # paper's schedule (its step-1 formulas)
    common=("d", "k", "structure", "n", "n_test", "seed", TRAINING),
    reads_if={"k": SCHEDULE_K})
