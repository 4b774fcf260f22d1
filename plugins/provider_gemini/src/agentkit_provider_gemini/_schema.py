"""A tool's JSON Schema -> what Gemini's ``parametersJsonSchema`` accepts.

Gemini takes tool parameters in two forms: ``parameters`` (its own OpenAPI
3.0 ``Schema`` subset, upper-case types, no ``additionalProperties``) and
``parametersJsonSchema`` (a JSON Schema subset). We send the second: it keeps
``additionalProperties``, ``anyOf``, ``$ref``/``$defs``, ``type: "null"`` and
type lists, ``enum``, ``const``, ``format``, numeric and length bounds and
``prefixItems`` as they are, so almost every schema passes through unchanged.

What is dropped, wherever a schema appears (never inside ``properties``
names, ``enum``/``const`` values or ``required`` lists):

* ``$schema``, ``$id``, ``$comment``: metadata about the schema document,
  which the API does not read.
* ``examples``: an annotation outside the documented subset.

``default`` is kept: the API's ``Schema`` lists it ("Default value of the
field ... included here and ignored so that developers who send schemas with a
default field don't get unknown-field errors", ai.google.dev/api/caching#Schema),
and a model reads it as a hint of the value to use when it has none better.

A schema that is not an object at the top (``{}``, or ``true``) becomes
``{"type": "object"}``: the API requires an object of parameters.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Keywords removed from every schema position.
DROPPED_KEYWORDS = frozenset({"$schema", "$id", "$comment", "examples"})

# Keywords whose value is a schema, a list of schemas, or a map of name -> schema.
_SCHEMA = frozenset(
    {"items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else"}
)
_SCHEMA_LIST = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
_SCHEMA_MAP = frozenset({"properties", "$defs", "definitions", "patternProperties"})


def parameters_schema(schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """The ``parametersJsonSchema`` sent for a tool whose input schema is ``schema``."""
    cleaned = _clean(schema) if isinstance(schema, Mapping) else {}
    if not isinstance(cleaned, dict) or not cleaned:
        return {"type": "object"}
    if "type" not in cleaned and "properties" in cleaned:
        cleaned = {"type": "object", **cleaned}
    return cleaned


def response_schema(schema: Mapping[str, Any]) -> Any:
    """The ``responseJsonSchema`` sent for an output schema: cleaned like a tool's, any type at the top."""
    return _clean(schema)


def _clean(value: Any) -> Any:
    """One schema position: drop what the API refuses, recurse into sub-schemas."""
    if not isinstance(value, Mapping):
        return _plain(value)  # a boolean schema
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key in DROPPED_KEYWORDS:
            continue
        if key in _SCHEMA:
            out[key] = _clean(item)
        elif key in _SCHEMA_LIST and isinstance(item, (list, tuple)):
            out[key] = [_clean(sub) for sub in item]
        elif key in _SCHEMA_MAP and isinstance(item, Mapping):
            out[key] = {name: _clean(sub) for name, sub in item.items()}
        else:
            out[key] = _plain(item)
    return out


def _plain(value: Any) -> Any:
    """A JSON value of plain dicts and lists (a schema may hold other mappings)."""
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value
