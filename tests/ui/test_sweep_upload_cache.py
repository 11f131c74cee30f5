"""A stored or uploaded sweep is read and aggregated once per content, not on every click
(issue 30, finding 7: a 77 k-row upload took 46 s to render and 33 s per widget change)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine.sweep import SweepSpec, run_sweep
from ui import sweep_data as sd
from ui.state import STATE_KEY, AppState

ROOT = Path(__file__).resolve().parents[2]
TINY = {"n": 600, "n_test": 200, "d": 40, "D": 20, "m": 8, "T": 4, "batch": 100}


@pytest.fixture(scope="module")
def upload(tmp_path_factory) -> bytes:
    spec = SweepSpec("quick-parity", TINY, (("k", (1, 3)), ("p_o", (0.2, 0.4))), (), 1, 0,
                     ("network", "ntk"))
    return Path(run_sweep(spec, str(tmp_path_factory.mktemp("s") / "s"))["path"]).read_bytes()


@pytest.fixture
def reads(monkeypatch) -> list:
    """Every read of a store by the page (the real engine load, counted)."""
    seen, real = [], sd.load

    def counted(source):
        seen.append(len(source) if isinstance(source, bytes) else str(source))
        return real(source)

    monkeypatch.setattr(sd, "load", counted)
    monkeypatch.setattr(sd, "_cache", type(sd._cache)())
    return seen


def page(data: bytes) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / "sweep.py"), default_timeout=120)
    state = AppState()
    state.sweep.sources["upload: s.sqlite"] = data
    at.session_state[STATE_KEY] = state
    at.session_state["sweep_pick"] = "upload: s.sqlite"
    at.run()
    assert not at.exception, at.exception
    return at


def test_an_upload_is_read_once_however_often_the_page_reruns(upload, reads):
    at = page(upload)
    labels = [s.label for s in at.selectbox]
    at.selectbox[labels.index("summary")].select("train_acc").run()
    at.selectbox[labels.index("method")].select("Network − NTK").run()
    assert not at.exception, at.exception
    page(upload)  # another session with the same bytes: the same aggregates
    assert reads == [len(upload)], reads
    page(upload + b"\0" * 512)  # other content (a different file): read anew
    assert len(reads) == 2


def test_the_memo_gives_the_page_the_same_numbers(upload):
    store = sd.stored(upload)
    df, axes, _ = sd.load_frame(upload)
    fresh = sd.per_seed(df, axes, "test_acc", "network", "ntk")
    assert store.per_seed("test_acc", "network", "ntk").equals(fresh)
    assert store.per_seed("test_acc", "network", "ntk") is store.per_seed("test_acc",
                                                                         "network", "ntk")
    assert store.csv() == df.to_csv(index=False)


def test_the_table_download_is_sized_and_refused_in_one_line(upload, monkeypatch):
    store = sd.stored(upload)
    assert store.refused() is None
    monkeypatch.setenv("FEX_MAX_MEMORY_MB", "1")
    msg = store.refused()
    assert msg and "\n" not in msg and "FEX_MAX_MEMORY_MB" in msg and "rows=" in msg, msg
