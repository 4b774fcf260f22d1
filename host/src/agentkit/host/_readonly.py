"""Deep, read-only copies of JSON values, for what a hook may read but never change.

A hook gets a copy, so even a write that goes around the guard
(``dict.__setitem__(view, ...)``) changes nothing the host uses; and the copy
refuses writes, so a hook that tries learns it at once instead of believing
it rewrote a call. The copies are still a ``dict`` and a ``list``:
``json.dumps``, ``isinstance`` and reading work as on the original, and
``copy.deepcopy`` gives back an ordinary, mutable copy.
"""

from __future__ import annotations

from typing import Any, NoReturn

READ_ONLY = (
    "the arguments a hook receives are read-only: a hook can refuse a call (return Block), never change it"
)


class ReadOnlyError(TypeError):
    """A hook tried to change what it was given to read."""


def _refuse(self: object, *args: object, **kwargs: object) -> NoReturn:
    raise ReadOnlyError(READ_ONLY)


class ReadOnlyDict(dict[Any, Any]):
    """A ``dict`` that refuses every change."""

    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _refuse

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        copy: dict[str, Any] = thaw(self)
        return copy

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (thaw(self),))


class ReadOnlyList(list[Any]):
    """A ``list`` that refuses every change."""

    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = append = clear = extend = insert = pop = remove = _refuse
    reverse = sort = _refuse

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        copy: list[Any] = thaw(self)
        return copy

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (thaw(self),))


def read_only(value: Any) -> Any:
    """A deep copy of ``value`` whose dicts and lists refuse changes."""
    if isinstance(value, dict):
        copy = ReadOnlyDict()
        for key, item in value.items():
            dict.__setitem__(copy, key, read_only(item))
        return copy
    if isinstance(value, list):
        items = ReadOnlyList()
        list.extend(items, (read_only(item) for item in value))
        return items
    if isinstance(value, tuple):
        return tuple(read_only(item) for item in value)
    return value


def thaw(value: Any) -> Any:
    """An ordinary, mutable deep copy of ``value``."""
    if isinstance(value, dict):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, list):
        return [thaw(item) for item in value]
    if isinstance(value, tuple):
        return tuple(thaw(item) for item in value)
    return value
