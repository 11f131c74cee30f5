"""bench/hub_memory.py --trace DIR: trace the web process's Python allocations (tracemalloc)
and write what grew since start-up, by traceback, to DIR every FEX_TRACE_EVERY seconds.

Loaded as sitecustomize through PYTHONPATH, so only a bench run traces: the app is unchanged.
Only the Streamlit process traces (its workers import this too and skip).
"""

import os
import threading
import time
import tracemalloc

FRAMES = 8


def _rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _dump(folder: str, every: float) -> None:
    first = tracemalloc.take_snapshot()
    i = 0
    while True:
        time.sleep(every)
        snap = tracemalloc.take_snapshot()
        traced, peak = tracemalloc.get_traced_memory()
        stats = snap.compare_to(first, "traceback")
        lines = [f"t {i * every:.0f} s  rss {_rss_mb():.0f} MB  traced {traced / 2**20:.0f} MB "
                 f"(peak {peak / 2**20:.0f})"]
        for st in stats[:25]:
            lines.append(f"{st.size_diff / 2**20:+8.1f} MB now {st.size / 2**20:8.1f} MB "
                         f"count {st.count_diff:+d}")
            lines += [f"      {f.filename.split('site-packages/')[-1]}:{f.lineno}"
                      for f in st.traceback[-FRAMES:]]
        with open(os.path.join(folder, f"heap-{i:03d}.txt"), "w") as fh:
            fh.write("\n".join(lines) + "\n")
        i += 1


def _start() -> None:
    folder = os.environ.get("FEX_TRACE_DIR", "")
    with open("/proc/self/cmdline", "rb") as fh:
        web = b"streamlit" in fh.read()
    if folder and web:
        tracemalloc.start(FRAMES)
        every = float(os.environ.get("FEX_TRACE_EVERY", "15"))
        threading.Thread(target=_dump, args=(folder, every), daemon=True).start()


_start()
