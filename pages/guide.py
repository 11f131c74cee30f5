"""Guide page: the paper's theory in plain words, with its formulas, for a first-time reader."""

from __future__ import annotations

import streamlit as st

from engine.procedures import glossary as procedure_glossary
from ui import gfl_guide, limits_guide
from ui.router import ensure_router

ensure_router()

st.title("Guide: how a network learns features from its inputs")
st.write(
    "This page explains, without proofs, what Shi, Wei & Liang (ICLR 2022) show and what the "
    "other pages let you watch. The question: why does a trained network beat methods whose "
    "features are fixed in advance, and what about the *data* makes that possible?")
c1, c2, c3 = st.columns(3)
c1.page_link("pages/explore.py", label="Explore: watch one network learn",
             icon=":material/scatter_plot:")
c2.page_link("pages/compare.py", label="Compare: learned vs fixed features",
             icon=":material/compare_arrows:")
c3.page_link("pages/reproduce.py", label="Reproduce the paper's figures",
             icon=":material/science:")


def data_model() -> None:
    """Section 1: the dictionary, the relevant set, the labels and the normalisation."""
    st.header("1 · The data: a dictionary of patterns")
    st.write(
        "Think of every input as a mixture of a few *patterns* chosen from a fixed dictionary "
        "of D patterns, the columns of a matrix M (d rows, D columns, orthonormal, unknown to "
        "the learner). A hidden 0/1 vector says which patterns are present:")
    st.latex(r"\tilde\phi \in \{0,1\}^D, \qquad \tilde x = M\tilde\phi = "
             r"\sum_{j=1}^{D} \tilde\phi_j M_j \in \mathbb{R}^d .")
    st.write(
        "Only k of the patterns matter for the label: they form the *relevant set* A. The label "
        "depends only on how many relevant patterns are present, through a set P of counts:")
    st.latex(r"y = \begin{cases} +1 & \text{if } \sum_{j\in A} \tilde\phi_j \in P \\ "
             r"-1 & \text{otherwise} \end{cases} \qquad "
             r"\text{(parity: } P = \{1, 3, 5, \dots\}\text{)}")
    st.markdown(
        "The other D − k patterns are *background*: each appears with probability "
        "$p_o$, independently of everything else. The **input structure** is the assumption "
        "that each relevant pattern is positively correlated with the label, all by the same "
        "amount γ:")
    st.latex(r"\gamma = \mathbb{E}[y\,\tilde\phi_j] - \mathbb{E}[y]\,\mathbb{E}[\tilde\phi_j] "
             r"> 0 \quad \text{for every } j \in A .")
    st.write(
        "Before training, inputs are centred and divided by one number σ̃, the square root of "
        "the total variance, so that the pattern coefficients become centred too:")
    st.latex(r"x = \frac{\tilde x - \mathbb{E}\tilde x}{\tilde\sigma}, \qquad "
             r"\tilde\sigma^2 = \mathbb{E}\,\|\tilde x - \mathbb{E}\tilde x\|^2, \qquad "
             r"\phi = \frac{\tilde\phi - \mathbb{E}\tilde\phi}{\tilde\sigma}, \quad "
             r"\langle M_j, x\rangle = \phi_j .")
    st.info(
        "In the paper's parity experiment (d = 500, D = 100, k = 5, p_o = ½) the numbers are "
        "γ = ¼ and σ̃ = 5. The direction every good neuron should find is the sum of the "
        "relevant patterns, Σ_A M — the red star on the Explore map; −Σ_A M is the orange one.",
        icon=":material/lightbulb:")


def network() -> None:
    """Section 2: the two-layer network and its symmetric initialisation."""
    st.header("2 · The network and its starting point")
    st.write("A two-layer network with 2m hidden neurons and a truncated ReLU:")
    st.latex(r"g(x) = \sum_{i=1}^{2m} a_i\,\sigma(\langle w_i, x\rangle + b_i), \qquad "
             r"\sigma(z) = \min(1, \max(z, 0)) .")
    st.write(
        "It is trained on the hinge loss $\\max(0, 1 - y\\,g(x))$ with weight decay. The "
        "neurons start random but in mirrored pairs: neuron $m+i$ copies $w_i$ and $b_i$ of "
        "neuron $i$ and flips the sign of $a_i$, so the untrained network outputs exactly zero "
        "everywhere. The scales depend on the data: $\\sigma_w = 1/k$, $\\sigma_b = 1/k^2$ and "
        "$\\sigma_a = \\tilde\\sigma^2/(\\gamma k^2)$.")
    st.latex(r"w_i^{(0)} \sim \mathcal N(0, \sigma_w^2 I),\; b_i^{(0)} \sim "
             r"\mathcal N(0, \sigma_b^2),\; a_i^{(0)} \sim \mathcal N(0, \sigma_a^2); \quad "
             r"w_{m+i}^{(0)} = w_i^{(0)},\; b_{m+i}^{(0)} = b_i^{(0)},\; "
             r"a_{m+i}^{(0)} = -a_i^{(0)} \;\Rightarrow\; g^{(0)} \equiv 0 .")


