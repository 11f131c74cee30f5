"""What a world tells the GFL procedure (spec §2.2, §3.5–3.7): its init, bias and step-1 rules.

One rule for every world unless the source itself says otherwise: inputs scaled to E‖x‖² = 1,
σ_w = 1, σ_a = 1/√(4m) (the output starts O(1)), b̃ = σ_w, η⁽¹⁾ set so that the 90th percentile
over neurons of max_j |⟨w_i⁽¹⁾, D_j⟩| is 3·b̃, a⁽¹⁾ rescaled to max |a⁽¹⁾| = 1. The exceptions are
the source's own: uniform parity's Algorithm 6 (±1 init, B.479's bias grid, η⁽¹⁾ = 1/(k ξ_{k−1})
with ξ estimated), linear data's large b̃ = d·B_x1·σ_w (B.5.1), and Algorithm 7 for the
multi-index world (b = 0 at step 1, only W moves, RMS ⟨w⁽¹⁾, x⟩ = 1, b re-drawn N(0, 1)).
"""

from __future__ import annotations

from dataclasses import dataclass

INITS = ("gaussian", "sign")  # N(0, 1) entries, or uniform ±1 (B.479)
# b̃ = σ_w; d·max‖x‖·σ_w (B.5.1); 0 (Alg. 7); half a ±1 bit, σ_w/(2√d) (B.493: b̃ < 1 in the
# units of ±1 inputs, where ⟨w, x⟩ is odd and 1{⟨w, x⟩ > b̃} is the majority of w∘x)
# grid: B.479's b ~ Unif{−1 + 1/k, …, 1 − 1/k} in the units of ±1 inputs (k = dim U)
BIASES = ("unit", "large", "zero", "bit", "grid")
ETA1_RULES = ("p90", "rms", "alg6")  # alg6: η⁽¹⁾ = 1/(k·mean_{i, j∈A} |G_ij|) (B.54, ξ estimated)
ETA1_RULE_TEXT = {  # what each rule calibrates, for the step-size table (procedures.gfl.net)
    "p90": "η⁽¹⁾ puts the 90th percentile over neurons of max_j |⟨w_i⁽¹⁾, D_j⟩| at 3·b̃",
    "rms": "η⁽¹⁾ makes the RMS of ⟨w⁽¹⁾, x⟩ over the sample 1 (Algorithm 7)",
    "alg6": "η⁽¹⁾ = 1/(k·mean |∇W| over the relevant coordinates) (B.54)",
}


@dataclass(frozen=True)
class GFLOptions:
    """A world's choices within Algorithm 1 (defaults: spec §2.2's single rule)."""

    w_init: str = "gaussian"
    a_init: str = "gaussian"
    bias: str = "unit"
    eta1_rule: str = "p90"  # p90: 90th pct of max_j |⟨w⁽¹⁾, D_j⟩| = 3 b̃; rms: RMS ⟨w⁽¹⁾, x⟩ = 1
    step1_moves_a: bool = True  # Algorithm 7 moves only W at step 1
    rebias: bool = False  # Algorithm 7 re-draws b_i ~ N(0, 1) after step 1
    centre_target: bool = False  # Algorithm 7 fits y − ρ − ⟨β, x⟩ (ρ = E y, β = E y x)

    def __post_init__(self):
        for name, value, allowed in (("w_init", self.w_init, INITS), ("a_init", self.a_init, INITS),
                                     ("bias", self.bias, BIASES),
                                     ("eta1_rule", self.eta1_rule, ETA1_RULES)):
            if value not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, not {value!r}")


KEEP_WEIGHTS = 60  # first layers kept for the map's replay, as engine.run.Run
P90_TARGET = 3.0  # the 90th-percentile rule: max_j |⟨w⁽¹⁾, D_j⟩| reaches 3·b̃ (proto, spec §2.2)
P90 = 0.9
SIGMA_W = 1.0
DEFAULT_ETA = 0.01  # the classifier stage's Adam step when the setting η is auto
DEFAULT_SGD_ETA = 1.0  # c of the plain step c/L (optimizer=sgd or optimizer_w=sgd)
