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


def test_a_functions_type_hints_are_those_typing_gives_whatever_its_module_rebinds():
    """Annotations naming builtin classes are read without compiling them: what is read must be what
    ``typing.get_type_hints`` gives, where the module or its builtins rebind a name, for a wrapped function,
    and for annotations that are not strings."""
    import builtins
    import functools
    import typing

    from agentkit.plugin_api._schema import type_hints

    source = "def f(n: int, label: str, ratio: float, flag: bool, raw: bytes) -> int:\n    return n\n"
    scopes = {
        "plain": {},
        "rebinds int": {"int": str},
        "rebinds str in its builtins": {"__builtins__": {**vars(builtins), "str": bytes}},
    }
    for future in ("from __future__ import annotations\n", ""):
        for label, scope in scopes.items():
            namespace = dict(scope)
            exec(future + source, namespace)
            function = namespace["f"]
            assert type_hints(function) == typing.get_type_hints(function), (label, future)
            wrapped = functools.wraps(function)(lambda *args, inner=function: inner(*args))
            assert type_hints(wrapped) == typing.get_type_hints(wrapped), (label, future)
    namespace = {"int": str}
    exec("from __future__ import annotations\ndef g(n: int, items: list[int] | None = None) -> None: pass\n",
         namespace)
    assert type_hints(namespace["g"]) == typing.get_type_hints(namespace["g"]) == {
        "n": str, "items": list[str] | None, "return": type(None)}
    assert Tool.from_function(namespace["g"]).input_schema["properties"]["n"] == {"type": "string"}