def step_one() -> None:
    """Section 3: the first gradient step finds the direction Σ_A M."""
    st.header("3 · Step 1: features appear from a correlation")
    st.write(
        "Because g starts at zero, every training point sits inside the hinge and the first "
        "gradient for a neuron is a plain average of label times input, filtered by whether "
        "the neuron is active:")
    st.latex(r"\frac{\partial L}{\partial w_i} = -a_i\, \mathbb{E}\big[\, y\, "
             r"\sigma'(\langle w_i, x\rangle + b_i)\, x \,\big] = "
             r"-a_i \sum_{j=1}^{D} T_j\, M_j, \qquad "
             r"T_j = \mathbb{E}\big[\, y\, \phi_j\, \sigma'(\cdot) \,\big] .")
    st.write(
        "The activation σ′ depends on all D patterns at once, so any single pattern barely "
        "changes it. It is then almost independent of each φ_j, and the correlation term "
        "takes over: a relevant pattern contributes about γ/σ̃ times the neuron's activation "
        "rate β, a background pattern about zero, because it is unrelated to y.")
    st.latex(r"T_j \approx \beta\,\frac{\gamma}{\tilde\sigma} \;\;(j \in A), \qquad "
             r"T_j \approx 0 \;\;(j \notin A) .")
    st.write(
        "In the theory (Lemma 23) step 1 uses a weight decay that exactly cancels the old "
        "weights ($\\lambda_w = 1/(2\\eta)$), so after the step each neuron *is* its gradient:")
    st.latex(r"w_i^{(1)} = \eta^{(1)} a_i^{(0)} \sum_{j} T_j M_j \;\approx\; "
             r"\eta^{(1)} a_i^{(0)}\, \beta \frac{\gamma}{\tilde\sigma} \sum_{j\in A} M_j .")
    st.write(
        "The paper's experiments kept part of the random start (their *One Step* cosine is 0.848, "
        "not 1), and so does the dashboard's default: "
        "$w_i^{(1)} = \\eta^{(1)}(\\nu^{(1)} w_i^{(0)} - \\nabla_{w_i} L)$ with one constant "
        "$\\nu^{(1)}$ calibrated on that number (README, 'The paper schedule'). The sign of $a_i$ "
        "decides the star: neurons with $a_i > 0$ lean towards $+\\sum_A M$, the others towards "
        "$-\\sum_A M$; on the map a few neurons reach a star while most of the cloud is still "
        "away (the Explore page says how many sit within cos 0.9 of a star). The weights are "
        "tiny after this step, and $D - k$ background errors, each tiny, add up: a classifier on "
        "these features (the *One Step* method) is still near chance on parity.")


