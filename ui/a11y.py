"""Page-level accessibility on every page (WCAG 2.1 AA, issue 34): text contrast, a visible focus
ring, no motion under prefers-reduced-motion, scrollable regions a keyboard can reach."""

from __future__ import annotations

import streamlit as st

FOCUS = "#1f5fbf"  # the theme's primary colour: 6.1 : 1 on white, 5.4 : 1 on the sidebar's grey
# Streamlit's caption grey (#828180) is 3.9 : 1 on white; this one is 6.4 : 1 on white and
# 5.7 : 1 on the sidebar's #f0f2f6 (WCAG AA asks 4.5 : 1 for text of this size).
MUTED = "#615f5d"
CODE_IN_CAPTION = "#1d6b40"  # inline code in a caption: 6.4 : 1 on its #fdfdfd chip (was 3.0)

CSS = f"""
[data-testid="stCaptionContainer"], [data-testid="stCaptionContainer"] p {{
  color: {MUTED} !important; opacity: 1 !important; }}
[data-testid="stCaptionContainer"] code {{ color: {CODE_IN_CAPTION} !important; }}
.stApp :focus-visible {{ outline: 2px solid {FOCUS} !important; outline-offset: 2px; }}
.stApp main:focus-visible {{ outline-offset: -2px; }}
.st-key-fe_a11y {{ display: none !important; }}
/* headings one level below their section (axe: heading-order) keep the size they had: the
   Reproduce cards' titles (h3 in a column) and Compare's step counter (h2) */
.stColumn h3, .st-key-fe_step h2 {{ font-size: 1.5rem !important; }}
@media (prefers-reduced-motion: reduce) {{
  *, *::before, *::after {{ animation-duration: 0.01ms !important;
    animation-iteration-count: 1 !important; animation-delay: 0s !important;
    transition-duration: 0.01ms !important; transition-delay: 0s !important;
    scroll-behavior: auto !important; }}
}}
"""

# A region that scrolls (a long command in a code block, a wide formula) gets tabindex=0, so a
# keyboard can focus and scroll it (axe: scrollable-region-focusable). Streamlit redraws the page
# at will, so a MutationObserver looks again; the player's own frequent updates are skipped.
JS = """
const SCROLLERS = ".stMain pre, .stMain .katex-display, [data-testid='stSidebar'] pre,"
  + " .stMain [data-testid='stMarkdownContainer'] table, .stMain [data-testid='stTable'] > div";
function mark() {
  for (const e of document.querySelectorAll(SCROLLERS)) {
    const s = getComputedStyle(e), scrolls = /(auto|scroll)/.test(s.overflowX + s.overflowY);
    const over = e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1;
    if (scrolls && over && !e.hasAttribute("tabindex")) {
      e.setAttribute("tabindex", "0"); e.dataset.feScroll = "1";
    } else if (!(scrolls && over) && e.dataset.feScroll) {
      e.removeAttribute("tabindex"); delete e.dataset.feScroll;
    }
  }
}
export default function () {
  if (globalThis.FE_A11Y) return;
  let pending = null;
  const later = () => {
    if (!pending) pending = setTimeout(() => { pending = null; mark(); }, 250);
  };
  globalThis.FE_A11Y = new MutationObserver((records) => {
    if (records.some((r) => !(r.target.closest && r.target.closest(".fe-player")))) later();
  });
  globalThis.FE_A11Y.observe(document.body, {childList: true, subtree: true});
  window.addEventListener("resize", later);
  later();
}
"""

_marker = st.components.v2.component("feature_emergence.a11y", html="", js=JS)


def page_setup() -> None:
    """The page-wide style and the scroll-region marker (app.py, before every page)."""
    st.html(f"<style>{CSS}</style>")
    _marker(key="fe_a11y")
