"""The tools checks: static rules, and calls through the host's batch."""

from __future__ import annotations

import jsonschema
import pytest

from agentkit.conformance._tools import check_tools, example_arguments, invalid_arguments
from agentkit.plugin_api import Tool, ToolError, ToolResult, hookimpl

OBJECT = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}


class ToolPlugin:
    def __init__(self, *tools: Tool) -> None:
        self.tools = tools

    @hookimpl
    def agentkit_register_tools(self, register):
        for tool in self.tools:
            register(tool)


def failing(host_with, *tools: Tool) -> dict[str, str]:
    checks = check_tools(host_with(ToolPlugin(*tools)), "under_test")
    return {check.check: f"{check.message} | {check.fix}" for check in checks if check.outcome == "fail"}


def test_a_well_behaved_tool_passes(host_with):
    def read(arguments, context):
        if not (context.root / arguments["path"]).exists():
            raise ToolError("not_found", f"{arguments['path']} does not exist")
        return "content"

    assert failing(host_with, Tool("read", "Read a file.", OBJECT, read)) == {}


def test_a_handler_that_raises_on_a_valid_call_fails(host_with):
    def read(arguments, context):
        return (context.root / arguments["path"]).read_text()  # FileNotFoundError escapes

    problems = failing(host_with, Tool("read", "Read a file.", OBJECT, read))
    assert "FileNotFoundError" in problems["tools.call"] and "ToolError" in problems["tools.call"]


def test_a_permissive_schema_whose_handler_raises_on_unexpected_arguments_fails(host_with):
    def greet(arguments, context):
        return f"hello {arguments['name']}"  # KeyError for anything without 'name'

    problems = failing(host_with, Tool("greet", "Greet.", {"type": "object"}, greet))
    assert "KeyError" in problems["tools.invalid-call"]


def test_an_unsendable_schema_fails_naming_the_rule(host_with):
    schema = {"type": "object", "properties": {"tags": {"type": "array"}}}
    problems = failing(host_with, Tool("tag", "Tag.", schema, lambda arguments, context: ToolResult.success()))
    assert "array-items" in problems["tools.schema"] and "#/properties/tags" in problems["tools.schema"]


def test_tools_that_run_commands_are_never_called(host_with):
    called = []
    tool = Tool("run", "Run a command.", OBJECT, lambda arguments, context: called.append(arguments),
                requires_authorization=True)
    checks = check_tools(host_with(ToolPlugin(tool)), "under_test")
    assert called == [] and [c.outcome for c in checks if c.check == "tools.call"] == ["skip"]


def test_a_tools_plugin_that_registers_nothing_fails(host_with):
    assert "registered no tool" in failing(host_with)["tools.registered"]


@pytest.mark.parametrize(
    "schema",
    [
        OBJECT,
        {"type": "object", "properties": {"n": {"type": "integer", "minimum": 5, "maximum": 9}}, "required": ["n"]},
        {"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "string", "minLength": 3},
                                                  "minItems": 2}}, "required": ["xs"]},
        {"type": "object", "properties": {"m": {"$ref": "#/$defs/m"}}, "required": ["m"],
         "$defs": {"m": {"enum": ["r", "w"]}}},
        {"type": "object", "properties": {"v": {"anyOf": [{"type": "null"}, {"type": "number", "exclusiveMinimum": 0}]},
                                           "o": {"type": "object", "properties": {"k": {"const": 3}}, "required": ["k"]}},
         "required": ["v", "o"]},
    ],
)
def test_generated_arguments_are_valid_and_the_invalid_ones_are_not(schema):
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid(example_arguments(schema))
    assert not validator.is_valid(invalid_arguments(schema, validator))