def step_two() -> None:
    """Section 4: the second step cleans the features; then a convex stage."""
    st.header("4 · Step 2: the features get cleaner")
    st.write(
        "After step 1 the weights are tiny, so $\\langle w_i, x\\rangle$ hardly varies with the "
        "input: whether a neuron is active is now decided by its bias and a little injected "
        "noise $\\xi$, not by the background patterns. The background error terms shrink, "
        "while the relevant terms keep their size:")
    st.latex(r"\frac{\text{background part of } \nabla_{w_i} L}{\text{relevant part of } "
             r"\nabla_{w_i} L} \quad\text{drops sharply from step 1 to step 2.}")
    st.write(
        "After step 2 the neurons point almost exactly at $\\pm\\sum_A M$ (max cosine 0.997 in "
        "the paper's Table 1, 0.999 here on paper-parity, with every neuron within cos 0.9 of a "
        "star) and a classifier on them (*Two Step*) reaches 100 %. The Explore page plots the "
        "relevant share of the gradient per step, ‖relevant‖ / (‖relevant‖ + ‖background‖): "
        "1 means the whole gradient lies along the relevant patterns, 0 all along the background. "
        "On paper-parity it is already 0.95 at step 1 and rises to 0.97 at step 2 (relevant / "
        "background 21 → 29). In the mini-batch steps after that it falls: with 1 000 samples "
        "instead of 50 000, sampling noise in the many background components dominates, one "
        "reason the paper takes steps 1–2 on the whole training set.")
    st.subheader("The classifier stage (t > 2)")
    st.write(
        "In the theory the first layer barely moves from then on (Lemma 24 bounds how far each "
        "$w_i$ can go from $w_i^{(2)}$), and training is essentially a convex problem for the "
        "output weights $a$ on good features; it uses small plain SGD steps and bounds the loss "
        "of the best iterate. The dashboard's default does the same for the first layer: plain "
        "SGD with step $\\eta_w = 0.5$, whose steps shrink with the gradient once the training "
        "set is fit. The output layer, like the read-out of every other method, uses Adam and "
        "reports the running average of the iterates (README), so the curves settle instead of "
        "jumping from step to step. On paper-parity all 600 neurons are still within cos 0.9 of "
        "a star at step 50 and at step 600, and the test accuracy reaches 99 % at step 62 and "
        "100 % at the end (Explore counts, at every step, the neurons that kept their star since "
        "step 2). With Adam on both layers (the setting `optimizer_w=same`, the default until "
        "2026-11-25) each neuron moves at a fixed rate whatever its gradient: the share on a "
        "star falls to 38 % by step 50 and 39 % at step 600, while the best neuron stays at cos "
        "0.999 and the accuracy still reaches 100 %. The theory's bound on the best iterate:")
    st.latex(r"\min_{t \le T} L(g^{(t)}) = O\!\left(\frac{k^8}{m^{2/3}} + "
             r"\frac{k^3 T}{m^2} + \frac{k^2 m^{2/3}}{T}\right), \qquad T = m^{4/3} .")
    st.caption("The constants are not known, so at the experiments' sizes this bound is "
               "qualitative: it says the error shrinks as the width $m$ grows.")


def fixed_features() -> None:
    """Section 5: why NTK and random features fail."""
    st.header("5 · Why fixed features fail")
    st.write(
        "A fixed-feature method chooses its features Ψ(x) before seeing any data and only "
        "learns a linear read-out on them: random features (the first layer frozen at "
        "initialisation) and the NTK (the network linearised at initialisation) are two "
        "examples.")
    st.latex(r"h(x) = \langle \Psi(x), v \rangle, \qquad \Psi: \mathbb{R}^d \to [-1, 1]^N, "
             r"\quad \|v\|_2 \le B .")
    st.write(
        "The family of problems contains parities over many possible relevant sets A, and two "
        "different parities are uncorrelated. N fixed features can only be close to a few of "
        "these exponentially many target functions, so for some A every such model has a "
        "large loss unless N·B is exponential in k:")
    st.latex(r"L(h) \;\ge\; p_o\left(1 - \frac{\sqrt{2NB}}{2^{k}}\right) .")
    st.write(
        "The network escapes this because its features depend on the data: the gradient "
        "points at Σ_A M for whichever A generated the data. On the Compare page NTK and RF "
        "stay well below the network (the paper: 86 % and 76 % test against 100 %; here, seed 0 "
        "of paper-parity: 76 % and 79 % against 100 %).")


def no_structure() -> None:
    """Section 6: removing the input structure."""
    st.header("6 · What happens without the input structure")
    st.write(
        "Replace the structured inputs by uniform ones: every pattern, relevant or not, "
        "appears with probability ½ independently, and the labels follow the same rule "
        "(assumption A1′). For parity the correlation that step 1 relied on is now zero:")
    st.latex(r"\mathbb{E}[y\,\tilde\phi_j] - \mathbb{E}[y]\,\mathbb{E}[\tilde\phi_j] = 0 "
             r"\quad \text{for every } j, \text{ so the gradient carries no hint of } A .")
    st.write(
        "Learning a parity on uniform bits is a classic hard problem: any statistical-query "
        "algorithm needs a number of queries (or a precision) that grows with the number of "
        "possible relevant sets, C(D, k). In the paper's experiments the network still "
        "memorises the training set (100 % train) but tests at about 52 %, like NTK and RF "
        "without structure; here, where the first layer takes the theory's small SGD steps after "
        "step 2, it fits only 52 % of the training set in 600 steps and tests at 51 % "
        "(paper-parity, seed 0; 88 % train with Adam on both layers). The lesson: it is the "
        "structure of the inputs, not only the labeling function, that makes the features "
        "learnable. (At these sizes the hardness is not absolute: with k = 3, or with a "
        "decaying Adam step, the network can find a parity from uniform inputs too.)")


