"""Echoes of user input: every message that repeats what a user typed (a URL value, a key name,
a CLI argument) passes through here, so it is one plain line of bounded length.

`plain` is for terminals and logs; `markdown_plain` for Streamlit elements that render Markdown
(st.warning, st.error, ...), where a value like ![x](http://host/pixel.png) would otherwise
become an image that every visitor's browser fetches.
"""

from __future__ import annotations

import re

LIMIT = 80  # characters of a user's value shown back; enough to recognise it
ELLIPSIS = "…"
# ASCII punctuation with a meaning in Markdown, GitHub's extensions or Streamlit's
# (links, images, emphasis, code, HTML, tables, LaTeX $, :emoji:/:material/icon:/:red[text])
_MD = set("\\`*_{}[]()<>#+-.!|~$:&\"'=%@/")
# Streamlit turns :shortcodes: into icons and GitHub's extension turns http://… into links
# after the escapes are resolved; an invisible zero-width space after each colon stops both
_ZWSP = "\u200b"
_WWW = re.compile(r"www(?=\.)", re.IGNORECASE)


def plain(value, limit: int = LIMIT) -> str:
    """str(value) on one line: non-printable characters escaped, cut to `limit` with '…'."""
    text = value if isinstance(value, str) else str(value)
    cut = len(text) > limit
    text = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text[:limit])
    return text + ELLIPSIS if cut else text


def quoted(value, limit: int = LIMIT) -> str:
    """repr() of a user's value (the quotes show its extent), cut like plain()."""
    return plain(repr(value[:limit + 2] if isinstance(value, str) else value), limit)


def markdown_plain(text: str, limit: int = 400) -> str:
    """Text that Streamlit's Markdown shows literally: every special character escaped."""
    out = []
    # GitHub's autolinks also take www.host and name@host with no scheme: a zero-width space
    # inside 'www.' and after '@' keeps them text
    shown = _WWW.sub("www" + _ZWSP, plain(text, limit))
    for ch in shown:
        if ch in _MD:
            out.append("\\" + ch + (_ZWSP if ch in ":@" else ""))
        else:
            out.append(ch)
    return "".join(out)
