"""What a server sends and what a config file says are untrusted: no input gets past the cap or out as a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentkit_tools_mcp._config import McpConfigError, parse_server
from agentkit_tools_mcp.client._results import RESULT_CHARACTER_CAP, to_tool_result
from hypothesis import given, settings
from hypothesis import strategies as st

NOTE_ROOM = 300  # the truncation note's own length, with room to spare


class _Block:
    def __init__(self, kind: str, **fields: Any) -> None:
        self.type = kind
        self.__dict__.update(fields)


class _Result:
    def __init__(self, content: list[Any], structured: Any, is_error: bool) -> None:
        self.content, self.structured_content, self.is_error = content, structured, is_error


texts = st.text(max_size=400).map(lambda t: _Block("text", text=t)) | st.integers(0, 70_000).map(
    lambda n: _Block("text", text="y" * n))
images = st.just(_Block("image", data="iVBORw0KGgo=", mime_type="image/png"))
others = st.sampled_from([_Block("audio", data="", mime_type="audio/wav"),
                          _Block("resource_link", uri="file:///etc/passwd", name="x")])
json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=50),
                           lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner,
                                                                                      max_size=5), max_leaves=20)
structured = st.none() | json_values | st.integers(0, 80_000).map(lambda n: {"rows": ["z" * n]})


@settings(max_examples=100, deadline=None)
@given(st.lists(texts | images | others, max_size=6), structured, st.booleans())
def test_whatever_a_server_returns_the_model_reads_at_most_the_cap(content: list[Any], data: Any,
                                                                   is_error: bool) -> None:
    result = to_tool_result(_Result(content, data, is_error))
    shown = result.to_text()
    assert len(shown) <= RESULT_CHARACTER_CAP + NOTE_ROOM + 200  # + the envelope's own keys and escapes
    assert result.ok is not is_error
    total = sum(len(b.text) for b in content if b.type == "text")
    if result.metadata["truncated"]:
        assert "[truncated:" in shown
    elif data is not None and not is_error:
        assert result.data["structured"] == data  # an untruncated result keeps its structured content whole
    assert len(result.images) == sum(1 for b in content if b.type == "image")
    if data is None or is_error:  # otherwise a text that repeats the structured content is counted once
        assert result.metadata["characters"] >= total


toml_values = st.recursive(
    st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=10,
)
keys = st.sampled_from(["name", "command", "args", "env", "url", "headers", "era", "timeout_s",
                        "connect_timeout_s", "per_session_call_limit", "reconnect_limit", "allow_sampling", "other"])


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(keys, toml_values, max_size=8) | toml_values)
def test_any_entry_is_either_a_server_or_a_configuration_error(table: Any) -> None:
    try:
        server = parse_server(table, Path("agentkit.toml"))
    except McpConfigError as exc:
        assert "agentkit.toml" in str(exc) and "\n" not in str(exc)
        return
    assert server.name == table["name"] and (server.command is None) != (server.url is None)
    json.dumps(dict(server.env))  # values are strings
