"""Property-based tests over the setting space (issue 7): every setting either validates, passes
the resource guard and trains a few steps, or is refused with a ConfigError naming it.

Values are drawn around and beyond each Spec's range, as typed values and as the strings a URL or
the CLI sends. A tiny base setting and tight guard limits keep each example fast.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine import guard
from engine.config import SPECS, Config, ConfigError, coerce, from_dict
from engine.methods import make_run
from engine.run import DivergenceError
from engine.worlds import build_world

TINY = Config(d=12, D=8, k=3, m=4, n=200, n_test=100, T=4, batch=50, t1=1, t2=2)
CAPS = {"FEX_MAX_N": "2000", "FEX_MAX_M": "24", "FEX_MAX_DIM": "64", "FEX_MAX_T": "50000",
        "FEX_MAX_MEMORY_MB": "300", "FEX_MAX_SECONDS": "20", "FEX_ALLOW_DOWNLOADS": "0"}
JUNK = ["", " ", "abc", "nan", "inf", "-inf", "1e400", "0x10", "None", "auto", "True", "½",
        "1,2", "3.5", "-0", "9" * 40, "x" * 300]


def _numbers(spec) -> st.SearchStrategy:
    """Numbers inside, on and just beyond the range, kept small where the range is huge."""
    lo = spec.lo if spec.lo is not None else -10.0
    hi = min(spec.hi if spec.hi is not None else 10.0, max(lo + 1, 40))
    edges = [lo, hi, lo - 1, hi + 1, spec.hi if spec.hi is not None else hi, -1, 0]
    inner = st.floats(lo, hi, allow_nan=False) if spec.kind is float else \
        st.integers(int(lo), int(hi))
    return st.one_of(inner, st.sampled_from(edges), st.floats(allow_nan=True,
                                                             allow_infinity=True))


def value_for(name: str) -> st.SearchStrategy:
    """Raw values for one setting: typed, stringified, and junk."""
    spec = SPECS[name]
    if spec.choices:
        typed = st.sampled_from(spec.choices)
    elif spec.kind is bool:
        typed = st.booleans()
    elif spec.kind is str:
        typed = st.sampled_from(["1,3", "0,1", "2", "1,2,3", "0,9", "5,5", "1;3", ""])
    else:
        typed = _numbers(spec)
    return st.one_of(typed, typed.map(str), st.sampled_from(JUNK), st.none())


overrides = st.lists(st.sampled_from(sorted(SPECS)), min_size=1, max_size=4, unique=True).flatmap(
    lambda names: st.fixed_dictionaries({n: value_for(n) for n in names}))


def _try(values: dict) -> str:
    """'refused' (ConfigError) or 'ran' (three steps, or a clean divergence)."""
    try:
        cfg = from_dict(values, TINY)
        guard.check(cfg)
        world = build_world(cfg, device="cpu")
        run = make_run("network", world, embed=True)
    except ConfigError as err:
        assert err.name, err
        assert "\n" not in str(err)
        return "refused"
    try:
        for _ in range(3):
            run.step()
    except DivergenceError as err:  # huge step sizes: a clean, explained stop
        assert err.step <= 3 and "η" in str(err)
    return "ran"


@settings(max_examples=200, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(values=overrides)
def test_every_setting_runs_or_is_refused_with_a_config_error(monkeypatch_env, values):
    event(_try(values))


@pytest.fixture(scope="module")
def monkeypatch_env():
    mp = pytest.MonkeyPatch()
    for k, v in CAPS.items():
        mp.setenv(k, v)
    yield
    mp.undo()


@settings(max_examples=60, deadline=None, derandomize=True)
@given(name=st.sampled_from(sorted(SPECS)), raw=st.one_of(st.text(max_size=12),
                                                          st.floats(), st.integers()))
def test_coerce_only_raises_config_error(name, raw):
    try:
        value = coerce(name, raw)
    except ConfigError as err:
        assert err.name == name
        return
    spec = SPECS[name]
    # the value has the setting's own type (None only where 'auto' is allowed; an int setting
    # never comes back as a float or a bool) and coercing it again changes nothing
    assert (value is None and spec.optional) or type(value) is spec.kind, (name, raw, value)
    assert coerce(name, value) == value


@pytest.mark.parametrize(("values", "name"), [
    ({"D": 20}, "D"), ({"k": 9}, "k"), ({"batch": 201}, "batch"), ({"T": 1}, "T"),
    ({"eta": "nan"}, "eta"), ({"eta": "-1"}, "eta"), ({"p_o": "1"}, "p_o"),
    ({"labeling": "interval", "t1": 3, "t2": 2}, "t1"),
    ({"labeling": "custom", "P": "1,2,3", "p_a": 0.95}, "P"),
])
def test_known_relations_are_refused_by_name(values, name):
    with pytest.raises(ConfigError) as err:
        from_dict(values, TINY)
    assert err.value.name == name


def test_the_tiny_base_itself_runs(monkeypatch_env):
    assert _try({}) == "ran"
    assert _try({"m": 10_000}) == "refused"  # the guard's FEX_MAX_M
    assert math.isfinite(guard.estimate(TINY).memory_mb)
