"""The shi2022 procedure's pages beyond its runs: its Guide sections (the paper's theory in plain
words, with its formulas, for a first-time reader) and the figures of its appendix E that the
Reproduce page offers (each with the preset that regenerates it)."""

from __future__ import annotations

from ...method_table import METHOD_RECORDS
from ..views import Figure, GuideSection, TableGroup

# Figs. 1/5/7: the network against NTK and RF, with and without input structure
CURVE_METHODS = tuple(m.name for m in METHOD_RECORDS if m.base in ("network", "ntk", "rf"))
FIGURES = (
    Figure("Figure 1 / 5 — test accuracy per step, parity",
           "Network, NTK and RF, with and without input structure, on the parity labeling.",
           "The network reaches 100 % test accuracy; NTK and RF level off well below it (the "
           "paper: near 86 % and 76 %; this engine at seed 0: 75 % and 79 %, see the Table 1 "
           "card); without structure all three stay near 50 % on the test set.",
           "paper-parity", "compare", CURVE_METHODS),
    Figure("Figure 2 / 6 — MDS of the neuron weights, parity",
           "The first-layer weights w_i at initialisation, after one step and after two, "
           "mapped by cosine similarity, with the red star Σ_A M and the orange star −Σ_A M.",
           "A shapeless cloud at step 0; after step 1 a few neurons lean onto ±Σ_A M, by the "
           "sign of a_i, while most of the cloud is still away (the paper's One Step cos "
           "0.848); after step 2 they sit on the stars (cos ≈ 0.997).",
           "paper-parity", "explore"),
    Figure("Figure 7 / 8 — interval labeling: curves and MDS",
           "y = +1 iff the count of relevant patterns lies in [20, 30]; k = 30, m = 100, T = 200.",
           "Network is fastest; NTK is slower but catches up to 100 %; RF stays lower (≈ 73 %). "
           "The MDS shows the same two-step alignment as for parity.",
           "paper-interval", "compare", CURVE_METHODS),
)
GUIDE = (
    # the dictionary, the relevant set, the labels and the normalisation.
    GuideSection("The data: a dictionary of patterns", (
        ("text",
         "Think of every input as a mixture of a few *patterns* chosen from a fixed dictionary "
         "of D patterns, the columns of a matrix M (d rows, D columns, orthonormal, unknown to "
         "the learner). A hidden 0/1 vector says which patterns are present:"),
        ("latex",
         r"\tilde\phi \in \{0,1\}^D, \qquad \tilde x = M\tilde\phi = "
         r"\sum_{j=1}^{D} \tilde\phi_j M_j \in \mathbb{R}^d ."),
        ("text",
         "Only k of the patterns matter for the label: they form the *relevant set* A. The label "
         "depends only on how many relevant patterns are present, through a set P of counts:"),
        ("latex",
         r"y = \begin{cases} +1 & \text{if } \sum_{j\in A} \tilde\phi_j \in P \\ "
         r"-1 & \text{otherwise} \end{cases} \qquad "
         r"\text{(parity: } P = \{1, 3, 5, \dots\}\text{)}"),
        ("markdown",
         "The other D − k patterns are *background*: each appears with probability "
         "$p_o$, independently of everything else. The **input structure** is the assumption "
         "that each relevant pattern is positively correlated with the label, all by the same "
         "amount γ:"),
        ("latex",
         r"\gamma = \mathbb{E}[y\,\tilde\phi_j] - \mathbb{E}[y]\,\mathbb{E}[\tilde\phi_j] "
         r"> 0 \quad \text{for every } j \in A ."),
        ("text",
         "Before training, inputs are centred and divided by one number σ̃, the square root of "
         "the total variance, so that the pattern coefficients become centred too:"),
        ("latex",
         r"x = \frac{\tilde x - \mathbb{E}\tilde x}{\tilde\sigma}, \qquad "
         r"\tilde\sigma^2 = \mathbb{E}\,\|\tilde x - \mathbb{E}\tilde x\|^2, \qquad "
         r"\phi = \frac{\tilde\phi - \mathbb{E}\tilde\phi}{\tilde\sigma}, \quad "
         r"\langle M_j, x\rangle = \phi_j ."),
        ("info",
         "In the paper's parity experiment (d = 500, D = 100, k = 5, p_o = ½) the numbers are "
         "γ = ¼ and σ̃ = 5. The direction every good neuron should find is the sum of the "
         "relevant patterns, Σ_A M — the red star on the Explore map; −Σ_A M is the orange one."),
    )),
    # the two-layer network and its symmetric initialisation.
    GuideSection("The network and its starting point", (
        ("text",
         "A two-layer network with 2m hidden neurons and a truncated ReLU:"),
        ("latex",
         r"g(x) = \sum_{i=1}^{2m} a_i\,\sigma(\langle w_i, x\rangle + b_i), \qquad "
         r"\sigma(z) = \min(1, \max(z, 0)) ."),
        ("text",
         "It is trained on the hinge loss $\\max(0, 1 - y\\,g(x))$ with weight decay. The "
         "neurons start random but in mirrored pairs: neuron $m+i$ copies $w_i$ and $b_i$ of "
         "neuron $i$ and flips the sign of $a_i$, so the untrained network outputs exactly zero "
         "everywhere. The scales depend on the data: $\\sigma_w = 1/k$, $\\sigma_b = 1/k^2$ and "
         "$\\sigma_a = \\tilde\\sigma^2/(\\gamma k^2)$."),
        ("latex",
         r"w_i^{(0)} \sim \mathcal N(0, \sigma_w^2 I),\; b_i^{(0)} \sim "
         r"\mathcal N(0, \sigma_b^2),\; a_i^{(0)} \sim \mathcal N(0, \sigma_a^2); \quad "
         r"w_{m+i}^{(0)} = w_i^{(0)},\; b_{m+i}^{(0)} = b_i^{(0)},\; "
         r"a_{m+i}^{(0)} = -a_i^{(0)} \;\Rightarrow\; g^{(0)} \equiv 0 ."),
    )),
    # the first gradient step finds the direction Σ_A M.
    GuideSection("Step 1: features appear from a correlation", (
        ("text",
         "Because g starts at zero, every training point sits inside the hinge and the first "
         "gradient for a neuron is a plain average of label times input, filtered by whether "
         "the neuron is active:"),
        ("latex",
         r"\frac{\partial L}{\partial w_i} = -a_i\, \mathbb{E}\big[\, y\, "
         r"\sigma'(\langle w_i, x\rangle + b_i)\, x \,\big] = "
         r"-a_i \sum_{j=1}^{D} T_j\, M_j, \qquad "
         r"T_j = \mathbb{E}\big[\, y\, \phi_j\, \sigma'(\cdot) \,\big] ."),
        ("text",
         "The activation σ′ depends on all D patterns at once, so any single pattern barely "
         "changes it. It is then almost independent of each φ_j, and the correlation term "
         "takes over: a relevant pattern contributes about γ/σ̃ times the neuron's activation "
         "rate β, a background pattern about zero, because it is unrelated to y."),
        ("latex",
         r"T_j \approx \beta\,\frac{\gamma}{\tilde\sigma} \;\;(j \in A), \qquad "
         r"T_j \approx 0 \;\;(j \notin A) ."),
        ("text",
         "In the theory (Lemma 23) step 1 uses a weight decay that exactly cancels the old "
         "weights ($\\lambda_w = 1/(2\\eta)$), so after the step each neuron *is* its gradient:"),
        ("latex",
         r"w_i^{(1)} = \eta^{(1)} a_i^{(0)} \sum_{j} T_j M_j \;\approx\; "
         r"\eta^{(1)} a_i^{(0)}\, \beta \frac{\gamma}{\tilde\sigma} \sum_{j\in A} M_j ."),
        ("text",
         "The paper's experiments kept part of the random start (their *One Step* cosine is 0.848, "
         "not 1), and so does the dashboard's default: "
         "$w_i^{(1)} = \\eta^{(1)}(\\nu^{(1)} w_i^{(0)} - \\nabla_{w_i} L)$ with one constant "
         "$\\nu^{(1)}$ calibrated on that number (README, 'The paper schedule'). The sign of $a_i$ "
         "decides the star: neurons with $a_i > 0$ lean towards $+\\sum_A M$, the others towards "
         "$-\\sum_A M$; on the map a few neurons reach a star while most of the cloud is still "
         "away (the Explore page says how many sit within cos 0.9 of a star). The weights are "
         "tiny after this step, and $D - k$ background errors, each tiny, add up: a classifier on "
         "these features (the *One Step* method) is still near chance on parity."),
    )),
    # the second step cleans the features; then a convex stage.
    GuideSection("Step 2: the features get cleaner", (
        ("text",
         "After step 1 the weights are tiny, so $\\langle w_i, x\\rangle$ hardly varies with the "
         "input: whether a neuron is active is now decided by its bias and a little injected "
         "noise $\\xi$, not by the background patterns. The background error terms shrink, "
         "while the relevant terms keep their size:"),
        ("latex",
         r"\frac{\text{background part of } \nabla_{w_i} L}{\text{relevant part of } "
         r"\nabla_{w_i} L} \quad\text{drops sharply from step 1 to step 2.}"),
        ("text",
         "After step 2 the neurons point almost exactly at $\\pm\\sum_A M$ (max cosine 0.997 in "
         "the paper's Table 1, 0.999 here on paper-parity, with every neuron within cos 0.9 of a "
         "star) and a classifier on them (*Two Step*) reaches 100 %. The Explore page plots the "
         "relevant share of the gradient per step, ‖relevant‖ / (‖relevant‖ + ‖background‖): "
         "1 means the whole gradient lies along the relevant patterns, 0 all along the background. "
         "On paper-parity it is already 0.95 at step 1 and rises to 0.97 at step 2 (relevant / "
         "background 21 → 29). In the mini-batch steps after that it falls: with 1 000 samples "
         "instead of 50 000, sampling noise in the many background components dominates, one "
         "reason the paper takes steps 1–2 on the whole training set."),
        ("subheader",
         "The classifier stage (t > 2)"),
        ("text",
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
         "0.999 and the accuracy still reaches 100 %. The theory's bound on the best iterate:"),
        ("latex",
         r"\min_{t \le T} L(g^{(t)}) = O\!\left(\frac{k^8}{m^{2/3}} + "
         r"\frac{k^3 T}{m^2} + \frac{k^2 m^{2/3}}{T}\right), \qquad T = m^{4/3} ."),
        ("caption",
         "The constants are not known, so at the experiments' sizes this bound is "
         "qualitative: it says the error shrinks as the width $m$ grows."),
    )),
    # why NTK and random features fail.
    GuideSection("Why fixed features fail", (
        ("text",
         "A fixed-feature method chooses its features Ψ(x) before seeing any data and only "
         "learns a linear read-out on them: random features (the first layer frozen at "
         "initialisation) and the NTK (the network linearised at initialisation) are two "
         "examples."),
        ("latex",
         r"h(x) = \langle \Psi(x), v \rangle, \qquad \Psi: \mathbb{R}^d \to [-1, 1]^N, "
         r"\quad \|v\|_2 \le B ."),
        ("text",
         "The family of problems contains parities over many possible relevant sets A, and two "
         "different parities are uncorrelated. N fixed features can only be close to a few of "
         "these exponentially many target functions, so for some A every such model has a "
         "large loss unless N·B is exponential in k:"),
        ("latex",
         r"L(h) \;\ge\; p_o\left(1 - \frac{\sqrt{2NB}}{2^{k}}\right) ."),
        ("text",
         "The network escapes this because its features depend on the data: the gradient "
         "points at Σ_A M for whichever A generated the data. On the Compare page NTK and RF "
         "stay well below the network (the paper: 86 % and 76 % test against 100 %; here, seed 0 "
         "of paper-parity: 76 % and 79 % against 100 %)."),
    )),
    # removing the input structure.
    GuideSection("What happens without the input structure", (
        ("text",
         "Replace the structured inputs by uniform ones: every pattern, relevant or not, "
         "appears with probability ½ independently, and the labels follow the same rule "
         "(assumption A1′). For parity the correlation that step 1 relied on is now zero:"),
        ("latex",
         r"\mathbb{E}[y\,\tilde\phi_j] - \mathbb{E}[y]\,\mathbb{E}[\tilde\phi_j] = 0 "
         r"\quad \text{for every } j, \text{ so the gradient carries no hint of } A ."),
        ("text",
         "Learning a parity on uniform bits is a classic hard problem: any statistical-query "
         "algorithm needs a number of queries (or a precision) that grows with the number of "
         "possible relevant sets, C(D, k). In the paper's experiments the network still "
         "memorises the training set (100 % train) but tests at about 52 %, like NTK and RF "
         "without structure; here, where the first layer takes the theory's small SGD steps after "
         "step 2, it fits only 52 % of the training set in 600 steps and tests at 51 % "
         "(paper-parity, seed 0; 88 % train with Adam on both layers). The lesson: it is the "
         "structure of the inputs, not only the labeling function, that makes the features "
         "learnable. (At these sizes the hardness is not absolute: with k = 3, or with a "
         "decaying Adam step, the network can find a parity from uniform inputs too.)"),
    )),
)

# the Reproduce page's header over the presets with the paper's table numbers (Preset.paper)
TABLES = TableGroup("Tables 1–5", "Columns: Network · NTK · RF · One Step · Two Step · "
                                  "Network without input structure.")
