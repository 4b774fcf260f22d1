"""Checking that a tool's schema is valid JSON Schema, without loading jsonschema for a plain one.

jsonschema (with referencing, rpds and attrs under it) is the largest part of
what building a first agent imports, yet most tool schemas are an object of a
few typed properties. :func:`schema_problem` answers for such a schema by
looking at it, and hands every other schema to jsonschema's Draft 2020-12
meta-schema check, which decides and words the error. The quick look is
conservative: it says "valid" only for schemas the meta-schema accepts (a
differential test holds it to that), so a schema is refused exactly when it
was refused before.
"""

from __future__ import annotations

from typing import Any

__all__ = ["schema_problem"]

_TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})
_STRING_KEYWORDS = frozenset({"title", "description", "$comment"})
_BOOLEAN_KEYWORDS = frozenset({"deprecated", "readOnly", "writeOnly", "uniqueItems"})
_NUMBER_KEYWORDS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})
_COUNT_KEYWORDS = frozenset({"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"})
_SCHEMA_KEYWORDS = frozenset({"additionalProperties", "items"})


def _plainly_valid(schema: Any, depth: int = 0) -> bool:
    """Whether ``schema`` is surely valid under the Draft 2020-12 meta-schema; ``False`` means "ask jsonschema"."""
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict) or depth > 32:
        return False
    for keyword, value in schema.items():
        if keyword == "type":
            if not (isinstance(value, str) and value in _TYPES):
                return False
        elif keyword == "properties":
            if not isinstance(value, dict):
                return False
            for name, subschema in value.items():
                if not isinstance(name, str) or not _plainly_valid(subschema, depth + 1):
                    return False
        elif keyword == "required":
            if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
                return False
            if len(set(value)) != len(value):  # the meta-schema wants the names unique
                return False
        elif keyword in _SCHEMA_KEYWORDS:
            if not _plainly_valid(value, depth + 1):
                return False
        elif keyword in _STRING_KEYWORDS:
            if not isinstance(value, str):
                return False
        elif keyword in _BOOLEAN_KEYWORDS:
            if not isinstance(value, bool):
                return False
        elif keyword in _NUMBER_KEYWORDS:
            if type(value) is not int and type(value) is not float:
                return False
        elif keyword in _COUNT_KEYWORDS:
            if type(value) is not int or value < 0:  # 2.0 is a count to jsonschema too: it decides that one
                return False
        elif keyword in ("enum", "examples"):
            if not isinstance(value, list):
                return False
        elif keyword != "default" and keyword != "const":  # these may be anything
            return False
    return True


def schema_problem(schema: Any) -> str | None:
    """Why ``schema`` is not valid Draft 2020-12 JSON Schema (jsonschema's words), or ``None`` when it is."""
    if _plainly_valid(schema):
        return None
    import jsonschema  # only a schema beyond the plain ones pays for it

    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return str(exc.message)
    return None
