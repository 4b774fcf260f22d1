"""A stdio MCP server written by hand, to send what no SDK server would: ``python raw_server.py MODE``.

It speaks the 2025-11-25 handshake era line by line (any method it does not
know, ``server/discover`` included, is ``-32601``), and misbehaves by MODE:

- ``tools``: lists a good tool ``fine``, ``dotted.name`` (a name agentkit
  cannot carry), ``bad_schema`` (an ``inputSchema`` that is not JSON Schema)
  and ``not_an_object`` (a string schema); ``fine`` answers ``fine``.
- ``silent``: reads every line and answers none (a hang at connect).
- ``garbage``: ``wait`` never answers; ``garble`` answers with a line that is
  not JSON; ``malformed`` answers a result whose ``content`` is not a list.
- ``grow``: ``grow`` adds ``late_fine`` and ``late_bad`` (a schema that is not
  JSON Schema) to the list, and says the list changed.
- ``outputs``: ``shaped`` declares an ``outputSchema`` (an integer ``n``, required, nothing
  else) and answers with the structured content its argument ``give`` holds, whatever it is.
"""

from __future__ import annotations

import json
import sys

GOOD = {"type": "object", "properties": {"text": {"type": "string"}}}
TOOLS = {
    "tools": [
        {"name": "fine", "description": "Answers fine.", "inputSchema": GOOD},
        {"name": "dotted.name", "description": "A name with a dot.", "inputSchema": GOOD},
        {"name": "bad_schema", "description": "A schema that is not JSON Schema.",
         "inputSchema": {"type": "object", "properties": {"a": {"type": "strin"}}}},
        {"name": "not_an_object", "description": "A schema of a string.", "inputSchema": {"type": "string"}},
    ],
    "garbage": [
        # read-only, so that calls of one response run at once (writes would run one after another)
        {"name": name, "description": f"The {name} tool.", "inputSchema": {"type": "object", "properties": {}},
         "annotations": {"readOnlyHint": True}}
        for name in ("wait", "garble", "malformed")
    ],
    "grow": [{"name": "grow", "description": "Adds two tools.", "inputSchema": GOOD}],
    "outputs": [{"name": "shaped", "description": "Answers what it is given.",
                 "inputSchema": {"type": "object", "properties": {"give": {}}},
                 "outputSchema": {"type": "object", "title": "Shaped", "properties": {"n": {"type": "integer"}},
                                  "required": ["n"], "additionalProperties": False}}],
}
LATE = [{"name": "late_fine", "description": "Answers fine.", "inputSchema": GOOD},
        {"name": "late_bad", "description": "A schema that is not JSON Schema.",
         "inputSchema": {"type": "object", "properties": {"a": {"type": "strin"}}}}]


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(mode: str, request: dict[str, object]) -> None:
    method, ident = request.get("method"), request.get("id")
    if ident is None:
        return  # a notification
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": ident, "result": {
            "protocolVersion": "2025-11-25", "capabilities": {"tools": {"listChanged": True}},
            "serverInfo": {"name": f"raw-{mode}", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": TOOLS[mode]}})
    elif method == "tools/call":
        name = request["params"]["name"]  # type: ignore[index]
        if name == "grow":
            TOOLS["grow"] += LATE
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": "grown"}]}})
        elif name in ("fine", "late_fine"):
            send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": "fine"}]}})
        elif name == "garble":
            sys.stdout.write("this line is not JSON-RPC\n")
            sys.stdout.flush()
        elif name == "shaped":
            given = request["params"].get("arguments", {}).get("give")  # type: ignore[index]
            send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": json.dumps(given)}],
                                                           "structuredContent": given}})
        elif name == "malformed":
            send({"jsonrpc": "2.0", "id": ident, "result": {"content": "not a list of blocks"}})
        # "wait": never answered
    else:
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": f"unknown method {method}"}})


def main() -> None:
    mode = sys.argv[1]
    for line in sys.stdin:
        if mode != "silent" and line.strip():
            answer(mode, json.loads(line))


if __name__ == "__main__":
    main()
