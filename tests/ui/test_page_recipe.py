"""The docs' recipe for a new page, followed literally on a copy of the app: one script in
pages/ and one entry in ui/page_list.py; the navigation, the router and both not-found pages
follow. And every page of the list is linked from both not-found pages."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from ui.not_found import page as not_found_page
from ui.page_list import PAGES
from ui.router import not_found_text

ROOT = Path(__file__).resolve().parents[2]

CHECK = """
import json, os
from streamlit.testing.v1 import AppTest
from ui import not_found, page_list, router
at = AppTest.from_file(os.path.abspath("app.py"), default_timeout=120)
at.switch_page("{script}").run()
print(json.dumps({{"titles": [t.value for t in at.title],
                  "errors": [e.value for e in at.exception],
                  "known": sorted(page_list.known_paths()),
                  "not_found": not_found.page("/a/b").decode(),
                  "router": router.not_found_text("typo")}}))
"""


def readme_recipe() -> tuple[str, str, str]:
    """(script path, script text, the PAGES entry) as docs/extending.md's page recipe gives them."""
    text = (ROOT / "docs" / "extending.md").read_text(encoding="utf-8")
    section = text[text.index("**A new page**"):]
    script = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    path = re.search(r"saved as `(pages/\w+\.py)`", section).group(1)
    entry = re.search(r"`(\s*Page\(.*?\),)` in `PAGES`", section).group(1)
    return path, script, entry


def test_the_readme_page_recipe_adds_a_page_everywhere(tmp_path):
    for part in ("engine", "ui", "pages", "app.py", ".streamlit"):
        src = ROOT / part
        if src.is_dir():
            shutil.copytree(src, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(src, tmp_path / part)
    path, script, entry = readme_recipe()
    (tmp_path / path).write_text(script, encoding="utf-8")
    listing = tmp_path / "ui" / "page_list.py"
    head, sep, tail = listing.read_text(encoding="utf-8").partition("PAGES = (\n")
    body, close, rest = tail.partition("\n)\n")
    listing.write_text(head + sep + body + "\n" + entry + close + rest, encoding="utf-8")
    slug = re.search(r'"(\w+)"\),$', entry).group(1)
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "OMP_NUM_THREADS": "1"}
    res = subprocess.run([sys.executable, "-c", CHECK.format(script=path)], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=240)
    assert res.returncode == 0, res.stderr[-2000:]
    seen = json.loads(res.stdout.strip().splitlines()[-1])
    assert seen["errors"] == [] and seen["titles"] == ["Hello"], seen
    assert slug in seen["known"] and f'href="/{slug}"' in seen["not_found"]
    assert "[Hello](/hello)" in seen["router"]


def test_both_not_found_pages_link_every_page():
    body = not_found_page("/a/b").decode()
    for p in PAGES:
        assert f">{p.title}</a>" in body, p.title
    text = not_found_text("typo")  # the app's own, one level deep (ui/router.py)
    assert text.startswith("There is no page at `/typo`")
    for p in PAGES:
        assert f"[{p.title}](/{'' if p is PAGES[0] else p.slug})" in text, p.title
