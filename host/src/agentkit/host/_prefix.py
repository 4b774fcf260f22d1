"""Finding where a grown transcript starts to differ from the one seen last turn."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def common_prefix(seen: list[Any], current: Sequence[Any]) -> int:
    """How many leading items of ``current`` are the items of ``seen``.

    The usual case, a transcript that grew, is one list comparison done in C
    (identical items compare equal without calling ``__eq__``).
    """
    if len(seen) <= len(current):
        head = current[: len(seen)]  # a list when ``current`` is one: no second copy
        if (head if isinstance(head, list) else list(head)) == seen:
            return len(seen)
    same = 0
    for old, new in zip(seen, current, strict=False):
        if old is not new:
            break
        same += 1
    return same
