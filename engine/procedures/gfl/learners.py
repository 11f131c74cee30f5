"""The four methods on one GFL world, from the same init and data (spec §2.2's baselines):
network = Algorithm 1 (step 1, then W and a trained); one_step = Algorithm 4 (step 1, then only a);
rf = W⁽⁰⁾ kept, a trained (its step 1 is the reset of a alone); ntk = the model linearised at
θ⁽⁰⁾ = (W⁽⁰⁾, a⁽⁰⁾), its increments trained. b never changes (Algorithm 7 re-draws it once,
after step 1, for every method but the NTK). Steps t ≥ 2 are the classifier stage on (mini-)
batches of the fixed training set, no weight decay, one rule per block for every method:
Adam with step η (the default, docs/gfl.md says why), or the source's plain gradient steps of
size c/L (optimizer=sgd; optimizer_w for W alone), L by power iteration once per run."""

from __future__ import annotations

import torch

from ...scenarios.gfl.options import GFLOptions
from ...trainer import Optimizer
from .net import Net, features, gradients, loss_of, readout, step_one
from .prepare import Prepared

METHODS = ("network", "ntk", "rf", "one_step")
POWER_STEPS = 100  # power iterations for L (λ_max of a 1024×1024 Gram: ample)


def rebias(net: Net, seed: int) -> Net:
    """Algorithm 7's b_i ~ N(0, 1), drawn once from the seed (the same for every method)."""
    gen = torch.Generator().manual_seed(seed * 7919 + 0x7B)
    return Net(net.w, torch.randn(net.b.shape, generator=gen), net.a)


