"""Markdown rendered for a terminal: parsed by markdown-it-py (CommonMark, with tables and strikethrough),
written with the theme's styles.

Every piece of the model's text is made visible (:func:`~agentkit.host.cli.support.visible`)
*after* parsing, because parsing decodes character references: ``&#x1b;`` is
an escape once parsed, and must be shown as ``␛`` like any other. The only
escape sequences in the result are the theme's own styles.

What it shows: headings in bold without their ``#``; emphasis, strong,
strikethrough and inline code styled without their markers; a link's text
followed by its address in brackets (a terminal hyperlink would hide where it
goes); lists with ``•`` or their numbers; quotes behind ``│``; tables with
aligned columns; code blocks as written, between their fences, so that they
copy as they are.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING

from agentkit.host.cli.support import visible, visible_line

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.tree import SyntaxTreeNode

__all__ = ["render"]

#: The markers of nested bullet lists, by depth.
BULLETS = ("•", "◦", "▪")
_INLINE_ROLES = {"strong": "strong", "em": "emphasis", "s": "strike", "link": "link"}

_parser: MarkdownIt | None = None


def render(text: str, codes: dict[str, str]) -> list[str]:
    """``text`` (Markdown) as the lines to write, styled with ``codes`` (a theme: role -> SGR parameters)."""
    from markdown_it.tree import SyntaxTreeNode

    global _parser
    if _parser is None:  # markdown-it-py is imported on the first answer, never by a plain chat
        from markdown_it import MarkdownIt

        _parser = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    return _Renderer(codes).blocks(SyntaxTreeNode(_parser.parse(text)).children)


class _Renderer:
    def __init__(self, codes: dict[str, str]) -> None:
        self.codes = codes

    def style(self, text: str, role: str) -> str:
        code = self.codes.get(role)
        return f"\x1b[{code}m{text}\x1b[0m" if code and text else text

    # -- blocks --------------------------------------------------------------------------

    def blocks(self, nodes: Sequence[SyntaxTreeNode], depth: int = 0) -> list[str]:
        lines: list[str] = []
        for node in nodes:
            lines.extend(self.block(node, depth))
        return lines

    def block(self, node: SyntaxTreeNode, depth: int) -> list[str]:
        kind = node.type
        if kind == "paragraph":
            return self.inline(node.children[0], []).split("\n") if node.children else []
        if kind == "heading":
            role = "heading1" if node.tag == "h1" else "heading"
            return [self.style(line, role) for line in self.inline(node.children[0], [role]).split("\n")]
        if kind in ("bullet_list", "ordered_list"):
            return self.listing(node, depth)
        if kind == "blockquote":
            return [self.style("│ ", "quote") + line for line in self.blocks(node.children, depth)]
        if kind == "fence":
            fence = visible_line(node.markup + node.info)
            return [self.style(fence, "quote"), *self.code(node.content), self.style(visible_line(node.markup), "quote")]
        if kind == "code_block":
            return self.code(node.content, indent="    ")
        if kind == "hr":
            return [self.style("─" * 40, "quote")]
        if kind == "table":
            return self.table(node)
        return visible(node.content).rstrip("\n").split("\n") if node.content else self.blocks(node.children, depth)

    def code(self, content: str, indent: str = "") -> list[str]:
        return [self.style(indent + line, "code") for line in visible(content).rstrip("\n").split("\n")]

    def listing(self, node: SyntaxTreeNode, depth: int) -> list[str]:
        lines: list[str] = []
        number = int(str(node.attrs.get("start", 1)))
        for item in node.children:
            if node.type == "ordered_list":
                marker = f"{number}{node.children[0].markup or '.'} "
                number += 1
            else:
                marker = BULLETS[min(depth, len(BULLETS) - 1)] + " "
            inner = self.blocks(item.children, depth + 1) or [""]
            lines.append(marker + inner[0])
            lines.extend(" " * len(marker) + line for line in inner[1:])
        return lines

    def table(self, node: SyntaxTreeNode) -> list[str]:
        rows: list[tuple[bool, list[str]]] = []
        for section in node.children:  # thead, tbody
            for row in section.children:
                rows.append((section.type == "thead",
                             [self.inline(cell.children[0], []) if cell.children else "" for cell in row.children]))
        columns = max((len(cells) for _, cells in rows), default=0)
        widths = [max((_width(cells[i]) for _, cells in rows if i < len(cells)), default=0) for i in range(columns)]
        lines: list[str] = []
        for header, cells in rows:
            padded = [cell + " " * (width - _width(cell)) for cell, width in zip(cells, widths, strict=False)]
            lines.append(self.style(" │ ", "quote").join(self.style(c, "strong") if header else c for c in padded).rstrip())
            if header:
                lines.append(self.style("─┼─".join("─" * width for width in widths), "quote"))
        return lines

    # -- inline ------------------------------------------------------------------------

    def inline(self, node: SyntaxTreeNode, stack: list[str]) -> str:
        """The inline children of ``node``; ``stack`` the roles in force around them (restored after each span)."""
        out: list[str] = []
        for child in node.children:
            kind = child.type
            if kind in ("softbreak", "hardbreak"):
                out.append("\n")
            elif kind == "code_inline":
                out.append(self.span(visible_line(child.content), [*stack, "code"], stack))
            elif kind in _INLINE_ROLES:
                inner = [*stack, _INLINE_ROLES[kind]]
                out.append(self.span(self.inline(child, inner), inner, stack))
                href = str(child.attrs.get("href", "")) if kind == "link" else ""
                if href and href not in (child.children[0].content if child.children else "", f"mailto:{_text(child)}"):
                    out.append(f" ({visible_line(href)})")
            elif kind == "image":
                alt = _text(child)
                out.append(f"[image{': ' + visible_line(alt) if alt else ''}] ({visible_line(str(child.attrs.get('src', '')))})")
            elif child.children:
                out.append(self.inline(child, stack))
            else:  # text, html_inline
                out.append(visible(child.content))
        return "".join(out)

    def span(self, text: str, inner: list[str], outer: list[str]) -> str:
        """``text`` in the styles of ``inner``, then back to those of ``outer``."""
        return self.sgr(inner) + text + self.sgr(outer) if text and self.codes else text

    def sgr(self, roles: list[str]) -> str:
        codes = [self.codes[role] for role in roles if self.codes.get(role)]
        return "\x1b[0m" + "".join(f"\x1b[{code}m" for code in codes)


def _text(node: SyntaxTreeNode) -> str:
    return "".join(child.content if not child.children else _text(child) for child in node.children)


def _width(text: str) -> int:
    """Terminal cells ``text`` takes, its styles left out: wide characters take two."""
    cells, escape = 0, False
    for char in text:
        if escape:
            escape = char != "m"
        elif char == "\x1b":
            escape = True
        elif not unicodedata.combining(char):
            cells += 2 if unicodedata.east_asian_width(char) in "WF" else 1
    return cells
