"""A test client of ``agentkit rpc``: the real command in its own process, spoken to line by line."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = REPO / "docs" / "schemas"
#: Published beside rpc's contracts by the scripted provider, and held to its code by tests/test_script_schema.py.
SCRIPT_SCHEMA = SCHEMAS / "v1" / "agentkit.script.schema.json"


def rpc_schema_files() -> list[Path]:
    """The published schemas of agentkit rpc's contracts (the events and its requests and responses)."""
    return [path for path in sorted(SCHEMAS.rglob("*.json")) if path != SCRIPT_SCHEMA]
#: Generous: a loaded 2-core box may be slow, and a test that waits longer has hung, not lost a race.
PATIENCE = 120.0


def validator(relative: str) -> Draft202012Validator:
    return Draft202012Validator(json.loads((SCHEMAS / relative).read_text()))


EVENTS = validator("v2/agentkit.event.schema.json")
RESPONSES = validator("v1/agentkit.rpc.response.schema.json")
REQUESTS = validator("v1/agentkit.rpc.request.schema.json")


def request(request_id: Any, method: str, **params: Any) -> dict[str, Any]:
    line: dict[str, Any] = {"schema": "agentkit.rpc.request/v1", "id": request_id, "method": method}
    if params:
        line["params"] = params
    REQUESTS.validate(line)  # what the tests send is what the published schema describes
    return line


def check_response(response: dict[str, Any], method: str | None = None) -> None:
    """``response`` fits the published response schema, and its result the method's."""
    RESPONSES.validate(response)
    if method is not None and "result" in response:
        result_schema = {**RESPONSES.schema["$defs"][f"{method}.result"], "$defs": RESPONSES.schema["$defs"]}
        Draft202012Validator(result_schema).validate(response["result"])


class RpcProcess:
    """``agentkit rpc ARGS`` running; every line it writes is parsed, and checked against its schema."""

    def __init__(self, agentkit: Any, *args: str, env: dict[str, str], cwd: Path) -> None:
        self.process = subprocess.Popen([agentkit.path(), "rpc", *args], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd,
                                        env=agentkit.environment(env))
        self.lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.stderr = b""
        #: Every event received, in order.
        self.events: list[dict[str, Any]] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._errors = threading.Thread(target=self._drain_stderr, daemon=True)
        self._errors.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            self.lines.put(json.loads(raw))
        self.lines.put(None)

    def _drain_stderr(self) -> None:
        assert self.process.stderr is not None
        self.stderr = self.process.stderr.read()

    def send(self, line: dict[str, Any] | bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line if isinstance(line, bytes) else json.dumps(line).encode() + b"\n")
        self.process.stdin.flush()

    def next_line(self) -> dict[str, Any] | None:
        """The next line written (``None``: stdout ended); an event is also kept in :attr:`events`."""
        line = self.lines.get(timeout=PATIENCE)
        if line is not None and "seq" in line:
            EVENTS.validate(line)
            self.events.append(line)
        return line

    def call(self, request_id: Any, method: str, **params: Any) -> dict[str, Any]:
        """Send a request and return its response (events that come first are kept in :attr:`events`)."""
        self.send(request(request_id, method, **params))
        return self.response(method)

    def response(self, method: str | None = None) -> dict[str, Any]:
        while True:
            line = self.next_line()
            assert line is not None, f"stdout ended before the response; stderr: {self.stderr!r}"
            if "seq" not in line:
                check_response(line, method)
                return line

    def until(self, event_type: str) -> dict[str, Any]:
        """Read up to the next event of ``event_type``, and return it."""
        while True:
            line = self.next_line()
            assert line is not None, f"stdout ended before {event_type}; stderr: {self.stderr!r}"
            if line.get("type") == event_type:
                return line

    def next_event(self) -> dict[str, Any]:
        """The next line, which must be an event (no response is due while a run goes on)."""
        line = self.next_line()
        assert line is not None, f"stdout ended in a run; stderr: {self.stderr!r}"
        assert "seq" in line, f"a response came when an event was due: {line}"
        return line

    def finish(self) -> int:
        """Close stdin (EOF), read what is left, and return the exit code."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        while self.next_line() is not None:
            pass
        code = self.process.wait(timeout=PATIENCE)
        self._errors.join(timeout=PATIENCE)
        return code

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=PATIENCE)
