"""Hostile input on the stdio transport, in this process through ``serve_streams``: whatever bytes a
client writes, every line the server writes back is a JSON-RPC message, and a valid request that
follows the garbage is still answered."""

from __future__ import annotations

import json
import os
import threading

import anyio
from agentkit_mcp_server import MCPToolServer, ToolServer, serve_streams
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentkit.host import PluginHost
from agentkit.plugin_api import Tool

MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {}}
PATIENCE = 60  # seconds: a loaded box is slow; an answer that never comes fails instead of hanging
FINAL = {"jsonrpc": "2.0", "id": "final", "method": "tools/call",
         "params": {"_meta": MODERN_META, "name": "echo", "arguments": {"text": "answered"}}}


def served(lines: list[bytes], max_frame_bytes: int = 512) -> list[dict]:
    """Serve one client that writes ``lines`` then ``FINAL`` and closes; every message written back."""
    tools = ToolServer(PluginHost())
    tools.add_tool(Tool(name="echo", description="Echo.", handler=lambda arguments, context: arguments["text"],
                        input_schema={"type": "object", "properties": {"text": {"type": "string"}}}))
    client_in, server_out = os.pipe()
    server_in, client_out = os.pipe()
    payload = b"".join(line + b"\n" for line in lines) + json.dumps(FINAL).encode() + b"\n"
    received: list[bytes] = []
    answered = threading.Event()

    def write() -> None:
        # the client closes its side only once answered, as a client does: the end of its input
        # cancels whatever is still running (see test_server_stdio)
        with os.fdopen(client_out, "wb") as pipe:
            pipe.write(payload)
            pipe.flush()
            answered.wait(PATIENCE)

    def read() -> None:
        with os.fdopen(client_in, "rb") as pipe:
            for line in pipe:
                received.append(line)
                if b'"final"' in line:
                    answered.set()

    threads = [threading.Thread(target=write, daemon=True), threading.Thread(target=read, daemon=True)]
    for thread in threads:
        thread.start()

    async def main() -> None:
        with os.fdopen(server_in, "rb", buffering=0) as wire_in, os.fdopen(server_out, "wb") as wire_out:
            await serve_streams(MCPToolServer(tools), wire_in, wire_out, max_frame_bytes=max_frame_bytes)

    anyio.run(main)
    for thread in threads:
        thread.join(PATIENCE)
    return [json.loads(line) for line in received]


garbage_lines = st.lists(
    st.one_of(
        st.binary(max_size=700).map(lambda data: data.replace(b"\n", b" ")),
        st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                     lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children,
                                                                                        max_size=4),
                     max_leaves=20).map(lambda value: json.dumps(value).encode()),
        st.sampled_from([b"[" * 200, b"{" * 200, b'{"jsonrpc":"2.0","id":1}', b'{"jsonrpc":"2.0","method":"x"}',
                         b'{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}']),
    ),
    max_size=8,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(garbage_lines)
def test_whatever_a_client_writes_the_answers_are_json_rpc_and_a_later_request_is_served(lines):
    messages = served(lines)

    assert all(message.get("jsonrpc") == "2.0" for message in messages)
    assert all(("result" in message) != ("error" in message) for message in messages if "id" in message
               and "method" not in message)
    final = [message for message in messages if message.get("id") == "final"]
    assert len(final) == 1
    # garbage may open the connection in the handshake era, where the enveloped request is refused;
    # either way it is answered, in the era the connection serves
    assert "result" in final[0] or final[0]["error"]["code"] in (-32600, -32602)