class Learner:
    """One method's parameters and its steps."""

    def __init__(self, method: str, net0: Net, prep: Prepared, opts: GFLOptions, stage: dict,
                 batch: int, seed: int):
        if method not in METHODS:
            raise ValueError(f"the gfl procedure runs {', '.join(METHODS)}, not {method!r}")
        self.method, self.prep, self.opts, self.batch = method, prep, opts, batch
        self.stage = stage  # per block "a", "w": ("adam" | "sgd", η or c)
        self.net0, self.net = net0, net0.clone()
        self.eta1: float | None = None
        self.linear = method == "ntk"
        if self.linear:  # the increments (ΔW, Δa) of the linearised model
            self.dw, self.da = torch.zeros_like(net0.w), torch.zeros_like(net0.a)
        self.batches = torch.Generator().manual_seed(seed * 7919 + 0x6F1)  # same order for all
        self.seed, self.optimizer, self.stage_eta = seed, None, None

    @property
    def trains_w(self) -> bool:
        """Whether the classifier stage moves W (the network and the NTK's increment)."""
        return self.method in ("network", "ntk")

    def weights(self) -> torch.Tensor:
        """The first layer the map and the probes read (W⁽⁰⁾ + ΔW for the NTK)."""
        return self.net0.w + self.dw if self.linear else self.net.w

    def output(self, x: torch.Tensor) -> torch.Tensor:
        """g(x), the fitted target's scale (the offset of Algorithm 7 not added)."""
        if not self.linear:
            return readout(features(self.net.w, self.net.b, x), self.net.a)
        n0 = self.net0
        pre = torch.addmm(n0.b, x, n0.w.T)
        gate = (pre > 0).to(x.dtype)
        return readout(torch.relu(pre), self.da) + readout(gate * (x @ self.dw.T), n0.a)

    def predict(self, x: torch.Tensor) -> torch.Tensor:
        """The prediction: g(x), plus ρ + ⟨β, x⟩ when the target was centred."""
        g = self.output(x)
        if self.prep.offset is not None:
            rho, beta = self.prep.offset
            g = g + rho + x @ beta
        return g

    def step(self, t: int) -> float:
        """Take step t (1 = the reset on the full sample) and return its training loss."""
        if t == 1 and not self.linear:
            return self._step_one()
        return self._classifier_step()

    def _step_one(self) -> float:
        p, opts = self.prep, self.opts
        loss = float(loss_of(self.output(p.x_train), p.fit_train, p.regression))
        if self.method == "rf":  # W⁽⁰⁾ kept: only a takes the reset (a⁽¹⁾ scaled to max 1)
            if opts.step1_moves_a:
                _, ga = gradients(self.net, p.x_train, p.fit_train, p.regression)
                top = float(ga.abs().max())
                self.net.a = -ga / top if top > 0 else torch.zeros_like(ga)
        else:
            self.net, self.eta1 = step_one(self.net, p.x_train, p.fit_train, p, opts,
                                           p.regression)
        if opts.rebias:
            self.net = rebias(self.net, self.seed)
        return loss

    def _names(self) -> tuple[str, ...]:
        """The trained tensors: the NTK's increments, else a (and W for the network)."""
        if self.linear:
            return ("dw", "da")
        return ("w", "a") if self.trains_w else ("a",)

    def _get(self, name: str) -> torch.Tensor:
        return getattr(self, name) if self.linear else getattr(self.net, name)

    def _set(self, name: str, value: torch.Tensor) -> None:
        setattr(self if self.linear else self.net, name, value)

    def block_gram(self, x: torch.Tensor, block: str) -> torch.Tensor:
        """K = ΨΨᵀ of one block's tangent features ψ(x) = ∂g/∂θ on the rows of x: σ(⟨w_i, x⟩ + b_i)
        for a, a_i 1{⟨w_i, x⟩ + b_i > 0} x for W (the NTK's at θ⁽⁰⁾)."""
        n = self.net0 if self.linear else self.net
        pre = torch.addmm(n.b, x, n.w.T)
        if block == "a":
            feats = torch.relu(pre)
            return feats @ feats.T
        gate = (pre > 0).to(x.dtype) * n.a.abs()
        return (gate @ gate.T) * (x @ x.T)

    def smoothness(self, blocks: tuple[str, ...]) -> float:
        """L = λ_max(E ψψᵀ) of the tangent features of the given blocks together, on up to 1024
        training points (×2 for the squared loss), by power iteration from a seeded start: the
        plain gradient step of those blocks is c/L (Algorithm 4's 1/L; one η for a and W, as in
        Algorithm 1)."""
        x = self.prep.x_train[self.prep.probe_train]
        gram = sum(self.block_gram(x, block) for block in blocks).double() / len(x)
        gen = torch.Generator().manual_seed(self.seed * 7919 + 0x5A)
        v = torch.rand(len(x), generator=gen, dtype=torch.float64) + 0.5  # positive: not ⟂ top
        top = 0.0
        for _ in range(POWER_STEPS):
            u = gram @ v
            top = float(u.norm() / v.norm())
            if top == 0.0:
                break
            v = u / u.norm()
        return top * (2.0 if self.prep.regression else 1.0)

    def _block_steps(self) -> dict[str, float]:
        """Each trained block's step: η for Adam; c/L for plain steps, L over every block that
        takes plain steps."""
        trained = sorted({name[-1] for name in self._names()})  # w, dw → w; a, da → a
        plain = tuple(b for b in trained if self.stage[b][0] == "sgd")
        top = self.smoothness(plain) if plain else 0.0
        return {b: (self.stage[b][1] / top if top > 0 else 0.0) if b in plain
                else self.stage[b][1] for b in trained}

    def _classifier_step(self) -> float:
        """One (mini-)batch step: per block, Adam's direction (the engine's, per neuron for W: the
        same in any basis of x) times η, or the plain gradient times c/L."""
        p = self.prep
        if self.optimizer is None:
            self.optimizer = Optimizer(dim=p.x_train.shape[1])
            self.stage_eta = self._block_steps()
        if self.batch >= len(p.fit_train):
            idx = slice(None)
        else:
            idx = torch.randint(len(p.fit_train), (self.batch,), generator=self.batches)
        names = self._names()
        leaves = [self._get(n).detach().requires_grad_(True) for n in names]
        for name, leaf in zip(names, leaves, strict=True):
            self._set(name, leaf)
        loss = loss_of(self.output(p.x_train[idx]), p.fit_train[idx], p.regression)
        grads = torch.autograd.grad(loss, leaves)
        with torch.no_grad():
            for name, leaf, grad in zip(names, leaves, grads, strict=True):
                block = name[-1]  # w, dw → w; a, da → a
                rule = self.stage[block][0]
                direction = self.optimizer.adam(name, grad) if rule == "adam" else grad
                self._set(name, leaf.detach() - self.stage_eta[block] * direction)
        return float(loss.detach())
