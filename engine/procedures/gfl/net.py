"""The GFL network g(x) = Σ_{i∈[4m]} a_i σ(⟨w_i, x⟩ + b_i) with the symmetric init (3.9), its
loss and its step 1 (the reset). Biases use the engine's sign: b = −b_Diss (spec §0)."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ...scenarios.gfl.options import P90, P90_TARGET, SIGMA_W, GFLOptions


@dataclass
class Net:
    """Weights 4m×r, biases 4m (fixed), output weights 4m; blocks of m in (3.9)'s order."""

    w: torch.Tensor
    b: torch.Tensor
    a: torch.Tensor

    def clone(self) -> Net:
        """A deep copy."""
        return Net(self.w.clone(), self.b.clone(), self.a.clone())


def _draw(kind: str, shape: tuple, scale: float, gen: torch.Generator) -> torch.Tensor:
    """N(0, scale²) entries, or ±scale with equal probability."""
    if kind == "sign":
        return scale * (2.0 * torch.randint(0, 2, shape, generator=gen).float() - 1.0)
    return scale * torch.randn(shape, generator=gen)


def init_net(m: int, r: int, b_tilde: float, opts: GFLOptions, gen: torch.Generator,
             k: int = 1) -> Net:
    """(3.9): block 1 (a, w, b̃); block 2 = −block 1; blocks 3, 4 copy w and b of blocks 1, 2 with
    a negated, so g⁽⁰⁾ ≡ 0 (Lemma B.71). Bias "grid" draws block 1's b̃ per neuron from B.479's
    {−1 + 1/k, …, 1 − 1/k} in ±1-input units (÷√r on inputs scaled to E‖x‖² = 1)."""
    w1 = _draw(opts.w_init, (m, r), SIGMA_W, gen)
    a1 = _draw(opts.a_init, (m,), 1.0 / (4 * m) ** 0.5, gen)  # σ_a = 1/√(4m)
    b1 = torch.full((m,), -b_tilde)  # σ(⟨w, x⟩ − b̃) in the source's sign
    if opts.bias == "grid":
        levels = torch.arange(1 - k, k, dtype=torch.float32) / k
        b1 = -levels[torch.randint(0, len(levels), (m,), generator=gen)] / r**0.5
    w_half, b_half, a_half = torch.cat([w1, -w1]), torch.cat([b1, -b1]), torch.cat([a1, -a1])
    return Net(torch.cat([w_half, w_half]), torch.cat([b_half, b_half]),
               torch.cat([a_half, -a_half]))


def features(w: torch.Tensor, b: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """σ(⟨w_i, x⟩ + b_i) for every sample (rows) and neuron (columns)."""
    return torch.relu(torch.addmm(b, x, w.T))


def readout(feats: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
    """Σ_i a_i feats_i, summed as two halves: the twins of (3.9) then cancel exactly at step 0."""
    h = a.shape[0] // 2
    return feats[:, :h] @ a[:h] + feats[:, h:] @ a[h:]


def output(net: Net, x: torch.Tensor) -> torch.Tensor:
    """g(x) for every row of x."""
    return readout(features(net.w, net.b, x), net.a)


def loss_of(g: torch.Tensor, y: torch.Tensor, regression: bool) -> torch.Tensor:
    """Mean hinge loss max(0, 1 − y g) (binary) or mean squared error (regression)."""
    if regression:
        diff = g - y
        return (diff * diff).mean()
    return torch.clamp(1.0 - y * g, min=0.0).mean()


def gradients(net: Net, x: torch.Tensor, y: torch.Tensor,
              regression: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """(∂L/∂W, ∂L/∂a) of the mean loss on (x, y); b is fixed and gets none."""
    w = net.w.detach().requires_grad_(True)
    a = net.a.detach().requires_grad_(True)
    loss = loss_of(readout(features(w, net.b, x), a), y, regression)
    gw, ga = torch.autograd.grad(loss, (w, a))
    return gw, ga


def step_one(net: Net, x: torch.Tensor, y: torch.Tensor, prep, opts: GFLOptions,
             regression: bool) -> tuple[Net, float]:
    """The reset step on the full sample: λ⁽¹⁾ = 1/η⁽¹⁾, so θ⁽¹⁾ = −η⁽¹⁾∇L(θ⁽⁰⁾); η⁽¹⁾ only sets
    the scale of w⁽¹⁾ (calibrated by opts.eta1_rule), a⁽¹⁾ is rescaled to max |a⁽¹⁾| = 1.
    Returns the new network and the η⁽¹⁾ used for W."""
    gw, ga = gradients(net, x, y, regression)
    eta_w = calibrate(-gw, x, prep, opts.eta1_rule)
    w1 = -eta_w * gw
    a1 = net.a.clone()
    if opts.step1_moves_a:
        top = float(ga.abs().max())
        a1 = -ga / top if top > 0 else torch.zeros_like(ga)
    return Net(w1, net.b.clone(), a1), eta_w


def calibrate(direction: torch.Tensor, x: torch.Tensor, prep, rule: str) -> float:
    """η⁽¹⁾ for w⁽¹⁾ = η⁽¹⁾·direction: p90 puts the 90th percentile of max_j |⟨w⁽¹⁾, D_j⟩| at
    3·b̃; rms makes the root mean square of ⟨w⁽¹⁾, x⟩ over the sample 1 (Algorithm 7); alg6 makes
    the mean |w⁽¹⁾_ij| over the relevant coordinates 1/k (B.54's η⁽¹⁾ = 1/(k ξ_{k−1}))."""
    if rule == "rms":
        level = float((x @ direction.T).pow(2).mean().sqrt())
        return 1.0 / level if level > 0 else 0.0
    if rule == "alg6":
        level = float((direction @ prep.relevant).abs().mean()) * prep.relevant.shape[1]
        return 1.0 / level if level > 0 else 0.0
    reach = (direction @ prep.directions.T).abs().max(dim=1).values
    level = float(torch.quantile(reach, P90))
    return P90_TARGET * prep.b_tilde / level if level > 0 else 0.0
