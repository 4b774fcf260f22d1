"""An output type as a JSON Schema, and a JSON value checked back into that type.

``Agent.run(..., output_type=T)`` takes a JSON Schema (a dict), a dataclass,
a ``TypedDict`` or, when pydantic is installed, a pydantic model. The schema
is what the model is asked to produce (the final-answer tool's parameters, or
the wire's native structured-output field); :meth:`OutputType.validate`
checks the model's value against it with jsonschema and builds the ``T``
(a dataclass instance, a model instance, or the plain value for a schema or a
``TypedDict``). Stdlib typing introspection only: pydantic is used when the
caller's type is one, never imported otherwise.
"""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, Union, get_args, get_origin, get_type_hints

from .errors import ConfigError

if TYPE_CHECKING:
    import jsonschema

__all__ = ["OutputInvalid", "OutputType"]


class OutputInvalid(ValueError):
    """The model's output does not fit the output type; the message says where and why."""


_SCALARS: dict[Any, dict[str, Any]] = {
    str: {"type": "string"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
    type(None): {"type": "null"},
    Any: {},
}


class OutputType:
    """One run's output type: its JSON Schema, and how a value becomes a ``T``."""

    def __init__(self, output_type: Any) -> None:
        self.type = output_type
        self.schema = _schema_of(output_type)
        import jsonschema  # an output type always needs it; a run without one never loads it

        try:
            jsonschema.Draft202012Validator.check_schema(self.schema)
        except jsonschema.SchemaError as exc:
            raise ConfigError(f"output_type is not a valid JSON Schema: {exc.message}") from exc
        self._validator = jsonschema.Draft202012Validator(self.schema)

    @property
    def name(self) -> str:
        """What the type is called: the class's name, or a schema's ``title``."""
        if isinstance(self.type, Mapping):
            return str(self.type.get("title") or "output")
        return getattr(self.type, "__name__", "output")

    def validate(self, value: Any) -> Any:
        """``value`` (decoded JSON) as a ``T``.

        :raises OutputInvalid: it does not fit the schema (naming the path and the problem).
        """
        errors = sorted(self._validator.iter_errors(value), key=lambda error: list(error.absolute_path))
        if errors:
            raise OutputInvalid("; ".join(_describe(error) for error in errors[:5]))
        if _is_pydantic(self.type):
            try:
                return self.type.model_validate(value)
            except ValueError as exc:  # pydantic's ValidationError is a ValueError
                raise OutputInvalid(str(exc)) from exc
        return _build(self.type, value)


def _describe(error: jsonschema.ValidationError) -> str:
    path = "/".join(str(part) for part in error.absolute_path)
    return f"at {path or 'the top level'}: {error.message}"


def _is_pydantic(kind: Any) -> bool:
    pydantic = sys.modules.get("pydantic")  # imported by the caller if T is a model; never by us
    return pydantic is not None and isinstance(kind, type) and issubclass(kind, pydantic.BaseModel)


def _is_dataclass(kind: Any) -> bool:
    return isinstance(kind, type) and dataclasses.is_dataclass(kind)


def _is_typeddict(kind: Any) -> bool:
    return isinstance(kind, type) and issubclass(kind, dict) and hasattr(kind, "__required_keys__")


def _schema_of(kind: Any) -> dict[str, Any]:
    if isinstance(kind, Mapping):
        return dict(kind)
    if _is_pydantic(kind):
        return dict(kind.model_json_schema())
    if _is_dataclass(kind) or _is_typeddict(kind):
        return _object_schema(kind)
    raise ConfigError(
        f"output_type must be a JSON Schema (a dict), a dataclass, a TypedDict or a pydantic model, "
        f"got {kind!r}"
    )


def _object_schema(kind: type) -> dict[str, Any]:
    try:
        hints = get_type_hints(kind, include_extras=True)
    except Exception as exc:  # a string annotation naming something its module does not define
        raise ConfigError(f"output_type {kind.__name__}: its annotations cannot be resolved "
                          f"({type(exc).__name__}: {exc}); define the types it names at module level") from exc
    if dataclasses.is_dataclass(kind):
        fields = [item for item in dataclasses.fields(kind) if item.init]
        names = [item.name for item in fields]
        required = [item.name for item in fields if item.default is dataclasses.MISSING
                    and item.default_factory is dataclasses.MISSING]
    else:
        names = list(hints)
        required = [name for name in names if _is_required(hints[name], kind)]
    return {
        "type": "object",
        "title": kind.__name__,
        "properties": {name: _annotation_schema(hints[name], kind) for name in names},
        "required": required,
        "additionalProperties": False,
    }


def _is_required(hint: Any, kind: Any) -> bool:
    # Read from the hints, not __required_keys__: under ``from __future__ import annotations``
    # a TypedDict cannot see its own NotRequired markers.
    origin = get_origin(hint)
    if origin is typing.Required:
        return True
    if origin is typing.NotRequired:
        return False
    return bool(getattr(kind, "__total__", True))


def _annotation_schema(hint: Any, owner: type) -> dict[str, Any]:
    if hint in _SCALARS:
        return dict(_SCALARS[hint])
    origin, args = get_origin(hint), get_args(hint)
    if origin in (typing.Required, typing.NotRequired, typing.Annotated):
        return _annotation_schema(args[0], owner)
    if origin is Literal:
        return {"enum": list(args)}
    if origin in (Union, types.UnionType):
        return {"anyOf": [_annotation_schema(arg, owner) for arg in args]}
    if origin in (list, tuple, set, frozenset) or hint in (list, tuple, set):
        homogeneous = args[1:] == (Ellipsis,) if origin is tuple else bool(args)
        if homogeneous:
            return {"type": "array", "items": _annotation_schema(args[0], owner)}
        if origin is tuple and args:
            return {"type": "array", "prefixItems": [_annotation_schema(arg, owner) for arg in args],
                    "minItems": len(args), "maxItems": len(args)}
        return {"type": "array"}
    if origin is dict or hint is dict:
        return {"type": "object", "additionalProperties": _annotation_schema(args[1], owner) if args else {}}
    if _is_dataclass(hint) or _is_typeddict(hint):
        return _object_schema(hint)
    if _is_pydantic(hint):
        return dict(hint.model_json_schema())
    raise ConfigError(f"output_type {owner.__name__}: the annotation {hint!r} has no JSON Schema here; "
                      "use str, int, float, bool, None, Literal, unions, lists, dicts, dataclasses or "
                      "TypedDicts, or pass a JSON Schema")


def _build(kind: Any, value: Any) -> Any:
    """``value`` (already valid against ``kind``'s schema) as a ``kind``: dataclasses built, the rest kept."""
    if _is_dataclass(kind) and isinstance(value, dict):
        hints = get_type_hints(kind)
        return kind(**{name: _build(hints[name], item) for name, item in value.items()})
    if _is_pydantic(kind):
        return kind.model_validate(value)
    if _is_typeddict(kind) and isinstance(value, dict):
        hints = get_type_hints(kind)
        return {name: _build(hints[name], item) if name in hints else item for name, item in value.items()}
    origin, args = get_origin(kind), get_args(kind)
    if origin in (typing.Required, typing.NotRequired):
        return _build(args[0], value)
    if origin is list and args and isinstance(value, list):
        return [_build(args[0], item) for item in value]
    if origin is tuple and isinstance(value, list):
        return tuple(value)
    if origin is dict and len(args) == 2 and isinstance(value, dict):
        return {key: _build(args[1], item) for key, item in value.items()}
    if origin in (Union, types.UnionType):
        for arg in args:  # the first member the value fits
            if _fits(arg, value):
                return _build(arg, value)
    return value


def _fits(kind: Any, value: Any) -> bool:
    try:
        schema = _annotation_schema(kind, type(None))
    except ConfigError:
        return False
    import jsonschema

    return jsonschema.Draft202012Validator(schema).is_valid(value)
