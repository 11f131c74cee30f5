"""The app's pages, one entry each: app.py's navigation, the router's known addresses and the
not-found pages all read this list (a new page is one script in pages/ and one entry here)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Page:
    """One page: its script, title, Material icon and address (the first page is served at /)."""

    script: str
    title: str
    icon: str
    slug: str


PAGES = (
    Page("pages/explore.py", "Explore", ":material/scatter_plot:", "explore"),
    Page("pages/compare.py", "Compare", ":material/compare_arrows:", "compare"),
    Page("pages/reproduce.py", "Reproduce the sources", ":material/science:", "reproduce"),
    Page("pages/sweep.py", "Sweeps", ":material/grid_on:", "sweep"),
    Page("pages/guide.py", "Guide", ":material/menu_book:", "guide"),
)
DEFAULT = PAGES[0]
# The default page is served at "/"; st.navigation hashes its url_path, so it runs under this
# internal name and a hidden twin answers a shared link to its own slug.
DEFAULT_URL_PATH = "home"


def known_paths() -> set[str]:
    """Every one-level address that opens a page ('' is the default page)."""
    return {"", DEFAULT_URL_PATH, *(p.slug for p in PAGES)}


def link(page: Page, base: str = "") -> str:
    """The page's address under the base path ('/prefix' or '')."""
    return f"{base}/{'' if page is DEFAULT else page.slug}"
