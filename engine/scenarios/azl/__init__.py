"""The AZL world's own code (Allen-Zhu & Li 2019, spec §3.1), beside its registry module
engine/scenarios/azl_hier.py; the resnet3 procedure that trains on it is engine/procedures/resnet3.

config   the world's settings (AZLConfig), their ranges and the source's readings (variants)
data     x ∈ {±1}³⁰, y = βF + αG(F); exact population moments; the 4k pair stars
convert  the world in the engine's terms: its settings from an engine Config, an engine Dataset
presets  the proposed default and the source's other readings and size
"""
