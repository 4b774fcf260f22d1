"""The test kit: ``agentkit.conformance.codec`` bound to this wire, a chunk builder, and a
checker of request shapes against the ``openai`` SDK's declared types."""

from __future__ import annotations

import collections.abc
import types
import typing
from typing import Any

import pytest
import typing_extensions
from agentkit_provider_openai import OpenAICompletions

from agentkit.conformance import codec
from agentkit.plugin_api import WireEvent


def chunk(
    delta: dict[str, Any] | None = None, *, finish: str | None = None, **top: Any
) -> WireEvent:
    """One streamed ``chat.completion.chunk`` as a wire event."""
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    data = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "m", "choices": choices}
    data.update(top)
    return WireEvent(data=data)


def shape_problems(value: Any, annotation: Any, path: str = "$") -> list[str]:
    """Where ``value`` departs from a request type the ``openai`` SDK declares.

    Stricter than the SDK's own (lazy, extra-tolerant) typing: every key must
    be declared, every ``Required`` key present, every literal exact, and
    iterables are checked element by element.
    """
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation in (Any, object):
        return []
    if origin in (typing.Annotated, typing_extensions.Annotated):
        return shape_problems(value, args[0], path)
    if origin in (typing.Union, types.UnionType):
        attempts = [shape_problems(value, member, path) for member in args]
        if any(not problems for problems in attempts):
            return []
        return [f"{path}: fits no member of the union ({min(attempts, key=len)[0]})"]
    if origin in (typing.Literal, typing_extensions.Literal):
        return (
            []
            if value in args and type(value) in {type(arg) for arg in args}
            else [f"{path}: {value!r} not in {args}"]
        )
    if annotation is type(None):
        return [] if value is None else [f"{path}: expected null"]
    if typing_extensions.is_typeddict(annotation):
        if not isinstance(value, dict):
            return [f"{path}: expected an object"]
        hints = typing.get_type_hints(annotation, include_extras=True)
        problems = [f"{path}.{key}: not a declared field" for key in value if key not in hints]
        for key, hint in hints.items():
            required = typing.get_origin(hint) in (typing.Required, typing_extensions.Required)
            inner = (
                typing.get_args(hint)[0]
                if typing.get_origin(hint)
                in (
                    typing.Required,
                    typing.NotRequired,
                    typing_extensions.Required,
                    typing_extensions.NotRequired,
                )
                else hint
            )
            if key in value:
                problems += shape_problems(value[key], inner, f"{path}.{key}")
            elif required:
                problems.append(f"{path}.{key}: required field missing")
        return problems
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
        return (
            []
            if isinstance(value, int | float) and not isinstance(value, bool)
            else [f"{path}: expected a number"]
        )
    if isinstance(annotation, type):
        return (
            []
            if isinstance(value, annotation) and not (annotation is int and isinstance(value, bool))
            else [f"{path}: expected {annotation.__name__}"]
        )
    raise NotImplementedError(f"{path}: cannot check against {annotation!r}")


@pytest.fixture(scope="session")
def kit() -> codec.ProviderKit:
    """The helpers, for test modules (which cannot import each other)."""
    return codec.ProviderKit(
        OpenAICompletions, "openai/gpt-4o-mini", chunk=chunk, shape_problems=shape_problems
    )
