"""Make every page run under app.py's st.navigation router, even on a fresh server."""

import html
from urllib.parse import urlparse

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

from ui.page_list import PAGES, known_paths, link

_rerouted = False  # once per process: a server decides pages/ mode only once


def ensure_router() -> None:
    """Rerun through app.py when Streamlit ran a page file directly.

    Streamlit 1.67 treats a folder named pages/ beside the main script as a v1 multipage app
    until the main script has called st.navigation once in the server process, so the first
    visit to /compare on a fresh server would run pages/compare.py alone (no router, no wide
    layout). Clearing the flag and rerunning makes the runner exec app.py, which routes.
    Only the first time: AppTest resets the flag before every run, and a rerun there would
    swallow the button click that started the run.
    """
    global _rerouted
    if PagesManager.uses_pages_directory and not _rerouted:
        _rerouted = True
        PagesManager.uses_pages_directory = False
        st.rerun()


def run(page) -> None:
    """Run the page st.navigation resolved, or say "Page not found" for an unknown address.

    For an unknown path Streamlit falls back to the default page (Explore) after a brief
    toast; a shared link with a typo would silently open a different page. Here it gets a
    page of its own that names the known pages.
    """
    path = urlparse(st.context.url or "").path.strip("/")
    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    if base and (path == base or path.startswith(base + "/")):
        path = path[len(base):].strip("/")
    if path not in known_paths():
        st.title("Page not found")
        st.markdown(not_found_text(path))
        return
    page.run()


def not_found_text(path: str) -> str:
    """'There is no page at …' with a link to every page of ui/page_list.py."""
    links = [f"[{p.title}]({link(p)})" for p in PAGES]
    return (f"There is no page at `/{html.escape(path)}`. The pages are "
            f"{', '.join(links[:-1])} and {links[-1]}.")
