"""The rule set a tool schema must keep for every wire, one case per rule."""

from __future__ import annotations

import pytest

from agentkit.conformance.schema_rules import RULES, schema_problems

GOOD = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "lines": {"type": "array", "items": {"type": "integer"}},
        "mode": {"$ref": "#/$defs/mode"},
    },
    "required": ["path"],
    "$defs": {"mode": {"enum": ["r", "w"]}},
}


def test_a_sendable_schema_breaks_no_rule():
    assert schema_problems(GOOD) == []


@pytest.mark.parametrize(
    ("schema", "rule"),
    [
        ({"type": "array", "items": {}}, "top-level-object"),
        ({"type": "object", "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}, "top-level-object"),
        ({"type": "object", "properties": {"p": {"default": {1, 2}}}}, "json"),
        ({"type": "object", "properties": {"has space": {"type": "string"}}}, "property-names"),
        ({"type": "object", "properties": {"a": {}}, "required": ["b"]}, "required-exists"),
        ({"type": "object", "properties": {"xs": {"type": ["array", "null"]}}}, "array-items"),
        ({"type": "object", "properties": {"deep": {"type": "object", "properties": {"xs": {"type": "array"}}}}},
         "array-items"),
        ({"type": "object", "properties": {"m": {"$ref": "#/$defs/missing"}}}, "local-refs"),
        ({"type": "object", "properties": {"m": {"$ref": "https://example.com/schema.json"}}}, "local-refs"),
    ],
)
def test_each_rule_catches_what_a_wire_refuses(schema, rule):
    assert rule in RULES
    assert rule in [found for found, _ in schema_problems(schema)]
