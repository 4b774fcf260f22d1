"""A testing aid: answer provider requests from a recording instead of the network.

``agentkit run`` reads the environment variable ``AGENTKIT_REPLAY``: when it
names a JSON file, every HTTP request the run makes is answered, in order, by
the next recorded response, and nothing goes to the network. A subprocess
cannot be handed an ``httpx.MockTransport``; this is the seam that lets a test
drive the real command end to end.

The file is a VCR cassette converted to JSON (``{"interactions": [{"request":
..., "response": {"status": {"code": 200}, "headers": {...}, "body":
{"string": "..."}}}]}``), or a plain list of responses (``[{"status": 200,
"headers": {...}, "body": "..."}]``). Header values may be strings or lists of
strings. Only ``content-type`` of the recorded headers is replayed: the body
is stored decoded, so its length and encoding headers no longer apply.

With ``AGENTKIT_REPLAY_LOG`` set to a path, each request received is appended
there as one JSON line (method, URL, header names, body as JSON when it is
JSON): a test can check what was sent without seeing any header value.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import httpx

from agentkit.plugin_api._dataclass import dataclass
from agentkit.plugin_api.errors import UsageError

__all__ = ["REPLAY_ENV", "REPLAY_LOG_ENV", "RecordedResponse", "ReplayTransport"]

REPLAY_ENV = "AGENTKIT_REPLAY"
REPLAY_LOG_ENV = "AGENTKIT_REPLAY_LOG"
# Bytes per chunk of a replayed body, so that a stream arrives in pieces as it
# would from a server.
_CHUNK = 256


@dataclass(frozen=True, slots=True)
class RecordedResponse:
    status: int
    content_type: str | None
    body: bytes


def _first(value: Any) -> Any:
    return value[0] if isinstance(value, list) and value else value


def _response(data: Mapping[str, Any]) -> RecordedResponse:
    status = data.get("status", 200)
    if isinstance(status, Mapping):
        status = status.get("code", 200)
    headers = {str(name).lower(): _first(value) for name, value in (data.get("headers") or {}).items()}
    body = data.get("body", "")
    if isinstance(body, Mapping):
        body = body.get("string", "")
    raw = body.encode("utf-8") if isinstance(body, str) else bytes(body or b"")
    return RecordedResponse(int(status), headers.get("content-type"), raw)


class _Chunks(httpx.AsyncByteStream):
    def __init__(self, body: bytes) -> None:
        self.body = body

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for start in range(0, len(self.body), _CHUNK):
            yield self.body[start : start + _CHUNK]


class ReplayTransport(httpx.AsyncBaseTransport):
    """Answers each request with the next recorded response; past the last one, HTTP 599."""

    def __init__(self, responses: list[RecordedResponse], log: Path | None = None) -> None:
        self.responses = responses
        self.log = log
        self.served = 0

    @classmethod
    def from_file(cls, path: str | Path, log: str | Path | None = None) -> ReplayTransport:
        """Load a recording; a file that is missing or not a recording is a :class:`UsageError`."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise UsageError(f"{REPLAY_ENV}={path}: cannot read a JSON recording ({exc})") from exc
        items = data.get("interactions") if isinstance(data, Mapping) else data
        if not isinstance(items, list):
            raise UsageError(f"{REPLAY_ENV}={path}: expected a list of responses or a cassette with 'interactions'")
        responses = [_response(item.get("response", item)) for item in items if isinstance(item, Mapping)]
        return cls(responses, Path(log) if log else None)

    def _record(self, request: httpx.Request, body: bytes) -> None:
        if self.log is None:
            return
        try:
            parsed: Any = json.loads(body) if body else None
        except ValueError:
            parsed = body.decode("utf-8", "replace")
        entry = {
            "method": request.method,
            "url": str(request.url),
            "header_names": sorted(request.headers.keys()),
            "body": parsed,
        }
        with self.log.open("a", encoding="utf-8") as out:
            out.write(json.dumps(entry) + "\n")

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self._record(request, await request.aread())
        if self.served >= len(self.responses):
            return httpx.Response(
                599,
                json={"error": {"message": f"the recording has only {len(self.responses)} response(s)"}},
            )
        recorded = self.responses[self.served]
        self.served += 1
        headers = {"content-type": recorded.content_type} if recorded.content_type else {}
        return httpx.Response(recorded.status, headers=headers, stream=_Chunks(recorded.body))
