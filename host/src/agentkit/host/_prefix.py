"""Finding where a grown transcript starts to differ from the one seen last turn."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def common_prefix(seen: list[Any], current: Sequence[Any], start: int = 0) -> int:
    """How many leading items of ``current`` are the items of ``seen``.

    The usual case, a transcript that grew, is one list comparison done in C
    (identical items compare equal without calling ``__eq__``).

    :param start: how many leading items the caller knows to be the same
        (a :class:`~agentkit.plugin_api.codec.Transcript` line's promise): only
        the items after them are compared.
    """
    if len(seen) <= len(current):
        head = current[start : len(seen)]  # a list when ``current`` is one: no second copy
        if (head if isinstance(head, list) else list(head)) == (seen[start:] if start else seen):
            return len(seen)
    same = start
    for old, new in zip(seen[start:], current[start:], strict=False):
        if old is not new:
            break
        same += 1
    return same
