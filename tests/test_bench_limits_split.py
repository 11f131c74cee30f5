"""bench/limits_split.py prints, per method, the whole limit, the problem built before any solve
and the λ → 0 answer alone (issue 36's table in docs/performance.md comes from it)."""

import re

from bench import limits_split


def test_split_lines_for_a_small_preset():
    lines = limits_split.measure("gfl-linear", 0, with_alone=True)
    head = re.match(r"gfl-linear: run ([\d.]+) s, limits ([\d.]+) s \(([\d.]+)\), without the "
                    r"path points ([\d.]+) s \(([\d.]+)\)$", lines[0])
    assert head, lines[0]
    run_s, limits_s, ratio = (float(head.group(i)) for i in (1, 2, 3))
    assert run_s > 0 and limits_s > 0 and abs(ratio - limits_s / run_s) <= 0.01
    methods = {line.split()[0]: line for line in lines[1:]}
    assert set(methods) == {"ntk", "rf", "one_step"}
    for line in methods.values():  # gfl-linear is separable in every method's features
        assert re.search(r"limit [\d.]+ s; problem [\d.]+ s; hard margin \(separable: True\) "
                         r"[\d.]+ s$", line), line
    without = float(head.group(4))
    parts = sum(float(x) for line in lines[1:]
                for x in re.findall(r"(?:problem|\)) ([\d.]+) s", line))
    assert abs(without - parts) <= 0.02 * len(methods)
