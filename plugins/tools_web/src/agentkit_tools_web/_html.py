"""HTML to readable text, with the standard library's parser.

Good enough for a model to read a documentation page: scripts, styles and
other invisible elements are dropped, block elements become line breaks,
entities are decoded and runs of blank space are collapsed. It does not try
to render layout.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_INVISIBLE = frozenset({"script", "style", "noscript", "template", "head", "svg", "iframe"})
_BLOCK = frozenset(
    {
        "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "fieldset",
        "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
        "hr", "li", "main", "nav", "ol", "p", "pre", "section", "table", "tr", "ul", "title",
    }
)  # fmt: skip


# Elements that start a new line but do not end a paragraph.
_LINE = frozenset({"br", "dd", "dt", "li", "tr"})


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden_depth = 0
        self.title: str | None = None
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        elif tag in _INVISIBLE:
            self._hidden_depth += 1
        if tag in _LINE:
            self.parts.append("\n- " if tag == "li" else "\n")
        elif tag in _BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in _INVISIBLE and self._hidden_depth:
            self._hidden_depth -= 1
        if tag in _BLOCK and tag not in _LINE:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title = (self.title or "") + data
        elif not self._hidden_depth:
            self.parts.append(data)


def html_to_text(html: str) -> str:
    """The visible text of an HTML document, title first."""
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    text = "".join(parser.parts)
    text = re.sub(r"[ \t\r\f\v]+", " ", text)
    text = re.sub(r" *\n *", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    if parser.title and parser.title.strip():
        text = f"{parser.title.strip()}\n\n{text}"
    return text
