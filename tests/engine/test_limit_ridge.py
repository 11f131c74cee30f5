"""The ridge of the converged limits is a declared setting, limit_ridge (0, its default: λ → 0;
engine/limits/path.py): validated with one line naming it and its range, read by the CLI (--set),
the URL and the limit (checked against liblinear at a chosen value), cached per its value and
shown beside the certificate."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from sklearn.svm import LinearSVC

from engine.cli import main
from engine.compare import Comparison
from engine.config import SPECS, ConfigError
from engine.limits import limit_of
from engine.presets import preset_config
from ui.limits_view import cells
from ui.state import parse_params, url_params

TINY = ["--preset", "gfl-xor", "--set", "n=300", "--set", "n_test=300", "--set", "m=10",
        "--set", "T=4", "--methods", "network,rf", "--quiet"]


def test_limit_ridge_is_declared_with_a_default_and_a_range():
    spec = SPECS["limit_ridge"]
    assert spec.default == 0.0 and spec.allowed() == "a number in [0, 0.1]"
    with pytest.raises(ConfigError, match=r"limit_ridge=-1.0 is not allowed: a number in \[0, 0"):
        preset_config("gfl-xor").replace(limit_ridge=-1.0)


def test_cli_refuses_a_bad_ridge_in_one_line(capsys):
    assert main(["run", *TINY, "--set", "limit_ridge=2"]) == 2
    err = capsys.readouterr().err.strip()
    assert "limit_ridge" in err and "[0, 0.1]" in err and "\n" not in err
    # the AZL limit uses the run's own weight decay: the ridge is refused there, with the reason
    assert main(["run", "--preset", "azl-resnet", "--set", "limit_ridge=1e-6", "--quiet"]) == 2
    assert "does not read it" in capsys.readouterr().err


def test_url_round_trip_keeps_the_ridge():
    cfg, _, warn = parse_params({"scenario": "gfl_xor", "limit_ridge": "1e-06"})
    assert not warn and cfg.limit_ridge == 1e-6
    assert url_params(cfg)["limit_ridge"] == "1e-06"
    assert "limit_ridge" not in url_params(cfg.replace(limit_ridge=0.0))
    _, _, warn = parse_params({"limit_ridge": "-1"})
    assert warn and "limit_ridge" in warn[0]


def _liblinear_objective(run, lam: float) -> float:
    """min λ‖w‖² + mean hinge on the run's RF features, solved by liblinear: its objective."""
    prep, net = run.prep, run.learner.net
    w, b = net.w.double().numpy(), net.b.double().numpy()
    x = np.maximum(prep.x_train.double().numpy() @ w.T + b, 0)
    y = prep.fit_train.double().numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = LinearSVC(C=1 / (2 * lam * len(y)), loss="hinge", fit_intercept=False, dual=True,
                        tol=1e-6, max_iter=20_000).fit(x, y)
    v = clf.coef_.ravel()
    return float(np.maximum(0, 1 - y * (x @ v)).mean() + lam * v @ v)


def test_cli_ridge_reaches_the_limit_and_its_cache(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["run", *TINY, "--set", "limit_ridge=0.01", "--out", str(out)]) == 0
    lim = json.loads(out.read_text())["methods"]["rf"]["limit"]
    assert lim["ridge"] == 0.01 and lim["tie_break"] and "0.01‖w‖²" in lim["objective"]
    assert "chosen ridge limit_ridge = 1e-02" in capsys.readouterr().out
    cfg = preset_config("gfl-xor").replace(n=300, n_test=300, m=10, T=4)
    runs = {}
    for lam in (1e-2, 1e-4):  # the same run, two ridges: two cache entries, two problems
        comp = Comparison(cfg.replace(limit_ridge=lam), ("rf",), device="cpu")
        comp.run_all()
        runs[lam] = comp.runs["rf"]
    big, small = limit_of(runs[1e-2]), limit_of(runs[1e-4])
    assert big is not small and big["ridge"] == 1e-2 and small["ridge"] == 1e-4
    for lam, lim in ((1e-2, big), (1e-4, small)):  # each the optimum of its own ridge
        ref = _liblinear_objective(runs[lam], lam)
        assert lim["objective_value"] <= ref * (1 + 1e-3)
        assert lim["objective_value"] >= ref * (1 - 1e-2)
    assert big["objective_value"] > 1.02 * small["objective_value"]  # a different problem


def test_compare_certificate_cell_names_the_ridge():
    lim = {"test_acc": 0.8, "certificate": 5e-5, "certificate_kind": "relative duality gap",
           "converged": True, "ridge": 1e-4, "tie_break": True}
    got = cells({"limit": lim}, "test_acc", "Test %")
    assert got["Limit certificate"].endswith("chosen ridge limit_ridge = 1e-04")
    zero = cells({"limit": {**lim, "limit_kind": "λ → 0: max-margin"}}, "test_acc", "Test %")
    assert zero["Limit certificate"].endswith("λ → 0: max-margin")
    own = cells({"limit": {**lim, "tie_break": False}}, "test_acc", "Test %")
    assert "ridge" not in own["Limit certificate"]
