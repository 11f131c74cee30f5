"""Every procedure speaks for itself (issue 35): the conformance suite, in the manner of
scikit-learn's check_estimator, over every registered procedure × every world it trains with
(tests/engine/conformance.py reads both registries, so a new one is checked by registering).
Compare's page and the exports' credit: tests/ui/test_conformance_pages.py."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from engine.frames import MAKERS, FrameStream
from engine.frames.compare import CompareStream
from engine.methods import make_run
from engine.procedures import RECORDS, checked, glossary, procedure_of, shown_terms, source_of
from engine.procedures.told import NO_TRUTH
from engine.procedures.views import GuideSection
from engine.report import clean, summary_table
from engine.run import Run
from engine.worlds import build_world
from tests.engine.conformance import (
    STEPS,
    case_id,
    cases,
    foreign_losses,
    loss_words,
    neuron_counts,
    tiny,
)

CASES = cases()
IDS = [case_id(c) for c in CASES]
_STREAMS: dict = {}


def played(case) -> FrameStream:
    """The case's Explore stream after its three steps (made once per case)."""
    if case not in _STREAMS:
        stream = FrameStream(tiny(case[1], case[0]), device="cpu")
        stream.advance()
        _STREAMS[case] = stream
    return _STREAMS[case]


def words(stream: FrameStream) -> str:
    """Everything Explore says in words about the run: what is measured, every step's
    narration, the step-size table."""
    meta = stream.meta()
    table = meta["step_sizes"] or {"note": "", "rows": []}
    texts = [stream.frame(i).text for i in range(len(stream))]
    return "\n".join([meta["probes"], *texts, table["note"], str(table["rows"])])


def test_the_suite_covers_every_procedure_and_world():
    """Every registered procedure and world is in at least one case (record.worlds included)."""
    from engine.scenarios import WORLDS
    assert {p for p, _ in CASES} == set(RECORDS)
    assert {w for _, w in CASES} == set(WORLDS)
    for record in RECORDS.values():
        assert {(record.name, w) for w in record.worlds} <= set(CASES), record.name


