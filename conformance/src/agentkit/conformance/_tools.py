"""Checks of the ``tools`` category: each tool a plugin registered.

A tool passes when its name and description are usable, its schema keeps the
rules every wire needs (:mod:`agentkit.conformance.schema_rules`), and its
handler, run through the host's :class:`~agentkit.host.ToolCaller` (argument
validation, the handler, the result envelope, as in an agent) in an empty
temporary workspace, answers a valid call and
an invalid one with a result rather than an escaped exception.
"""

from __future__ import annotations

import asyncio
import json
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema

from agentkit.host import PluginHost, ToolCaller
from agentkit.plugin_api import SessionInfo, Tool, ToolUseBlock

from ._report import Check, failed, passed, skipped
from .schema_rules import RULES, schema_problems

TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
#: The error code the batch gives an exception that escaped a handler.
ESCAPED = "tool_failed"


def check_tools(host: PluginHost, plugin: str) -> Iterator[Check]:
    """Each verdict as soon as it is known (a handler that hangs must not take the earlier ones with it)."""
    tools = [tool for name, tool in sorted(host.tools.items()) if host.plugin_of("tool", name) == plugin]
    if not tools:
        yield failed("tools.registered", "registered no tool",
                     "call register(Tool(...)) in agentkit_register_tools, or drop the agentkit.tools entry point")
    for tool in tools:
        yield from _static(tool)
    for tool in tools:
        yield from _calls(tool)


def _static(tool: Tool) -> list[Check]:
    checks = []
    if TOOL_NAME.match(tool.name or ""):
        checks.append(passed("tools.name", subject=tool.name))
    else:
        checks.append(failed("tools.name", f"the name {tool.name!r} is not 1-64 letters, digits, '_' or '-'",
                             "rename the tool", tool.name))
    if (tool.description or "").strip():
        checks.append(passed("tools.description", subject=tool.name))
    else:
        checks.append(failed("tools.description", "the description is empty",
                             "describe what the tool does: the model reads it", tool.name))
    problems = schema_problems(tool.input_schema)
    if problems:
        for rule, where in problems:
            checks.append(failed("tools.schema", f"{rule}: {where}", f"change the input_schema: {RULES[rule]}", tool.name))
    else:
        checks.append(passed("tools.schema", subject=tool.name))
    return checks


def _calls(tool: Tool) -> Iterator[Check]:
    if tool.requires_authorization:
        # Tools that run arbitrary commands are not run by a validator: a generated
        # argument could be a real command on the user's machine.
        yield skipped("tools.call", "not called: it requires authorization (runs commands)", tool.name)
        return
    validator = jsonschema.Draft202012Validator(tool.input_schema)
    arguments = example_arguments(tool.input_schema)
    if arguments is None or not validator.is_valid(arguments):
        yield skipped("tools.call", "could not generate valid arguments from the schema", tool.name)
    else:
        code, text = run_call(tool, arguments)
        if code == ESCAPED:
            yield failed("tools.call", f"a valid call {json.dumps(arguments)} raised: {text}",
                         "return ToolResult.failure(code, detail) or raise ToolError(code, detail) "
                         "for expected failures; never let other exceptions escape", tool.name)
        else:
            yield passed("tools.call", f"valid call answered: {text[:200]}", tool.name)
    invalid = invalid_arguments(tool.input_schema, validator)
    code, text = run_call(tool, invalid)
    if code == ESCAPED:
        yield failed("tools.invalid-call", f"the call {json.dumps(invalid)} raised: {text}",
                     "validate what the schema cannot express and return an error result", tool.name)
    elif not validator.is_valid(invalid) and code is None:
        yield failed("tools.invalid-call", f"invalid arguments {json.dumps(invalid)} were answered as a success",
                     "keep the schema strict enough to reject them", tool.name)
    else:
        yield passed("tools.invalid-call", f"invalid call answered: {text[:200]}", tool.name)


def run_call(tool: Tool, arguments: Any) -> tuple[str | None, str]:
    """Run one call as an agent would, in an empty workspace: ``(error code or None, envelope text)``.

    No other plugin's hooks take part: the verdict is the tool's own.
    """
    with tempfile.TemporaryDirectory(prefix="agentkit-conformance-") as root:
        caller = ToolCaller(PluginHost(), {tool.name: tool},
                            session=SessionInfo("conformance", "none", Path(root).resolve()))
        result = asyncio.run(caller.call(ToolUseBlock("conformance-1", tool.name, json.dumps(arguments))))
    envelope = json.loads(result.text)
    return (envelope.get("error") or "error") if result.is_error else None, result.text


# -- arguments from a schema -------------------------------------------------------------


def example_arguments(schema: dict[str, Any]) -> Any:
    """The smallest arguments ``schema`` accepts: its required properties, typed plainly."""
    try:
        return _example(schema, schema, 0)
    except _NoExample:
        return None


class _NoExample(Exception):
    pass


def _example(node: Any, root: dict[str, Any], depth: int) -> Any:
    if depth > 20 or not isinstance(node, dict):
        raise _NoExample
    if "$ref" in node:
        target: Any = root
        for part in node["$ref"].lstrip("#").split("/")[1:]:
            target = target[part] if isinstance(target, dict) and part in target else None
        return _example(target, root, depth + 1)
    if "const" in node:
        return node["const"]
    if isinstance(node.get("enum"), list) and node["enum"]:
        return node["enum"][0]
    for key in ("anyOf", "oneOf"):
        if isinstance(node.get(key), list) and node[key]:
            return _example(node[key][0], root, depth + 1)
    kind = node.get("type")
    if isinstance(kind, list):
        kind = next((item for item in kind if item != "null"), "null")
    if kind == "object" or (kind is None and "properties" in node):
        properties = node.get("properties") or {}
        return {name: _example(properties.get(name, {}), root, depth + 1) for name in node.get("required", [])}
    if kind == "array":
        count = int(node.get("minItems", 0))
        return [_example(node.get("items", {}), root, depth + 1) for _ in range(count)]
    if kind in ("integer", "number"):
        low = node["minimum"] if "minimum" in node else node.get("exclusiveMinimum", 0)
        value = low + 1 if "exclusiveMinimum" in node and "minimum" not in node else max(low, 1)
        high = node.get("maximum")
        value = min(value, high) if high is not None else value
        return int(value) if kind == "integer" else value
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return "x" * max(1, int(node.get("minLength", 1)))


def invalid_arguments(schema: dict[str, Any], validator: jsonschema.Draft202012Validator) -> Any:
    """Arguments the schema rejects, when it rejects anything: a required property left out, or a wrong type."""
    candidates: list[Any] = []
    if schema.get("required"):
        candidates.append({})
    for name, prop in (schema.get("properties") or {}).items():
        wrong = {"string": 12345, "integer": "x", "number": "x", "boolean": "x", "array": "x", "object": "x"}
        if isinstance(prop, dict) and prop.get("type") in wrong:
            base = example_arguments(schema) or {}
            candidates.append({**base, name: wrong[prop["type"]]})
    candidates.append({"agentkit_conformance_unexpected": [1, {"a": None}]})
    for candidate in candidates:
        if not validator.is_valid(candidate):
            return candidate
    return candidates[-1]
