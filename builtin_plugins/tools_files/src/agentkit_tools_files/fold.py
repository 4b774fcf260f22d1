"""The match key of edit_file's tolerant pass: a line folded, never an output.

Folding applies Unicode compatibility forms (NFKC), makes smart quotes,
dashes and exotic spaces ASCII and drops trailing whitespace. Leading
whitespace is kept exactly: indentation is meaning in Python, YAML and
Makefiles, and folding it would let an edit land at the wrong nesting level.
The folded text is only ever compared; what is written comes from the
original lines and the model's new text.
"""

from __future__ import annotations

import unicodedata

__all__ = ["fold_line"]

_CONFUSABLES = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032\u2035\u00b4", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb", '"'),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d", "-"),
        **dict.fromkeys(
            "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
            "\u202f\u205f\u3000",
            " ",
        ),
        "\u2026": "...",
    }
)


def fold_line(line: str) -> str:
    """The comparison key of one line (without its terminator)."""
    body = line.lstrip()
    indent = line[: len(line) - len(body)]
    folded = unicodedata.normalize("NFKC", body).translate(_CONFUSABLES)
    return indent + folded.rstrip()
