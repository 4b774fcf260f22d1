"""The native backend: the same contract as ripgrep's, in Python, over the ignore engine's file set.

The pattern is translated from ripgrep's dialect (:func:`.dialect.translate`)
and matched on each file's bytes decoded with ``surrogateescape``: a byte that
is not UTF-8 stays a byte that no character class matches, as in ripgrep. A
line is shown as ripgrep shows it, with such bytes replaced by U+FFFD.

A file whose text is all ASCII (most source code) is matched with the
translation made for such texts (:attr:`.dialect.Translation.ascii_regex`),
which Python's ``re`` runs many times faster; the others with the one exact
for every character. Both give the same lines on an ASCII text.
"""

from __future__ import annotations

import re

from agentkit.plugin_api.workspace import WalkedFiles

from .dialect import translate
from .query import Match, Outcome, Query, TooLarge, line_text, read_listed

__all__ = ["NativeScanner", "search_native", "shown"]


def shown(line: str) -> str:
    """A line decoded with ``surrogateescape`` as ripgrep's answer shows it (U+FFFD for bad bytes)."""
    if line.isascii():
        return line
    return line.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


class NativeScanner:
    """The pattern translated and compiled once, to scan files one by one into an :class:`Outcome`.

    :raises dialect.PatternError: the pattern is not in the dialect.
    :raises dialect.UntranslatablePattern: only ripgrep can match it.
    """

    def __init__(self, query: Query) -> None:
        self.query = query
        translation = translate(query.pattern, query.ignore_case)
        self.regex = translation.compile(query.ignore_case)
        self.ascii_regex = translation.compile(query.ignore_case, ascii_text=True)
        # \A and \z mean something else for a whole file than for one line: no whole-file prefilter.
        self.prefilter = not translation.text_anchors

    def scan(self, relative: str, data: bytes, outcome: Outcome) -> bool:
        """Count ``relative`` as searched and add its matches, up to one past the page's need;
        whether it was text (a file holding a NUL is binary: searched for its NUL, never shown)."""
        outcome.files_searched += 1
        if b"\x00" in data:
            return False
        text = data.decode("utf-8", errors="surrogateescape")
        regex = self.ascii_regex
        if not text.isascii():
            regex = self.regex
            outcome.unicode_files += 1
        _scan(relative, text, self.query, regex, self.prefilter, outcome)
        return True

    def read_and_scan(self, files: WalkedFiles, relative: str, outcome: Outcome) -> tuple[bytes, bool] | None:
        """Read one listed file through ``files`` and scan it; its bytes and whether it was text,
        or None when it is left unread.

        A file that vanished, or whose way was swapped for a link since the walk listed it, is
        left unread; so is one grown past ``query.max_file_bytes`` (noted in ``outcome.oversize``).
        """
        try:
            data = read_listed(files, relative, self.query.max_file_bytes)
        except OSError:
            return None
        except TooLarge as exc:
            outcome.oversize.append((relative, exc.size))
            return None
        if data is None:
            return None
        return data, self.scan(relative, data, outcome)


def search_native(query: Query) -> Outcome:
    """Scan ``query.files`` in order and return every matching line with its context.

    Files are opened through :class:`WalkedFiles`: a directory on the way that
    was swapped for a link since the walk listed it leaves the file unread.

    :raises dialect.PatternError: the pattern is not in the dialect.
    :raises dialect.UntranslatablePattern: only ripgrep can match it.
    """
    scanner = NativeScanner(query)
    outcome = Outcome(backend="native")
    with WalkedFiles(query.root) as files:
        for relative in query.files:
            if scanner.read_and_scan(files, relative, outcome) is not None and len(outcome.matches) > query.needed:
                break
    return outcome


def _scan(
    relative: str,
    text: str,
    query: Query,
    regex: re.Pattern[str],
    prefilter: bool,
    outcome: Outcome,
) -> None:
    if prefilter and regex.search(text) is None:
        return
    context = query.context_lines
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    for index, line in enumerate(lines):
        if regex.search(line) is None:
            continue
        outcome.matches.append(
            Match(
                file=relative,
                line=index + 1,
                text=shown(line_text(line)),
                before=tuple(shown(line_text(x)) for x in lines[max(0, index - context) : index]),
                after=tuple(shown(line_text(x)) for x in lines[index + 1 : index + 1 + context]),
            )
        )
        if len(outcome.matches) > query.needed:
            return  # the page, and the sign that there is more, are complete
