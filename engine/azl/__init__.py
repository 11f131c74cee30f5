"""Allen-Zhu & Li (2019): a 3-layer ResNet learns F first, then the hierarchical part G(F),
where 2-layer networks, 3-layer fully connected networks and kernels do not (spec §3.1).

config   settings, their ranges and the readings of the source (variants)
data     x ∈ {±1}³⁰, y = βF + αG(F); exact population moments; the 4k pair stars
nets     the five networks from one shared initialisation
probes   test error, c_F, c_G, pair purity, relevant share, V's support share
run      one method's SGD run (the MethodRun protocol)
explore  the ResNet's run with the four other methods beside it (Explore)

The model code of the resnet3 procedure (engine/procedures/resnet3: its record, methods and
settings); the lockstep, the CLI and the table are the engine's (`python -m engine run`).
"""
