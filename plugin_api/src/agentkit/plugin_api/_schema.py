"""JSON Schema from a typed Python function's signature and docstring."""

from __future__ import annotations

import builtins
import enum
import inspect
import re
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, Union

_SCALARS: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


class SchemaError(TypeError):
    """A function's signature cannot be expressed as a tool schema."""


def schema_for_annotation(annotation: Any) -> dict[str, Any]:
    """The JSON Schema of one parameter annotation."""
    if annotation in _SCALARS:
        return {"type": _SCALARS[annotation]}
    if annotation is Any or annotation is inspect.Parameter.empty:
        return {}
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is Literal:
        return {"enum": list(args)}
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return {"enum": [member.value for member in annotation]}
    if origin in (list, tuple, set, frozenset) or annotation in (list, tuple):
        schema: dict[str, Any] = {"type": "array"}
        if args and args[0] is not Ellipsis:
            schema["items"] = schema_for_annotation(args[0])
        return schema
    if origin is dict or annotation is dict:
        return {"type": "object"}
    if origin in (Union, types.UnionType):
        members = [arg for arg in args if arg is not type(None)]
        if len(members) == 1:
            return schema_for_annotation(members[0])
        return {"anyOf": [schema_for_annotation(member) for member in members]}
    if typing.is_typeddict(annotation):
        hints = typing.get_type_hints(annotation)
        required = sorted(getattr(annotation, "__required_keys__", hints))
        return {
            "type": "object",
            "properties": {key: schema_for_annotation(value) for key, value in hints.items()},
            "required": required,
        }
    raise SchemaError(f"cannot express {annotation!r} as JSON Schema")


def _without_none(annotation: Any) -> Any:
    if typing.get_origin(annotation) in (Union, types.UnionType):
        members = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        if len(members) == 1:
            return members[0]
    return annotation


#: What each pattern below needs to find anything: a docstring with none of them is all description.
_SECTION_MARKERS = (":param", ":return", "Args:", "Arguments:", "Parameters:", "Returns:")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a docstring into its description and per-parameter text.

    Understands ``:param name: text`` (Sphinx) and an ``Args:`` section
    (Google style).
    """
    text = inspect.cleandoc(doc or "")
    params: dict[str, str] = {}
    if not any(marker in text for marker in _SECTION_MARKERS):  # a plain description: nothing to parse
        return text.strip(), params
    for match in re.finditer(r"^:param\s+(?:\S+\s+)?(\w+):\s*(.+(?:\n(?!:)\s+.+)*)", text, re.M):
        params[match.group(1)] = " ".join(match.group(2).split())
    section = re.search(r"^(?:Args|Arguments|Parameters):\s*\n((?:[ \t]+.*\n?)+)", text, re.M)
    if section:
        current = None
        for line in section.group(1).splitlines():
            item = re.match(r"\s+(\w+)(?:\s*\([^)]*\))?:\s*(.*)", line)
            if item and (current is None or len(line) - len(line.lstrip()) <= 4):
                current = item.group(1)
                params[current] = item.group(2).strip()
            elif current and line.strip():
                params[current] = f"{params[current]} {line.strip()}"
    description = re.split(r"^(?::param|:returns?|Args:|Arguments:|Parameters:|Returns:)", text, maxsplit=1, flags=re.M)[0]
    return description.strip(), params


def schema_from_function(
    function: Callable[..., Any], *, context_type: type | None = None
) -> tuple[dict[str, Any], str, str | None]:
    """Build ``(schema, description, context_parameter)`` for ``function``.

    Parameters without a default are required; each property is described by
    its docstring entry. A parameter annotated ``context_type`` is left out of
    the schema and its name returned so the caller can pass the context.
    """
    signature = inspect.signature(function)
    hints = type_hints(function)
    description, param_docs = parse_docstring(function.__doc__)
    properties: dict[str, Any] = {}
    required: list[str] = []
    context_param = None
    for name, parameter in signature.parameters.items():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise SchemaError(f"{function.__name__}: *{name} cannot be a tool argument")
        annotation = hints.get(name, parameter.annotation)
        if context_type is not None and _without_none(annotation) is context_type:
            context_param = name
            continue
        schema = schema_for_annotation(annotation)
        if name in param_docs:
            schema["description"] = param_docs[name]
        if parameter.default is inspect.Parameter.empty:
            required.append(name)
        elif parameter.default is not None and isinstance(parameter.default, (str, int, float, bool)):
            schema["default"] = parameter.default
        properties[name] = schema
    schema = {"type": "object", "properties": properties, "required": required}
    return schema, description, context_param


#: The builtin classes a parameter is most often annotated with, by name.
_BUILTIN_CLASSES = {cls.__name__: cls for cls in (int, str, float, bool, bytes)}


def type_hints(function: Callable[..., Any]) -> dict[str, Any]:
    """``typing.get_type_hints(function)``, without compiling an annotation that names a builtin class.

    Under ``from __future__ import annotations`` every annotation is a string, and ``get_type_hints``
    compiles and evaluates each (0.1 M instructions a first use, bench/_first_use.py under callgrind). A
    string naming one of :data:`_BUILTIN_CLASSES`, which neither the function's module nor its builtins
    rebind, evaluates to that class; any other annotation, or a wrapped function, is left to ``typing``.
    """
    annotations = getattr(function, "__annotations__", None)
    if type(function) is types.FunctionType and type(annotations) is dict and not hasattr(function, "__wrapped__"):
        scope = function.__globals__
        held = scope.get("__builtins__")
        if held is builtins or held is _BUILTINS:
            hints = {}
            for name, value in annotations.items():
                found = _BUILTIN_CLASSES.get(value) if value.__class__ is str else None
                if found is None or value in scope or _BUILTINS.get(value) is not found:
                    break
                hints[name] = found
            else:
                return hints
    return typing.get_type_hints(function)


_BUILTINS = vars(builtins)
