"""The rules a tool's ``input_schema`` must keep so that every wire can send it.

Each provider forwards a tool's JSON Schema to its vendor, and each vendor
refuses some schemas that JSON Schema itself allows (the request fails with a
400, and the whole turn with it). These are the rules of the wires agentkit
ships (Anthropic Messages, OpenAI Chat Completions and Responses), kept in
one place so the conformance suite, the docs and a future wire agree:

``top-level-object``
    The root is ``{"type": "object", ...}`` with no ``anyOf``/``oneOf``/
    ``allOf``/``not``/``enum`` beside it. OpenAI rejects a root combinator;
    Anthropic requires ``type: object`` at the root.
``json``
    The schema is plain JSON (dicts, lists, strings, numbers, booleans, null):
    it is serialized as is into every request.
``property-names``
    Property names match ``^[a-zA-Z0-9_.-]{1,64}$`` (Anthropic's rule for
    ``input_schema`` keys).
``required-exists``
    Every name in ``required`` is a key of ``properties`` (OpenAI and Gemini
    refuse the other way round).
``array-items``
    Every ``"type": "array"`` schema says what its ``items`` are (OpenAI
    rejects "array schema missing items").
``local-refs``
    A ``$ref`` points inside the schema (``#/$defs/...`` or
    ``#/definitions/...``) and resolves; no wire fetches a remote schema.

OpenAI's *strict* mode (all properties required, ``additionalProperties:
false``) is stricter still; the OpenAI provider applies it only when asked,
to a rewritten copy of the schema, so it is not a rule here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

PROPERTY_NAME = re.compile(r"^[a-zA-Z0-9_.-]{1,64}$")
_ROOT_COMBINATORS = ("anyOf", "oneOf", "allOf", "not", "enum")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")
_SUBSCHEMA_ONE = ("items", "not", "additionalProperties", "contains", "if", "then", "else")

#: Rule name -> one line on why it exists, for reports and docs.
RULES: dict[str, str] = {
    "top-level-object": 'the root must be {"type": "object"} without anyOf/oneOf/allOf/not/enum beside it',
    "json": "the schema must be plain JSON (dict, list, str, int, float, bool, None)",
    "property-names": "property names must match ^[a-zA-Z0-9_.-]{1,64}$",
    "required-exists": "every name in 'required' must be a key of 'properties'",
    "array-items": "every array schema must say what its 'items' are",
    "local-refs": "every $ref must point inside the schema (#/$defs/...) and resolve",
}


def schema_problems(schema: Any) -> list[tuple[str, str]]:
    """The broken rules of ``schema`` as ``(rule, where and what)``; empty when sendable."""
    problems: list[tuple[str, str]] = []
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return [("top-level-object", 'the root is not {"type": "object", ...}')]
    for key in _ROOT_COMBINATORS:
        if key in schema:
            problems.append(("top-level-object", f"the root has {key!r}; move alternatives into a property"))
    where = _non_json(schema, "#")
    if where:
        problems.append(("json", f"{where} is not a JSON value"))
        return problems
    for path, node in _subschemas(schema, "#"):
        problems.extend(_node_problems(schema, path, node))
    return problems


def _non_json(value: Any, path: str) -> str | None:
    if value is None or isinstance(value, (str, bool, int, float)):
        return None
    if isinstance(value, list):
        for index, item in enumerate(value):
            found = _non_json(item, f"{path}/{index}")
            if found:
                return found
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{path} (key {key!r})"
            found = _non_json(item, f"{path}/{key}")
            if found:
                return found
        return None
    return f"{path} ({type(value).__name__})"


def _subschemas(node: Any, path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    if not isinstance(node, dict):
        return
    yield path, node
    for key in _SUBSCHEMA_MAPS:
        children = node.get(key)
        if isinstance(children, dict):
            for name, child in children.items():
                yield from _subschemas(child, f"{path}/{key}/{name}")
    for key in _SUBSCHEMA_LISTS:
        children = node.get(key)
        if isinstance(children, list):
            for index, child in enumerate(children):
                yield from _subschemas(child, f"{path}/{key}/{index}")
    for key in _SUBSCHEMA_ONE:
        yield from _subschemas(node.get(key), f"{path}/{key}")


def _node_problems(root: dict[str, Any], path: str, node: dict[str, Any]) -> list[tuple[str, str]]:
    problems = []
    properties = node.get("properties")
    if isinstance(properties, dict):
        for name in properties:
            if not PROPERTY_NAME.match(name):
                problems.append(("property-names", f"{path}/properties has the name {name!r}"))
    required = node.get("required")
    if isinstance(required, list):
        known = properties if isinstance(properties, dict) else {}
        for name in required:
            if name not in known:
                problems.append(("required-exists", f"{path} requires {name!r}, which is not in its properties"))
    types = node.get("type")
    is_array = types == "array" or (isinstance(types, list) and "array" in types)
    if is_array and "items" not in node and "prefixItems" not in node:
        problems.append(("array-items", f"{path} is an array without 'items'"))
    ref = node.get("$ref")
    if isinstance(ref, str) and not _resolves(root, ref):
        problems.append(("local-refs", f"{path} has $ref {ref!r}, which does not resolve inside the schema"))
    return problems


def _resolves(root: dict[str, Any], ref: str) -> bool:
    if not ref.startswith("#"):
        return False
    node: Any = root
    for part in ref[1:].split("/")[1:] if ref != "#" else []:
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True
