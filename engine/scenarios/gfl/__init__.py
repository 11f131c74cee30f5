"""What the GFL worlds (engine/scenarios/gfl_*.py) share; the gfl procedure that trains on them
is engine/procedures/gfl.

datasets  the data of the GFL worlds the project did not have (spec §3.2, §3.4–3.6)
common    their common settings and their preset record
options   what a world tells Algorithm 1 (GFLOptions): its init, bias and step-1 rules
"""
