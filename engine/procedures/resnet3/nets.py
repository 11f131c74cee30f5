"""The five networks of AZL's Figure 2, from one shared initialisation (spec §3.1.2).

resnet3     out = out₁ + A σ(V out₁ + b₂), out₁ = A σ(Wx + b₁)  (U = VA; W, b₁, V, b₂ trained)
fc3         out = A σ(U σ(Wx + b₁) + b₂)                         (W, U trained; b₁, b₂ by fc_bias)
two_layer   out = A σ(Wx + b₁)                                    (W trained; b₁ by fc_bias)
ntk         out = A (1{W⁽⁰⁾x + b₁⁽⁰⁾ > 0} ⊙ (Wx + b₁))            (two_layer linearised in W, b₁)
last_layer  out = A σ(W⁽⁰⁾x + b₁⁽⁰⁾)                              (only A trained: the CK)
A is frozen in all but last_layer. Init: A, V, U, b₂ ~ N(0, 1/m); W, b₁ ~ N(0, 1/d) (the source
prints "N(1, 1/m)" for A and V; its Section 6 and "output at init Θ(1)" say N(0, 1/m)).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ...scenarios.azl.config import AZLConfig


@dataclass(frozen=True)
class Init:
    """The initial weights every method starts from."""

    W: torch.Tensor  # m×d
    b1: torch.Tensor  # m
    A: torch.Tensor  # k×m
    V: torch.Tensor  # m×k
    U: torch.Tensor  # m×m
    b2: torch.Tensor  # m


def init_weights(cfg: AZLConfig) -> Init:
    """Draw the shared initialisation from the seed's own generator."""
    gen = torch.Generator().manual_seed(cfg.seed * 7919 + 0xA21)
    m, d, k = cfg.m, cfg.d, cfg.k

    def normal(*shape, var):
        return torch.randn(*shape, generator=gen) * var**0.5

    return Init(W=normal(m, d, var=1 / d), b1=normal(m, var=1 / d), A=normal(k, m, var=1 / m),
                V=normal(m, k, var=1 / m), U=normal(m, m, var=1 / m), b2=normal(m, var=1 / m))


def _trainable(t: torch.Tensor) -> torch.Tensor:
    return t.clone().requires_grad_(True)


class Net:
    """A network: its trained tensors, forward(x, cache) and an optional per-input cache
    (features that do not change while it trains, computed once per data set)."""

    trained: list

    def __init__(self, init: Init):
        self.A = init.A.clone()
        self.W, self.b1 = init.W, init.b1

    def cache(self, x: torch.Tensor):
        """Per-input arrays that stay fixed during training (None: nothing to keep)."""
        return None

    def hidden(self, x: torch.Tensor) -> torch.Tensor:
        """σ(Wx + b₁)."""
        return torch.relu(x @ self.W.T + self.b1)

    def second_layer(self) -> torch.Tensor | None:
        """V (resnet3's second block), or None."""
        return None


class TwoLayer(Net):
    """out = A σ(Wx + b₁); W trained, b₁ too where train_bias (else fixed at its init)."""

    def __init__(self, init: Init, train_bias: bool = True):
        super().__init__(init)
        self.W = _trainable(init.W)
        self.b1 = _trainable(init.b1) if train_bias else init.b1
        self.trained = [self.W, self.b1] if train_bias else [self.W]

    def forward(self, x, cache=None):
        """The k outputs."""
        return self.hidden(x) @ self.A.T


class ResNet3(TwoLayer):
    """out = out₁ + A σ(V out₁ + b₂); W, b₁, V, b₂ trained."""

    def __init__(self, init: Init):
        super().__init__(init)
        self.V, self.b2 = _trainable(init.V), _trainable(init.b2)
        self.trained += [self.V, self.b2]

    def forward(self, x, cache=None):
        """The k outputs."""
        out1 = self.hidden(x) @ self.A.T
        return out1 + torch.relu(out1 @ self.V.T + self.b2) @ self.A.T

    def second_layer(self):
        """V."""
        return self.V


class FC3(TwoLayer):
    """out = A σ(U σ(Wx + b₁) + b₂); W, U trained, b₁, b₂ too where train_bias."""

    def __init__(self, init: Init, train_bias: bool = True):
        super().__init__(init, train_bias)
        self.U = _trainable(init.U)
        self.b2 = _trainable(init.b2) if train_bias else init.b2
        self.trained += [self.U, self.b2] if train_bias else [self.U]

    def forward(self, x, cache=None):
        """The k outputs."""
        return torch.relu(self.hidden(x) @ self.U.T + self.b2) @ self.A.T


class NTK(TwoLayer):
    """two_layer linearised in its hidden weights: the activation pattern stays W⁽⁰⁾'s."""

    def __init__(self, init: Init, train_bias: bool = True):
        super().__init__(init, train_bias)
        self.W0, self.b10 = init.W, init.b1

    def cache(self, x):
        """The initial activation pattern 1{W⁽⁰⁾x + b₁⁽⁰⁾ > 0}."""
        return (x @ self.W0.T + self.b10 > 0).float()

    def forward(self, x, cache=None):
        """The k outputs."""
        gate = self.cache(x) if cache is None else cache
        return (gate * (x @ self.W.T + self.b1)) @ self.A.T


class LastLayer(Net):
    """out = A σ(W⁽⁰⁾x + b₁⁽⁰⁾); only A trained (the conjugate kernel)."""

    def __init__(self, init: Init):
        super().__init__(init)
        self.A = _trainable(init.A)
        self.trained = [self.A]

    def cache(self, x):
        """The fixed features σ(W⁽⁰⁾x + b₁⁽⁰⁾)."""
        return self.hidden(x)

    def forward(self, x, cache=None):
        """The k outputs."""
        return (self.hidden(x) if cache is None else cache) @ self.A.T


NETS = {"resnet3": ResNet3, "fc3": FC3, "two_layer": TwoLayer, "ntk": NTK,
        "last_layer": LastLayer}
FC_NETS = ("fc3", "two_layer", "ntk")  # the fully connected nets and the 2-layer net's NTK


def make_net(method: str, init: Init, fc_bias: str = "fixed") -> Net:
    """The method's network from the shared init; fc_bias says whether a fully connected net
    trains its biases (engine.scenarios.azl.config.FC_BIASES)."""
    if method in FC_NETS:
        return NETS[method](init, train_bias=fc_bias == "trained")
    return NETS[method](init)
