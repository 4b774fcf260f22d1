"""Checking a JSON value against the request types a vendor SDK declares (``TypedDict`` and kin).

Public through :func:`agentkit.conformance.codec.shape_problems`.
"""

from __future__ import annotations

import collections.abc
import types
import typing
from typing import Any

# Vendor SDKs declare their request types with typing_extensions' forms when it is installed.
_TYPING: tuple[Any, ...] = (typing,)
try:
    import typing_extensions
except ImportError:  # pragma: no cover - the typing module's forms are checked alone
    pass
else:
    _TYPING += (typing_extensions,)


def _forms(name: str) -> tuple[Any, ...]:
    """The special form ``name`` as ``typing`` and ``typing_extensions`` spell it."""
    return tuple(getattr(module, name) for module in _TYPING)


def _is_typeddict(annotation: Any) -> bool:
    return any(module.is_typeddict(annotation) for module in _TYPING)


def shape_problems(value: Any, annotation: Any, path: str = "$") -> list[str]:
    """Where the JSON ``value`` departs from ``annotation``, a request type as SDKs declare them.

    For comparing an encoded body with a vendor SDK's ``TypedDict`` parameter
    types, stricter than the SDK's own (lazy, extra-tolerant) typing: every key
    must be declared, every ``Required`` key present, every literal exact (in
    type too: ``1`` is not ``True``), and lists are checked item by item. Each
    problem names its place (``$.messages[0].role``); none means it fits.
    Raises :class:`NotImplementedError` for an annotation it cannot check.
    """
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation in (Any, object):
        return []
    if origin in _forms("Annotated"):
        return shape_problems(value, args[0], path)
    if origin in (typing.Union, types.UnionType):
        attempts = [shape_problems(value, member, path) for member in args]
        if any(not problems for problems in attempts):
            return []
        return [f"{path}: fits no member of the union ({min(attempts, key=len)[0]})"]
    if origin in _forms("Literal"):
        exact = value in args and type(value) in {type(arg) for arg in args}
        return [] if exact else [f"{path}: {value!r} not in {args}"]
    if annotation is type(None):
        return [] if value is None else [f"{path}: expected null"]
    if _is_typeddict(annotation):
        return _typeddict_problems(value, annotation, path)
    if origin in (collections.abc.Iterable, collections.abc.Sequence, list):
        if not isinstance(value, list):
            return [f"{path}: expected an array"]
        return [
            problem
            for index, item in enumerate(value)
            for problem in shape_problems(item, args[0], f"{path}[{index}]")
        ]
    if origin in (dict, collections.abc.Mapping) or annotation is dict:
        return [] if isinstance(value, dict) else [f"{path}: expected an object"]
    if annotation is float:
        number = isinstance(value, int | float) and not isinstance(value, bool)
        return [] if number else [f"{path}: expected a number"]
    if isinstance(annotation, type):
        fits = isinstance(value, annotation) and not (annotation is int and isinstance(value, bool))
        return [] if fits else [f"{path}: expected {annotation.__name__}"]
    raise NotImplementedError(f"{path}: cannot check against {annotation!r}")


def _typeddict_problems(value: Any, annotation: Any, path: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{path}: expected an object"]
    hints = typing.get_type_hints(annotation, include_extras=True)
    problems = [f"{path}.{key}: not a declared field" for key in value if key not in hints]
    for key, hint in hints.items():
        wrapper = typing.get_origin(hint)
        required = wrapper in _forms("Required")
        if wrapper in (*_forms("Required"), *_forms("NotRequired")):
            hint = typing.get_args(hint)[0]
        if key in value:
            problems += shape_problems(value[key], hint, f"{path}.{key}")
        elif required:
            problems.append(f"{path}.{key}: required field missing")
    return problems
