"""Hold a session with an agent through ``agentkit rpc``, with nothing but the standard library.

    python client.py "first prompt" "second prompt" -- agentkit rpc --model vendor/model

It starts the server command given after ``--``, starts a session, sends each
prompt in turn and prints the answer as it streams, one line per tool call,
and each run's outcome; then it lists the stored sessions and closes the
server's stdin, which ends it. It imports nothing of agentkit's: any program
that writes and reads lines of JSON can do the same.

As the contracts ask, it ignores fields and event types it does not know.
"""

from __future__ import annotations

import json
import subprocess
import sys
from itertools import count
from typing import Any

REQUEST = "agentkit.rpc.request/v1"


class RpcClient:
    """One ``agentkit rpc`` process: requests out, responses and events in."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.ids = count(1)
        self.text_blocks: set[int] = set()  # the text blocks of the response streaming now

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send a request and wait for its response; events that come before it are shown."""
        request_id = next(self.ids)
        line = {"schema": REQUEST, "id": request_id, "method": method, "params": params}
        self.process.stdin.write(json.dumps(line).encode() + b"\n")
        self.process.stdin.flush()
        while True:
            message = self.read()
            if "seq" in message:  # an event: it has a seq, responses have none
                self.show(message)
            elif message.get("id") == request_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']['code']}: {message['error']['message']}")
                return message["result"]

    def run(self, session_id: str, text: str) -> str:
        """Send a prompt, show the run's events as they come, and return its outcome."""
        self.call("prompt", session_id=session_id, text=text)
        while True:
            event = self.read()
            self.show(event)
            if event.get("type") == "agent_end" and event.get("session_id") == session_id:
                return event["outcome"]

    def read(self) -> dict[str, Any]:
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the server ended unexpectedly")
        return json.loads(line)

    def show(self, event: dict[str, Any]) -> None:
        """Print what a person wants to see of an event; any other event, or an unknown type, is ignored."""
        kind = event.get("type")
        if kind == "block_start" and event["kind"] == "text":  # thinking is not shown
            self.text_blocks.add(event["index"])
        elif kind == "block_delta" and event["index"] in self.text_blocks:
            print(event["delta"], end="", flush=True)
        elif kind == "message_end":
            self.text_blocks.clear()
            print()
        elif kind == "tool_call_start":
            print(f"[tool] {event['call']['name']} {event['call']['arguments']}")
        elif kind == "tool_call_end" and event["result"]["is_error"]:
            print(f"[tool] {event['result']['tool_name']} failed")

    def close(self) -> int:
        """End the server (EOF on its stdin) and return its exit code."""
        self.process.stdin.close()
        for line in self.process.stdout:  # what it writes while ending: the end of any run cut short
            self.show(json.loads(line))
        return self.process.wait()


def main(argv: list[str]) -> int:
    if "--" not in argv:
        print("usage: client.py PROMPT... -- agentkit rpc [OPTIONS]", file=sys.stderr)
        return 2
    split = argv.index("--")
    prompts, command = argv[:split], argv[split + 1:]
    client = RpcClient(command)
    try:
        session = client.call("session.start")
        print(f"session {session['session_id']} with {session['model']}")
        for prompt in prompts:
            print(f"> {prompt}")
            print(f"({client.run(session['session_id'], prompt)})")
        stored = client.call("sessions.list")["sessions"]
        print(f"{len(stored)} stored session(s)")
    finally:
        code = client.close()
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
