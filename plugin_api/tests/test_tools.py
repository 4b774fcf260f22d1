"""Building tools, explicitly and from typed functions."""

from __future__ import annotations

from enum import Enum
from typing import Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentkit.plugin_api import ExecutionMode, SchemaError, Tool, ToolContext, ToolResult


class Mode(Enum):
    FAST = "fast"
    SAFE = "safe"


def search(pattern: str, paths: list[str], limit: int = 10, mode: Mode = Mode.SAFE,
           case: Literal["smart", "exact"] = "smart", context: ToolContext | None = None) -> str:
    """Search files for a pattern.

    Longer explanation that the model does not need.

    :param pattern: a regular expression
    :param paths: where to look,
        relative to the root
    :param limit: the most matches to return
    """
    return pattern


def test_schema_from_a_typed_function_and_its_docstring():
    tool = Tool.from_function(search)
    assert tool.name == "search"
    assert tool.description.startswith("Search files for a pattern.")
    assert tool.input_schema == {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "a regular expression"},
            "paths": {"type": "array", "items": {"type": "string"}, "description": "where to look, relative to the root"},
            "limit": {"type": "integer", "description": "the most matches to return", "default": 10},
            "mode": {"enum": ["fast", "safe"]},
            "case": {"enum": ["smart", "exact"], "default": "smart"},
        },
        "required": ["pattern", "paths"],
    }


def test_google_style_docstrings_describe_parameters():
    def grep(pattern: str) -> str:
        """Find text.

        Args:
            pattern: what to find
        """
        return pattern

    assert Tool.from_function(grep).input_schema["properties"]["pattern"]["description"] == "what to find"


def test_the_context_parameter_receives_the_context(tmp_path):
    seen = {}

    def where(name: str, ctx: ToolContext) -> str:
        """Say where."""
        seen["root"] = ctx.root
        return name

    tool = Tool.from_function(where, execution_mode=ExecutionMode.SEQUENTIAL)
    assert "ctx" not in tool.input_schema["properties"]
    assert tool.handler({"name": "x"}, ToolContext(root=tmp_path)) == "x" and seen["root"] == tmp_path
    assert tool.execution_mode is ExecutionMode.SEQUENTIAL


def test_varargs_cannot_be_a_schema():
    def bad(*names: str) -> None:
        """Bad."""

    with pytest.raises(SchemaError):
        Tool.from_function(bad)


def test_the_envelope_keeps_metadata_from_the_model():
    result = ToolResult.success({"n": 1}, elapsed=0.5)
    assert result.to_model() == {"ok": True, "data": {"n": 1}}
    assert result.metadata == {"elapsed": 0.5}
    failure = ToolResult.failure("path_not_allowed", "outside the root")
    assert failure.to_model() == {"ok": False, "error": "path_not_allowed", "detail": "outside the root"}


#: Pieces of docstrings: plain lines, and each kind of section the parser reads (in any order, so that a
#: marker may sit where it does not start a line).
PIECES = ["Count things.", "  indented", "", "Returns:", "    the count", ":param n: how many",
          ":param int label: a label", ":returns: n", "Args:", "    n (int): how many", "    label: a label",
          "Arguments:", "Parameters:", "not Args: here", "text :param inline", "Returns the count."]


def _parse_reading_every_section(doc):
    """The parse with no shortcut: every pattern run over every docstring."""
    import inspect
    import re

    text = inspect.cleandoc(doc or "")
    params = {}
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
    description = re.split(r"^(?::param|:returns?|Args:|Arguments:|Parameters:|Returns:)", text, maxsplit=1,
                           flags=re.M)[0]
    return description.strip(), params


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=8))
def test_a_docstring_is_read_as_when_every_section_pattern_ran(lines):
    from agentkit.plugin_api._schema import parse_docstring

    doc = "\n".join(lines)
    assert parse_docstring(doc) == _parse_reading_every_section(doc)
