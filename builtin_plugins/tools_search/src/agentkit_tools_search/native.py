"""The native backend: the same contract as ripgrep's, in Python, over the ignore engine's file set."""

from __future__ import annotations

import re

from agentkit_tools_files.directory import WalkedFiles

from .query import Match, Outcome, Query, line_text

__all__ = ["search_native"]

# Anchors that mean something different for a whole file than for one line:
# with them the whole-file prefilter could miss a line, so it is skipped.
_WHOLE_TEXT_ANCHORS = ("\\A", "\\Z", "\\z")


def search_native(query: Query) -> Outcome:
    """Scan ``query.files`` in order and return every matching line with its context.

    Files are opened through :class:`WalkedFiles`: a directory on the way that
    was swapped for a link since the walk listed it leaves the file unread.
    """
    regex = query.compile()
    prefilter = not any(anchor in query.pattern for anchor in _WHOLE_TEXT_ANCHORS)
    outcome = Outcome(backend="native")
    with WalkedFiles(query.root) as files:
        for relative in query.files:
            try:
                data = files.read(relative)
            except OSError:
                continue
            if data is None or b"\x00" in data:
                continue
            outcome.files_searched += 1
            _scan(
                relative, data.decode("utf-8", errors="replace"), query, regex, prefilter, outcome
            )
            if len(outcome.matches) > query.needed:
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
                text=line_text(line),
                before=tuple(line_text(x) for x in lines[max(0, index - context) : index]),
                after=tuple(line_text(x) for x in lines[index + 1 : index + 1 + context]),
            )
        )