def test_a_record_without_a_required_declaration_is_refused():
    """Registration names the missing field; nothing falls back to the paper's words."""
    from engine.procedures.record import UNSET
    for name in ("loss", "stages", "step_table", "neurons", "charts", "schedule"):
        bad = replace(RECORDS["fcb2022"], **{name: UNSET})
        with pytest.raises(ValueError, match=rf"\b{name}\b"):
            checked(bad)
    table = replace(RECORDS["fcb2022"].table, bands=UNSET)
    with pytest.raises(ValueError, match="table.bands"):
        checked(replace(RECORDS["fcb2022"], table=table))
    # a Guide block no page can draw is refused too, naming its section and kind
    section = GuideSection("Its story", (("text", "fine"), ("video", "clip.mp4")))
    with pytest.raises(ValueError, match="guide 'Its story': 'video'"):
        checked(replace(RECORDS["fcb2022"], guide=(section,)))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_run_protocol_three_steps_and_snapshot_fields(case):
    """The lead method's run keeps the protocol (T, done, step(), history, summary()), takes
    three steps, and each snapshot has the fields the frame maker reads and the curves the
    record's charts declare."""
    stream = played(case)
    run, record = stream.run, RECORDS[case[0]]
    assert not stream.error and run.done and run.T == STEPS
    assert [s.step for s in run.history] == list(range(STEPS + 1))
    assert len(stream) == STEPS + 1  # a frame per snapshot: the maker read every field it needs
    for snap in run.history:
        for name in ("step", "stage", "train_acc", "test_acc", "cos", "cos_max", "frac_aligned"):
            assert hasattr(snap, name), (case, name)
        assert isinstance(snap.scalars(), dict)
    seen = set().union(*(s.scalars() for s in run.history))
    for chart in record.charts:
        assert seen & set(chart.curves), (case, chart.name, "none of its curves measured")
    assert isinstance(run.summary(), dict)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_same_seed_same_numbers(case):
    """Two runs of the same setting give the same numbers at every step."""
    cfg = tiny(case[1], case[0])
    twice = []
    for _ in range(2):
        world = build_world(cfg, device="cpu")
        run = make_run(procedure_of(cfg).lead, world, embed=False)
        while not run.done:
            run.step()
        twice.append([clean(s.scalars()) for s in run.history])
    for a, b in zip(*twice, strict=True):
        a = {k: v for k, v in a.items() if k != "elapsed"}
        b = {k: v for k, v in b.items() if k != "elapsed"}
        assert a == b, case


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_compare_trains_the_defaults_and_the_summary_has_the_tables_rows(case):
    """Compare's stream of the record's default methods runs to its end, and every row of the
    record's table is a key of every method's summary in the report."""
    cfg = tiny(case[1], case[0])
    record = RECORDS[case[0]]
    stream = CompareStream(cfg, record.defaults, device="cpu")
    while not stream.done:
        stream.advance()
    assert not stream.error, stream.error
    report = stream.report()
    entries = report["methods"]
    assert set(entries) == set(record.defaults)
    for key, _ in record.table.rows(list(entries.values())):
        for method, entry in entries.items():
            assert key in entry, (case, method, key)
    assert (report["schedule"] is not None) == record.schedule, case
    # no cosine with a placeholder: where the world plants no Σ_A M the engine's runs report
    # none, and the CLI's table says why instead of a Cos row
    if report["truth"] is False and isinstance(stream._series.first.runs[record.lead], Run):
        assert all(e["cos"] is None for e in entries.values()), case
        table = summary_table(report)
        assert NO_TRUTH in table and "\nCos " not in table, (case, table)
    meta = stream.meta()
    assert meta["source"]["citation"] == source_of(cfg).citation
    # the report read alone says whose run it is and how it trains, in the record's words
    assert report["source"]["citation"] == source_of(cfg).citation, case
    assert report["loss"] == record.loss and report["step_rule"] == record.step_rule(cfg)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_explore_names_only_the_records_loss_stages_and_neurons(case):
    """What is measured, the narration and the step-size table name the record's loss and its
    neuron count, no other procedure's loss, and the run's stages are those it declares."""
    stream, record = played(case), RECORDS[case[0]]
    text, cfg = words(stream), stream.cfg
    assert loss_words(record.loss) in stream.meta()["probes"], case
    for other in foreign_losses(case[0]):
        assert other not in text, (case, other)
    counts = neuron_counts(text)
    assert counts <= {record.neurons(cfg.m)}, (case, counts)
    stages = {s.stage for s in stream.run.history[1:]}
    assert stages <= set(record.stage_names()), (case, stages, record.stages)
    if "classifier" not in " ".join(record.stage_names()):
        assert "classifier stage" not in text.lower(), case
    if record.step_table is None:
        assert stream.meta()["step_sizes"] is None
    if getattr(stream.run, "whole_sets", False):  # scored on the whole sets, and told so
        assert all(s.full_eval for s in stream.run.history), case
        assert "fixed samples" not in stream.meta()["probes"], case


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_report_carries_a_schedule_only_where_the_procedure_trains_by_it(case):
    stream, record = played(case), RECORDS[case[0]]
    head = stream.meta()["report"]
    assert (head["schedule"] is not None) == record.schedule, case
    assert head["procedure"] == case[0]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_guide_defines_every_term_the_views_show(case):
    """Every term the record's charts and its frame maker show is in the Guide's glossary, and
    in the record's own (the Guide credits each meaning to its procedure's source: another
    procedure's meaning of "cos" is not this one's)."""
    record = RECORDS[case[0]]
    defined = {term for term, _, _ in glossary()}
    shown = set(shown_terms(record, MAKERS[record.frame].TERMS))
    assert not shown - defined, (case, shown - defined)
    assert not shown - dict(record.glossary).keys(), (case, shown - dict(record.glossary).keys())


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_credit_is_the_worlds_and_the_procedures(case):
    """Explore's meta credits the run's own source: the world's where it has one, with the
    procedure's citation beside it when they differ."""
    from engine.scenarios import WORLDS
    stream = played(case)
    meta, own = stream.meta(), WORLDS[case[1]].source
    proc = RECORDS[case[0]].source
    assert meta["source"] == source_of(stream.cfg).citation
    if own is None or own.citation == proc.citation:
        assert meta["source"] == proc.citation
    else:
        assert own.citation in meta["source"] and meta["claim"] == own.claim


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_explore_speaks_of_sigma_am_only_where_the_world_plants_it(case):
    """A world without a planted truth: no Σ_A M and no relevant/background split in what is
    measured or the narration; a world that declares directions (and no centres) has them on
    its map."""
    stream = played(case)
    ds, meta = stream.world.ds, stream.meta()
    if not ds.has_truth:
        text = words(stream)
        assert "Σ_A M" not in text and "relevant/background" not in text, case
    if ds.directions is not None and ds.centres is None:
        assert len(meta["marks"]) >= len(ds.directions.vectors), (case, meta["marks"])


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_players_charts_are_the_records(case):
    """Explore's meta charts are the record's declared Explore charts, in its order: all of them
    on a world that plants Σ_A M (or a procedure whose charts need none), a subset elsewhere,
    and never one the record does not declare."""
    stream, record = played(case), RECORDS[case[0]]
    names = [c["name"] for c in stream.meta()["charts"]]
    declared = [c.name for c in record.charts if "explore" in c.views]
    assert names == [n for n in declared if n in names], (case, names, declared)
    if stream.world.ds.has_truth or record.frame != "engine":
        assert names == declared, (case, names, declared)
    own = [n for n in declared if n not in MAKERS[record.frame].DRAWS]
    assert set(own) <= set(names), (case, own, names)  # drawn from its curves, on any world
    if own:  # the frames carry its curves' values for the player
        cols = stream.frames(0, len(stream))["own"]
        assert any(v is not None for col in cols for v in col), case


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_explore_maps_a_run_whose_snapshots_carry_no_map(case):
    """A procedure need not know MDS: its frame maker maps snapshots without an embedding."""
    stream = played(case)
    maker = MAKERS[RECORDS[case[0]].frame](stream.run, stream.world)
    kept = [s.embedding for s in stream.run.history]
    try:
        for snap in stream.run.history:
            snap.embedding = None
        frame = maker.frame(len(stream.run.history) - 1)
    finally:
        for snap, emb in zip(stream.run.history, kept, strict=True):
            snap.embedding = emb
    assert len(frame.points) == len(frame.cos), case


