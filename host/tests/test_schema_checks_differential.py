"""A tool's schema and arguments are judged exactly as jsonschema judges them, whether or not it is loaded.

A plain schema (an object of typed properties) is checked without importing
jsonschema, at registration and for arguments the quick check vouches for;
every other schema, and every argument the quick check is unsure of, goes to
jsonschema. These tests hold both paths to jsonschema's own verdicts and
words: the same schemas refused with the same message, the same arguments
refused with the same errors, over schemas with and without the keywords
only jsonschema knows.
"""

from __future__ import annotations

import json

import jsonschema
from agentkit_provider_faux import Turn, text, tool_call
from host_helpers import ToolsPlugin, make_agent, make_host
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agentkit.plugin_api import Tool, ToolResultMessage, hookimpl

TYPES = ["string", "integer", "number", "boolean", "null", "array", "object", "integr", 3, ["integer", "null"],
         ["string", "string"], []]
NAMES = st.sampled_from(["a", "b", "n"])
#: Values of the right and of the wrong JSON (and Python) kind for each keyword.
ODD = st.sampled_from([None, 3, 1.5, True, "x", [], ["a"], ["a", "a"], ("a",), {}, {"type": "string"}])


def _subschemas(children):
    return st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(TYPES),
            "description": st.text(max_size=2) | ODD,
            "title": st.text(max_size=2) | ODD,
            "default": ODD,
            "deprecated": st.booleans() | ODD,
            "enum": st.lists(st.integers(0, 2), max_size=2) | ODD,
            "examples": ODD,
            "minimum": st.integers() | ODD,
            "pattern": st.sampled_from(["^a", "(", 3]),
            "items": children,
            "properties": st.dictionaries(NAMES, children, max_size=2) | ODD,
            "required": st.lists(NAMES, max_size=3) | ODD,
            "additionalProperties": children | ODD,
            "anyOf": st.lists(children, max_size=2) | ODD,
            "$ref": st.just("#/$defs/x"),
            "$comment": st.text(max_size=2) | ODD,
            "x-vendor": ODD,
        },
    )


SUBSCHEMAS = st.recursive(st.booleans() | st.just({}), _subschemas, max_leaves=4)
#: Schemas of only the keywords a plain schema has (what is checked without jsonschema), values right or wrong.
#: Mostly right values, so that both verdicts come often.
PLAIN_SUBSCHEMAS = st.booleans() | st.fixed_dictionaries({}, optional={
    "type": st.sampled_from(TYPES), "description": st.text(max_size=2) | st.just(3), "default": ODD,
    "readOnly": st.booleans() | st.just("yes"), "enum": st.lists(st.integers(0, 2), max_size=2) | st.just("x"),
    "minimum": st.integers() | st.floats(allow_nan=False) | st.sampled_from(["1", True, None]),
    "exclusiveMaximum": st.integers() | st.just(False),
    "minLength": st.integers(-2, 3) | st.sampled_from([2.0, True, "1"]),
    "maxItems": st.integers(-1, 3) | st.just(1.5),
    "uniqueItems": st.booleans() | st.just(1), "const": ODD})
PLAIN_SCHEMAS = st.fixed_dictionaries({"type": st.just("object")}, optional={
    "properties": st.dictionaries(NAMES, PLAIN_SUBSCHEMAS, max_size=3) | st.just([]),
    "required": st.lists(NAMES, max_size=3) | st.just("a"),
    "additionalProperties": PLAIN_SUBSCHEMAS,
    "title": st.text(max_size=2) | st.just(None),
    "examples": st.lists(st.integers(), max_size=1) | st.just({}),
})
SCHEMAS = PLAIN_SCHEMAS | _subschemas(SUBSCHEMAS).map(lambda schema: {**schema, "type": "object"})


class _OneTool:
    def __init__(self, tool: Tool) -> None:
        self.tool = tool

    @hookimpl
    def agentkit_register_tools(self, register):
        register(self.tool)


@settings(max_examples=300, deadline=None)
@given(SCHEMAS)
@example({"type": "object", "properties": {"a": {"type": "integr"}}})
@example({"type": "object", "required": ["a", "a"]})
@example({"type": "object", "properties": {"a": {"type": "string", "minLength": -1}}})
@example({"type": "object", "properties": {"a": {"type": "array", "maxItems": 2.0, "uniqueItems": 1}}})
@example({"type": "object", "properties": {"a": {"type": "integer", "minimum": "1", "maximum": True}}})
@example({"type": "object", "properties": {"a": {"type": "string", "description": 3}}, "required": ["a"]})
def test_a_schema_is_refused_exactly_when_jsonschema_refuses_it_and_in_its_words(schema):
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
        expected = None
    except jsonschema.SchemaError as exc:
        expected = f"tool 't': input_schema is not valid JSON Schema: {exc.message}"
    record = make_host().register(_OneTool(Tool("t", "A tool.", schema, print)), name="one")
    if expected is None:
        assert record.status == "loaded", record.reason
    else:
        assert record.status == "failed" and expected in record.reason


PLAIN = {"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string", "title": "S"}},
         "required": ["n"], "additionalProperties": False}
SCHEMAS_FOR_ARGUMENTS = [
    PLAIN,
    {"type": "object", "properties": {"n": {"type": "integer"}}},
    {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}, "required": ["n"]},
    {"type": "object", "properties": {"n": {"enum": [1, 2]}, "s": {"type": ["string", "null"]}}},
    {"type": "object", "properties": {"s": {"type": "string", "pattern": "^a"}, "l": {"type": "array",
                                                                                        "items": {"type": "integer"}}}},
    {"type": "object", "additionalProperties": {"type": "integer"}},
]
ARGUMENTS = [{}, {"n": 1}, {"n": 1.0}, {"n": -1}, {"n": True}, {"n": "1"}, {"n": 3, "s": "abc"}, {"n": 1, "s": None},
             {"n": 1, "extra": 2}, {"s": "b", "l": [1, "x"]}, {"l": [1, 2]}, {"n": None, "s": 4}]


def _jsonschema_detail(schema, arguments) -> str | None:
    """What a tool call with ``arguments`` is told, in jsonschema's words: ``None`` when they are valid."""
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(arguments),
                    key=lambda error: list(error.absolute_path))
    if not errors:
        return None
    lines = [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in errors[:5]]
    return ("The arguments do not match the tool's schema: " + "; ".join(lines)
            + f". Arguments received: {json.dumps(arguments)}")


def test_arguments_get_jsonschemas_verdict_and_errors_for_plain_and_rich_schemas():
    for schema in SCHEMAS_FOR_ARGUMENTS:
        tool = Tool("t", "A tool.", schema, lambda arguments, context: "ok")
        agent, _ = make_agent([Turn([tool_call("t", json.dumps(a)) for a in ARGUMENTS]), Turn([text("k")])],
                              ToolsPlugin(tool))
        result = agent.run_sync("go")
        envelopes = [json.loads(m.text) for m in result.messages if isinstance(m, ToolResultMessage)]
        assert len(envelopes) == len(ARGUMENTS)
        for arguments, envelope in zip(ARGUMENTS, envelopes, strict=True):
            expected = _jsonschema_detail(schema, arguments)
            if expected is None:
                assert envelope["ok"], (schema, arguments, envelope)
            else:
                assert envelope == {"ok": False, "error": "invalid_arguments", "detail": expected}, (schema, arguments)
