"""Smoke test of the benchmark (`python -m bench`): every part runs on a tiny setting and the
JSON result carries every field the README and the issue talk about. No timing assertions."""

from __future__ import annotations

import json

import pytest
import torch

from bench.run import main

TINY = ["--set", "d=40", "--set", "D=20", "--set", "k=3", "--set", "m=16", "--set", "n=3000",
        "--set", "n_test=1000", "--set", "T=12", "--set", "batch=200"]


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    threads = torch.get_num_threads()
    try:
        res = main(["--device", "cpu", "--in-process", "--threads", "1", "--out", str(out),
                    *TINY])
    finally:
        torch.set_num_threads(threads)  # --threads is process-wide: leave other tests alone
    files = list(out.glob("cpu-custom-*.json"))
    assert len(files) == 1
    return res, json.loads(files[0].read_text())


def test_json_has_machine_load_and_every_part(result):
    res, saved = result
    assert saved["preset"] == "paper-parity" and saved["T"] == 12
    assert saved["settings"][-1] == "batch=200"
    assert saved["date"][:2] == "20"
    m = saved["machine"]
    assert m["threads"] == 1 and m["cpu_count"] >= 1 and m["torch"] and m["cpu"]
    for key in ("load_start", "load_end"):
        assert len(saved[key]) == 3
    for part in ("matmul", "network", "methods", "reference"):
        assert len(saved[part]["load_before"]) == 3
    assert saved["matmul"]["peak_gflops"] == max(saved["matmul"]["gflops"].values()) > 0


def test_network_fields(result):
    net = result[1]["network"]
    assert net["space"] == "pattern" and net["T"] == 12
    assert net["total_s"] >= net["steps_s"] > 0 and net["cpu_s"] > 0
    assert set(net["step_s"]) == {"step1", "step2", "median_later", "max_later", "last"}
    assert set(net["breakdown_s"]) == {"train_step", "probes_snapshot", "mds_embedding"}
    assert net["mds_points"] == 2 * 16 + 2 and net["mds_frame_ms"] > 0
    assert 0 < net["history_mb"] < 1 and net["peak_rss_mb"] > 0
    fl = net["flops"]
    assert fl["steady"] and fl["per_step_steady"] > 0
    # watched: steps 1-6 and T; the rest extrapolated from step 6
    assert sorted(int(k) for k in fl["per_step_watched"]) == [1, 2, 3, 4, 5, 6, 12]
    assert fl["total"] == fl["build"] + sum(fl["per_step_watched"].values()) + \
        5 * fl["per_step_steady"]
    # steps 1-2 are full-batch: more products than a mini-batch step
    assert fl["per_step_watched"]["1"] > fl["per_step_steady"]
    assert 0.4 < net["summary"]["test_acc"] <= 1.0


def test_methods_and_reference_fields(result):
    saved = result[1]
    six = saved["methods"]
    names = ["network", "ntk", "rf", "one_step", "two_step", "network_no_structure"]
    assert list(six["per_method_s"]) == names == list(six["summary"])
    assert all(v > 0 for v in six["per_method_s"].values())
    assert six["flops"]["total"] > saved["network"]["flops"]["total"] - \
        saved["network"]["flops"]["build"]
    ref = saved["reference"]
    assert ref["steps_run"] == 12 and not ref["extrapolated"] and ref["cpu_s"] > 0
    assert six["cpu_s"] > 0
    assert set(ref["final"]) >= {"train_acc", "test_acc", "cos_max"}
    # the reference trains the same network: its final accuracy is the engine's (same sets)
    assert ref["final"]["test_acc"] == pytest.approx(saved["network"]["summary"]["test_acc"],
                                                     abs=5e-3)


def test_summary_ratios_and_targets(result):
    s = result[1]["summary"]
    for key in ("network_lower_bound_s", "network_vs_lower_bound", "methods_lower_bound_s",
                "methods_vs_lower_bound", "reference_vs_network"):
        assert s[key] > 0, key
    # a lower bound: no run can beat the arithmetic of its own products at the peak rate
    assert s["network_vs_lower_bound"] > 1 and s["methods_vs_lower_bound"] > 1
    assert s["reference_vs_network_cpu"] > 0
    assert set(s["targets"]) == {"network >= 20x faster than reference", "same in CPU seconds",
                                 "six methods <= 30 s", "six methods <= 30 CPU s",
                                 "MDS frame <= 10 ms", "history <= 200 MB",
                                 "first snapshot <= 1 s", ">= 4 updates/s (compute)"}


def test_bad_arguments_are_one_line_errors(capsys):
    for argv in (["--parts", "matmul,nope"], ["--device", "cuda:99"]):
        with pytest.raises(SystemExit) as err:
            main(argv)
        assert err.value.code == 2
    msg = capsys.readouterr().err.strip().splitlines()[-1]
    assert msg.endswith("--device cuda:99: " + f"{torch.cuda.device_count()} CUDA device(s) "
                        "here; use cpu or auto")


def test_reference_extrapolates_from_a_few_steps():
    from argparse import Namespace

    from bench.parts import part_reference

    args = Namespace(device="cpu", quick=False, preset="", set=TINY[1::2], probe_samples=0,
                     reference_steps=6)
    out = part_reference(args)
    assert out["steps_run"] == 6 and out["extrapolated"] and out["T"] == 12
    st = out["step_s"]
    # setup + steps 1-2 as measured + 10 more steps at the median of steps 3-6
    assert out["total_s"] == pytest.approx(out["setup_s"] + st["step1"] + st["step2"]
                                           + 10 * st["median_later"])
    assert out["final"]["step"] == 6


def test_batched_seeds_benchmark_writes_its_figures(tmp_path, capsys):
    """`python -m bench.sweep` (#15's measurement): the batched and one-by-one seeds give the
    same accuracies, and the JSON carries the ratios it prints."""
    from bench.sweep import main as sweep_main

    threads = torch.get_num_threads()
    try:
        assert sweep_main(["--seeds", "2", "--methods", "rf", "--json",
                           str(tmp_path / "s.json")]) == 0
    finally:
        torch.set_num_threads(threads)
    out = json.loads((tmp_path / "s.json").read_text())
    assert out["seeds"] == 2 and out["batched_rows"] == 2 and out["max_test_acc_diff"] == 0
    assert out["ratio_batched"] == pytest.approx(out["seeds_batched_s"] / out["one_seed_s"])
    assert len(out["cpu_s"]) == 3 and "target ≤ 2.5×" in capsys.readouterr().out
