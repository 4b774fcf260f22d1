"""XML escaping for the text the host puts into prompts (context files, the skills block)."""

from __future__ import annotations

__all__ = ["escape"]


def escape(text: str, *, quotes: bool = False) -> str:
    """``text`` as ``xml.sax.saxutils.escape`` gives it (``&``, ``<``, ``>``; with ``quotes``, ``"`` and ``'`` too).

    Written out because ``xml.sax`` is four modules (about 5 M instructions) that a first run needs for
    these few replacements.
    """
    text = text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")
    if quotes:
        text = text.replace('"', "&quot;").replace("'", "&apos;")
    return text
