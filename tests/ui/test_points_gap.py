"""The accuracy gaps Compare shows ("Network − RF", "Network − best limit"): a gap that is not
zero never reads as a signed 0.0 (gfl-linear: network 99.975 % against the NTK's 100 % limit
read "-0.0 points"), float32 rounding is no gap, larger gaps keep one decimal."""

from __future__ import annotations

import pytest

from ui import compare_view, limits_view


@pytest.mark.parametrize("diff,shown", [
    (0.99975 - 1.0, "-0.025 points"),
    (0.0004, "+0.04 points"),
    (0.999750018119812 - 0.99975, "+0.0 points"),  # float32 against float64: no gap
    (-1e-9, "+0.0 points"),
    (0.0, "+0.0 points"),
    (-0.0006, "-0.1 points"),
    (0.2105, "+21.1 points"),
])
def test_points(diff, shown):
    assert limits_view.points(diff) == shown


def test_both_gaps_on_compare_use_it():
    methods = {"network": {"test_acc": 0.99975}, "ntk": {"test_acc": 0.97,
                                                         "limit": {"test_acc": 1.0}}}
    assert limits_view.headline(methods, "test_acc")[1] == "-0.025 points"
    assert compare_view._gap("test_acc", 0.99975, 1.0, "Network", "NTK")[0] == "-0.025 points"
