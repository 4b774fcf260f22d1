"""A bounded map from an object's identity to a value derived from it."""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Generic, TypeVar

_V = TypeVar("_V")


class IdentityCache(Generic[_V]):
    """An LRU map keyed by ``(id(obj), variant)``.

    Each entry holds a strong reference to its object, so the object's id
    cannot be reused by another object while the entry lives. The host sends
    the same message and :class:`~agentkit.plugin_api.ToolSpec` objects on
    every turn and never edits them in place, which is what makes identity a
    sound key.
    """

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._entries: OrderedDict[tuple[int, Any], tuple[Any, _V]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, obj: Any, variant: Any, compute: Callable[..., _V], *args: Any) -> _V:
        """The value for ``(obj, variant)``; ``compute(*args)`` makes it on a miss."""
        value = self.peek(obj, variant)
        if value is not None:
            with contextlib.suppress(KeyError):  # evicted by another thread meanwhile
                self._entries.move_to_end((id(obj), variant))
            return value
        value = compute(*args)
        self.put(obj, variant, value)
        return value

    def peek(self, obj: Any, variant: Any) -> _V | None:
        entry = self._entries.get((id(obj), variant))
        return entry[1] if entry is not None and entry[0] is obj else None

    def put(self, obj: Any, variant: Any, value: _V) -> None:
        key = (id(obj), variant)
        with self._lock:
            self._entries[key] = (obj, value)
            self._entries.move_to_end(key)
            while len(self._entries) > self._limit:
                self._entries.popitem(last=False)
