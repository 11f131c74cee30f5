"""The README stays short and its first screen presents all five systems; every relative link in
the README and docs/ points at a file that exists (and, with #anchor, at a heading it has)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted((ROOT / "docs").glob("*.md"))
LINK = re.compile(r"\]\(([^)\s]+)\)|<img src=\"([^\"]+)\"")
SYSTEMS = ("Shi, Wei & Liang", "Frei, Chatterji & Bartlett", "Daniely & Malach",
           "Algorithm 1", "Allen-Zhu & Li")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a Markdown file (fenced code skipped)."""
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    return {slug(m.group(1)) for m in re.finditer(r"^#+ (.+)$", text, re.M)}


def links(path: Path) -> list[str]:
    """Relative link and image targets of a Markdown file (fenced code and quotes skipped)."""
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    text = re.sub(r"^>.*$", "", text, flags=re.M)  # text quoted for pasting elsewhere
    found = [a or b for a, b in LINK.findall(text)]
    return [t for t in found if not re.match(r"[a-z]+:", t)]


def test_readme_is_short_and_its_first_screen_shows_five_systems_with_pictures():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    first = "\n".join(text.splitlines()[:14])  # title, intro and the systems table
    for system in SYSTEMS:
        assert system in first, system
    pictures = re.findall(r"<img src=\"(assets/[^\"]+)\"", first)
    assert len(pictures) == 5 and len(set(pictures)) == 5
    assert len(re.findall(r"\]\(#\d-", first)) >= 10  # picture and title link down, each
    for command in ("bash scripts/run.sh", "bash scripts/test.sh"):
        assert f"```bash\n{command}\n```" in text


def test_every_relative_link_of_the_readme_and_docs_resolves():
    broken = []
    for page in (ROOT / "README.md", *DOCS):
        for target in links(page):
            file, _, anchor = target.partition("#")
            dest = (page.parent / file).resolve() if file else page
            if not dest.exists():
                broken.append(f"{page.name}: {target}")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert not broken, broken
