"""Agents calling the reference MCP servers of the npm registry, which nobody here wrote.

``server-everything`` returns every kind of content (its tiny PNG has a bad
checksum in a metadata chunk, which Pillow refuses); ``server-memory`` keeps
a knowledge graph, with tools that say whether they only read it. Each is
installed once under ``.cache/mcp-peers/`` (``peers.npm_server``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agentkit_provider_faux import Script, Turn, text, tool_call

from agentkit.host import Agent, AgentConfig, Connection, PluginHost
from agentkit.plugin_api import ExecutionMode, ImageBlock, ToolResultMessage

from .conftest import configure
from .peers import EVERYTHING, MEMORY, PeerUnavailable, npm_server


def server_entry(name: str, package: tuple[str, str], **extra: Any) -> dict[str, Any]:
    try:
        command = npm_server(package)
    except PeerUnavailable as exc:  # a real peer is the point of these tests: say what is missing, never skip
        pytest.fail(str(exc), pytrace=False)
    return {"name": name, "command": command[0], "args": command[1:], "connect_timeout_s": 60, **extra}


def run_calls(host: PluginHost, *calls: Any, tools: list[str]) -> list[ToolResultMessage]:
    """One turn making ``calls`` together, then a closing text; the tool result messages, in call order."""
    script = Script([Turn(list(calls)), Turn([text("Done.")])])
    agent = Agent(AgentConfig(model="faux/scripted", root=Path.cwd(), tools=tools,
                              connection=Connection(transport=script)), host=host)
    result = agent.run_sync("Go.")
    return [message for message in result.messages if isinstance(message, ToolResultMessage)]


def test_an_image_the_host_cannot_take_is_a_note_and_the_text_around_it_arrives(config_home: Path) -> None:
    configure(server_entry("everything", EVERYTHING))
    host = PluginHost.discover()
    [message] = run_calls(host, tool_call("everything__get-tiny-image", {}), tools=["everything__get-tiny-image"])

    assert not message.is_error, message.text
    envelope = json.loads(message.content[0].text)
    assert envelope["data"] == "Here's the image you requested:\nThe image above is the MCP logo."
    notes = [block.text for block in message.content[1:] if not isinstance(block, ImageBlock)]
    assert not any(isinstance(block, ImageBlock) for block in message.content)
    [note] = notes
    assert note.startswith("[image 1 not shown: ") and "\n" not in note


def test_a_server_s_writes_run_in_call_order_and_its_reads_see_them(config_home: Path, tmp_path: Path) -> None:
    configure(server_entry("memory", MEMORY, env={"MEMORY_FILE_PATH": str(tmp_path / "memory.jsonl")}))
    host = PluginHost.discover()
    modes = {name.removeprefix("memory__"): tool.execution_mode for name, tool in host.tools.items()
             if name.startswith("memory__")}
    assert modes["read_graph"] is modes["search_nodes"] is ExecutionMode.PARALLEL  # readOnlyHint: true
    assert modes["create_entities"] is modes["delete_entities"] is ExecutionMode.SEQUENTIAL  # readOnlyHint: false
    retry_safe = {name.removeprefix("memory__") for name, tool in host.tools.items()
                  if name.startswith("memory__") and tool.retry_safe}
    assert {"read_graph", "search_nodes"} <= retry_safe and "create_entities" not in retry_safe

    def create(name: str) -> Any:
        return tool_call("memory__create_entities",
                         {"entities": [{"name": name, "entityType": "person", "observations": []}]})

    # Each read follows a write in the same response: it must see that write, and none after it.
    messages = run_calls(host, create("Ada"), tool_call("memory__read_graph", {}), create("Grace"),
                         tool_call("memory__read_graph", {}), tools=["memory__create_entities", "memory__read_graph"])
    assert not any(message.is_error for message in messages), [message.text for message in messages]
    reads = [json.loads(message.content[0].text)["data"] for message in messages[1::2]]
    assert all(set(data) == {"structured"} for data in reads)  # its text repeated the graph: the model reads it once
    graphs = [data["structured"] for data in reads]
    assert [[entity["name"] for entity in graph["entities"]] for graph in graphs] == [["Ada"], ["Ada", "Grace"]]
