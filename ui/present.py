"""Presentation mode (?present=1): no sidebar, large type, a light/dark switch; and the page header
with the Copy-link button."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

PRESENT_KEY, THEME_KEY = "present_mode", "present_theme"
THEMES = ("light", "dark")
DARK_BG, DARK_FG = "#0e1117", "#fafafa"

_copy_link = st.components.v2.component(
    "feature_emergence.copy_link",
    html='<button type="button" class="fe-copy" title="copy the address of this view, with '
         'every setting, to the clipboard">Copy link</button><span class="fe-copied"></span>',
    css=".fe-copy{font:inherit;padding:4px 12px;border-radius:6px;border:1px solid #1f5fbf;"
        "background:transparent;color:inherit;cursor:pointer}.fe-copied{margin-left:8px;"
        "font-size:0.85em;opacity:0.8}.fe-copy:focus-visible{outline:2px solid #1f5fbf;"
        "outline-offset:2px}",
    js="""
export default function (component) {
  const root = component.parentElement, btn = root.querySelector(".fe-copy");
  const note = root.querySelector(".fe-copied");
  btn.onclick = async () => {
    const url = window.location.href;
    try { await navigator.clipboard.writeText(url); }
    catch (e) {  // no clipboard API (plain http on a LAN address): select-and-copy fallback
      const t = document.createElement("textarea"); t.value = url; document.body.appendChild(t);
      t.select(); document.execCommand("copy"); t.remove();
    }
    note.textContent = "copied: " + url;
    btn.dataset.copied = url;  // root may be a shadow root, which has no dataset
  };
}
""")


@dataclass
class Mode:
    """Whether presentation mode is on, and its theme."""

    on: bool
    theme: str

    def params(self) -> dict[str, str]:
        """URL parameters of the mode (none when off and light)."""
        out = {"present": "1"} if self.on else {}
        if self.theme != "light":
            out["theme"] = self.theme
        return out


def mode() -> Mode:
    """The mode from the toggles, first taken from the URL (?present=1&theme=dark)."""
    if PRESENT_KEY not in st.session_state:
        st.session_state[PRESENT_KEY] = st.query_params.get("present") in ("1", "true")
    if THEME_KEY not in st.session_state:
        theme = st.query_params.get("theme")
        st.session_state[THEME_KEY] = theme if theme in THEMES else "light"
    return Mode(bool(st.session_state[PRESENT_KEY]), st.session_state[THEME_KEY] or "light")


def copy_link() -> None:
    """The Copy-link button (app.py draws it above every page)."""
    _copy_link(key="copy_link")


def header(m: Mode, title: str) -> None:
    """Title row: the title, the presentation toggle and (in it) the theme switch."""
    if m.on:
        _style(m)
    # room for the whole "Presentation mode" label at 1280 px, also in the moment before the
    # presentation style hides the sidebar (the label is 1.15rem then; CI caught it cut there)
    cols = st.columns([4.2, 2.3, 1.4] if m.on else [5, 2.2], vertical_alignment="center")
    cols[0].markdown(f"## {title}" if m.on else f"# {title}")
    cols[1].toggle("Presentation mode", key=PRESENT_KEY,
                   help="no sidebar, large type, map and accuracy side by side; keys: space = "
                        "play/pause, → = step, ← = back, R = reset")
    if m.on:
        cols[2].segmented_control("Theme", THEMES, key=THEME_KEY, label_visibility="collapsed")


def _style(m: Mode) -> None:
    """Hide the sidebar, enlarge the type and (dark) recolour the page around the charts."""
    css = ('[data-testid="stSidebar"],[data-testid="stSidebarCollapsedControl"],'
           '[data-testid="stExpandSidebarButton"]{display:none !important}'
           '[data-testid="stMainBlockContainer"]{max-width:100% !important;'
           'padding:1.2rem 2rem 1rem 2rem !important}'
           '[data-testid="stMain"] p{font-size:1.15rem}')
    if m.theme == "dark":
        # the header stays transparent: a solid one would cover the Copy-link row
        css += (f'.stApp{{background:{DARK_BG} !important}}'
                '[data-testid="stHeader"]{background:transparent !important}'
                f'.stApp, .stApp p, .stApp h1, .stApp h2, .stApp label, .stApp span{{'
                f'color:{DARK_FG} !important}}'
                f'.stApp button:not(.fe-play){{background:#262730 !important;'
                f'color:{DARK_FG} !important;border-color:#4a5060 !important}}'
                '.stApp button[kind*="Active"]{background:#1f5fbf !important}'
                # a help "?" is a button too: without this it was a dark square beside its label
                '.stApp [data-testid="stTooltipIcon"] button{background:transparent !important;'
                'border:none !important}'
                f'.stApp [data-testid="stTooltipIcon"] svg{{stroke:{DARK_FG} !important;'
                'opacity:0.7}'
                # the focus ring (ui/a11y.py) in a light blue: 9 : 1 on the dark page
                '.stApp :focus-visible{outline-color:#8ab4f8 !important}')
    st.html(f"<style>{css}</style>")
