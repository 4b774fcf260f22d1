"""The quick check of plain tool schemas never says yes where jsonschema says no.

Tool arguments are checked against the tool's schema before the handler
runs; for the plainest schemas a quick check answers first. Its yes must be
jsonschema's yes on every schema and arguments it meets (its no only hands
the arguments to jsonschema, which decides).
"""

from __future__ import annotations

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from agentkit.host._arguments import ArgumentValidator, quick_check

TYPES = ["string", "integer", "number", "boolean", "null", "array", "object"]
NAMES = st.sampled_from(["a", "b", "c", "n"])
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=3),
    lambda children: st.lists(children, max_size=2) | st.dictionaries(st.text(max_size=2), children, max_size=2),
    max_leaves=4,
)
PROPERTY_SCHEMAS = (
    st.fixed_dictionaries({"type": st.sampled_from(TYPES)}, optional={"description": st.text(max_size=3)})
    | st.just({}) | st.just(True) | st.just(False)
    | st.fixed_dictionaries({"type": st.sampled_from(TYPES), "minimum": st.integers()})
)
SCHEMAS = st.fixed_dictionaries(
    {"type": st.just("object")},
    optional={
        "properties": st.dictionaries(NAMES, PROPERTY_SCHEMAS, max_size=3),
        "required": st.lists(NAMES, max_size=3),
        "additionalProperties": st.booleans(),
        "title": st.text(max_size=3),
    },
)


@settings(max_examples=400, deadline=None)
@given(SCHEMAS, st.dictionaries(NAMES, JSON_VALUES, max_size=4))
def test_the_quick_yes_is_always_jsonschemas_yes(schema, arguments):
    full = jsonschema.Draft202012Validator(schema).is_valid(arguments)
    quick = quick_check(schema)
    if quick is not None and quick(arguments):
        assert full
    assert ArgumentValidator(schema).is_valid(arguments) == full


def test_the_quick_check_answers_for_a_plain_schema_and_steps_aside_for_others():
    plain = {"type": "object", "properties": {"n": {"type": "integer", "description": "How many."}},
             "required": ["n"], "additionalProperties": False}
    check = quick_check(plain)
    assert check is not None and check({"n": 3})
    assert not check({"n": 3.0}) and not check({}) and not check({"n": 1, "m": 2}) and not check({"n": True})
    assert ArgumentValidator(plain).is_valid({"n": 3.0})  # jsonschema decides what the quick check is unsure of
    for beyond in ({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}},
                   {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"},
                   {"type": "object", "properties": {"n": {"type": ["integer", "null"]}}},
                   {"type": "object", "additionalProperties": {"type": "string"}}):
        assert quick_check(beyond) is None
