"""What `agentkit mcp serve` loads to serve its tools: no HTTP client, no model runtime or compaction, no metadata library.

A server's tools never make a model request, so what its start loads beyond the
MCP SDK's own server is the plugin host; httpx (with what it imports) and the
provider runtime load with an agent's first request. The plugins are found and
loaded from their distributions' metadata files, and a plain plugin API range is
checked with ``packaging.specifiers``: ``importlib_metadata`` (with ``zipp``)
and ``packaging.requirements`` (with markers and tags) are for a path the files
alone cannot describe, or a requirement line beyond name and specifiers; a
plain range of release numbers that the installed plugin API meets needs no
``packaging`` at all. Serving over stdio loads nothing of the HTTP transport,
nor the resources' catalog no command adds to, nor the MCP client's settings for
an embedder; the watch for installed plugins reads the same files. The
check runs the command's
``main`` in a fresh interpreter over stdio, answers one ``tools/list`` and reads
``sys.modules`` when the client's input ends.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {}}

PLUGIN = '''
from agentkit.plugin_api import Tool, hookimpl


@hookimpl
def agentkit_register_tools(register):
    register(Tool(name="echo", description="Echo.", handler=lambda arguments, context: arguments["text"],
                  input_schema={"type": "object", "properties": {"text": {"type": "string"}}}))
'''

SERVE = """
import json, sys
from pathlib import Path
from agentkit.host.cli import main
code = main(["mcp", "serve", "--watch", sys.argv[2]])
Path(sys.argv[1]).write_text(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""

#: Loaded by an agent's model requests, never by serving tools.
NOT_AT_SERVE = ("httpx", "agentkit.host.runtime._runtime", "agentkit.host.runtime._client",
                "agentkit.host.runtime._request_building", "agentkit.host._loop", "agentkit.host._agent",
                "agentkit.host._compaction", "agentkit.host._token_limits")
#: What finding and checking the installed plugins does not need on a plain path (the MCP SDK's pydantic
#: imports the standard library's ``importlib.metadata`` for itself; the backport is the plugin host's).
NOT_TO_DISCOVER = ("importlib_metadata", "zipp", "packaging")
#: What serving tools over stdio never uses: the HTTP transport, resources and prompts added in code, the model
#: catalog's resolver, and what an embedder of the MCP client sets (its audit sink, its input handler).
NOT_OVER_STDIO = ("agentkit_mcp_server._serve", "agentkit_mcp_server._http", "agentkit_mcp_server._cors",
                  "agentkit_mcp_server._catalog", "agentkit.host._models", "agentkit_tools_mcp.client._embedder")


def loaded(modules: list[str], packages: tuple[str, ...]) -> set[str]:
    return {name for name in modules if any(name == p or name.startswith(p + ".") for p in packages)}


@pytest.mark.parametrize("watch", ["0", "2"])
def test_serving_tools_over_stdio_loads_no_http_client_and_no_model_runtime(agentkit, site_dir, tmp_path, watch):
    site_dir("echo-tools", entry_points={"agentkit.tools": {"echo_tools": "echo_tools"}},
             files={"echo_tools.py": PLUGIN})
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": MODERN_META}}
    report = tmp_path / "modules.json"
    env = agentkit.environment({"AGENTKIT_LOAD_PLUGINS": "echo_tools,agentkit-tools-mcp"}, site_dir.site)
    with (tmp_path / "stderr").open("wb") as errors:
        process = subprocess.Popen([sys.executable, "-c", SERVE, str(report), watch], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=errors, env=env)
        try:
            process.stdin.write(json.dumps(listing).encode() + b"\n")
            process.stdin.flush()
            answer = json.loads(process.stdout.readline())  # the input stays open until the answer is in
            process.stdin.close()
            process.wait(timeout=120)
        finally:
            if process.poll() is None:
                process.kill()
    seen = json.loads(report.read_text())
    assert seen["code"] == 0
    assert [tool["name"] for tool in answer["result"]["tools"]] == ["echo"]
    assert loaded(seen["modules"], NOT_AT_SERVE) == set()
    assert loaded(seen["modules"], NOT_TO_DISCOVER) == set()  # with --watch, its first look included
    assert loaded(seen["modules"], NOT_OVER_STDIO) == set()