def test_a_record_declaring_only_accuracy_gets_only_that_chart(monkeypatch):
    """shi2022 on the paper's world with its record narrowed to the accuracy chart: the player
    gets that chart alone (the maker adds no gradient or star chart of its own)."""
    record = RECORDS["shi2022"]
    monkeypatch.setitem(RECORDS, "shi2022", replace(record, charts=record.charts[:1]))
    stream = FrameStream(tiny("sparse_coding", "shi2022"), device="cpu")
    stream.advance()
    assert [c["name"] for c in stream.meta()["charts"]] == ["accuracy"]


@pytest.mark.parametrize("log", [True, False])
def test_an_own_chart_keeps_the_records_log_axis(monkeypatch, log):
    """A declared chart no maker draws (drawn from its curves) keeps the record's log flag: the
    player drew every such chart on a linear axis whatever the record asked."""
    from engine.procedures.record import Chart

    record = RECORDS["shi2022"]
    extra = Chart("losses", "Train loss", ("train_loss",), "hinge loss", log=log)
    monkeypatch.setitem(RECORDS, "shi2022", replace(record, charts=(*record.charts, extra)))
    stream = FrameStream(tiny("sparse_coding", "shi2022"), device="cpu")
    stream.advance()
    chart = {c["name"]: c for c in stream.meta()["charts"]}["losses"]
    assert chart["own"] and chart["log"] is log


def test_fcb_labels_its_four_centres_with_counts():
    """fcb-xor's map marks ±µ₁, ±µ₂ each with its count of neurons (cos > 0.9, signed)."""
    stream = played(("fcb2022", "fcb"))
    marks = stream.meta()["marks"]
    assert [m["name"] for m in marks] == ["+µ₁", "−µ₁", "+µ₂", "−µ₂"]
    assert all("slot" in m for m in marks)
    w = stream.run.params.q.float().numpy().astype(np.float64)
    centres = np.asarray(stream.world.ds.centres, dtype=np.float64)
    w, centres = w / np.linalg.norm(w, axis=1, keepdims=True), centres[:, :w.shape[1]]
    cos = (centres / np.linalg.norm(centres, axis=1, keepdims=True)) @ w.T
    assert stream.frame(len(stream) - 1).counts == [int(c) for c in (cos > 0.9).sum(axis=1)]
