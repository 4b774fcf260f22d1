"""The match key of edit_file's tolerant pass: a line folded, never an output.

A fold may only equate spellings of the same text, never two different
characters: a fold that let ``r2`` find ``r²`` lets an edit land on a line the
model never saw. So the key is the line in Unicode's canonical composition
(NFC: ``é`` and ``e`` + combining acute are one character spelled two ways),
without trailing whitespace (invisible in what the model copied), and with
typographic quotes made straight: the one deliberate exception, kept because
models copy U+2019 as ``'`` and every other character of the line must still
match (as Claude Code's Edit tool does). Compatibility forms (NFKC:
superscripts, ligatures, fractions, full-width letters), dashes, ellipses and
no-break spaces are different characters and are not folded.

Leading whitespace is kept exactly: indentation is meaning in Python, YAML and
Makefiles, and folding it would let an edit land at the wrong nesting level.
The folded text is only ever compared; what is written comes from the
original lines and the model's new text.
"""

from __future__ import annotations

import unicodedata

__all__ = ["fold_line"]

_QUOTES = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019", "'"),
        **dict.fromkeys("\u201c\u201d", '"'),
    }
)


def fold_line(line: str) -> str:
    """The comparison key of one line (without its terminator)."""
    body = line.lstrip()
    indent = line[: len(line) - len(body)]
    folded = unicodedata.normalize("NFC", body).translate(_QUOTES)
    return indent + folded.rstrip()