def depth() -> None:
    """Section 7: hierarchical learning with depth (Allen-Zhu & Li; docs/azl.md)."""
    st.header("7 · Depth: learning F first, then G(F)")
    st.write(
        "Allen-Zhu & Li (2019) ask what a second layer adds. Their target has a simple part "
        "and a hierarchical part built on it: x is a random ±1 vector of 30 bits, F pairs "
        "bits (F_r = x₂ᵣ₋₁x₂ᵣ, eight outputs) and G multiplies four of F's outputs:")
    st.latex(r"y = F(x) + \alpha\,G(F(x)), \quad G_r = (-1)^r F_1F_2F_3F_4, \quad "
             r"\alpha = 0.3, \quad k\alpha^2 = 0.72 .")
    st.write(
        "A network that learns F perfectly and G not at all misses by α on every output, a "
        "test error of kα² = 0.72: below that line G is being learned. A 3-layer ResNet "
        "learns F first (its first layer finds the pairs), then G, because its second block "
        "reads F from the first block's output: G is a simple function of F. The authors' "
        "later work adds *backward feature correction*: once a higher block fits its part, "
        "its error signal also corrects the lower layer's features (the dashboard does not "
        "measure this yet). A 2-layer network learns F but "
        "would have to fit G as a degree-8 parity of x directly, which its samples do not "
        "allow; kernels (the NTK, the last layer on random features) do not even learn F.")
    st.write(
        "Here (preset azl-resnet, N = 3000, seeds 0–2): the ResNet's test error is 0.21 and it "
        "learns 57 % of αG; the 2-layer net stays at 0.82 (G: 3 %), the NTK at 3.50 and the "
        "last layer at 5.22. A 3-layer fully connected net, trained as the source trains it "
        "(its weight matrices only), learns a little of G and stays near the line on average "
        "(0.75); at the source's N = 1000 no method gets below the line here. The numbers, "
        "their command and what the source leaves open: docs/azl.md.")


def glossary() -> None:
    """Symbols used across the dashboard: the data's, then every procedure's own probes and
    symbols from its record (engine/procedures: what each view of it shows)."""
    st.header("Symbols")
    st.markdown(
        "| symbol | meaning |\n|---|---|\n"
        "| d, D | input dimension, number of dictionary patterns |\n"
        "| k, A | number of relevant patterns, the relevant set |\n"
        "| p_o | probability of each background pattern |\n"
        "| γ, σ̃ | label correlation of a relevant pattern, data scale |\n"
        "| η, λ, σ_ξ | step size, weight decay, injected noise, per stage |")
    st.markdown("**Per training procedure** (each view shows its procedure's):\n\n"
                "| symbol | meaning | procedure |\n|---|---|---|\n"
                + "\n".join(f"| {_cell(term)} | {_cell(meaning)} | {who} |"
                             for term, meaning, who in procedure_glossary()))


def keyboard() -> None:
    """Keyboard use: the player's keys (ui/player/playback.js) and moving between controls."""
    st.header("Keyboard")
    st.markdown(
        "Every control is reached with **Tab** (back with **Shift+Tab**) and shows a blue "
        "focus ring; the first Tab offers *Skip to main content*, past the sidebar. Wide "
        "commands and formulas take the focus too, so the arrow keys scroll them. On Explore "
        "and in an offline HTML player the player's keys work wherever the focus is, except "
        "in a text field (outside presentation mode a slider or a list keeps its own arrows):\n\n"
        "| key | does |\n|---|---|\n"
        "| space | play / pause |\n"
        "| → | one step forward |\n"
        "| ← | one step back |\n"
        "| R | back to step 0 |\n"
        "| Home | back to step 0 |\n"
        "| End | the last step computed |\n\n"
        "With *reduce motion* set in the operating system, the pages do not animate or "
        "scroll smoothly.")


def _cell(text: str) -> str:
    """A table cell: its own bars (|cos|) escaped, so they do not split the row."""
    return text.replace("|", "\\|")


for section in (data_model, network, step_one, step_two, fixed_features, no_structure, depth,
                gfl_guide.section, limits_guide.section, keyboard, glossary):
    section()
