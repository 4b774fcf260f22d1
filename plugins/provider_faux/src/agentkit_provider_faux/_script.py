"""A script of assistant turns, played as an HTTP server behind ``httpx``.

:class:`Script` is an ``httpx`` transport: give it to the agent
(``AgentConfig(connection=Connection(transport=script))``) and every request the loop sends is
answered with the next turn, through the host's real HTTP, framing and
decoding path. When the script runs out, the response is an error naming
how many turns it had, so that a test that did not script enough turns fails
rather than passing on an empty answer. ``script.requests`` holds what the loop sent, decoded: the most recent
``keep_requests`` requests (each carries the whole transcript, so keeping all
of a long run's would grow with the square of its length), and
``script.request_count`` counts them all.

:class:`FunctionModel` answers each request with what a Python function of
the request returns, for a test whose model must react to what it was sent.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import httpx

from agentkit.plugin_api import (
    ContentBlock,
    Message,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    Usage,
    message_from_dict,
)

CHUNK = 12  # characters per delta, so that text visibly streams


def text(value: str) -> TextBlock:
    """A text block of a scripted turn."""
    return TextBlock(value)


def thinking(value: str, signature: str | None = "sig", redacted: bool = False) -> ThinkingBlock:
    """A thinking block of a scripted turn, signed by default."""
    return ThinkingBlock(value, signature, redacted)


def tool_call(name: str, arguments: dict[str, Any] | str | None = None, id: str | None = None) -> ToolUseBlock:
    """A tool call of a scripted turn; a dict is sent as compact JSON, a string verbatim."""
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments or {}, separators=(",", ":"))
    return ToolUseBlock(id or "", name, raw)


@dataclass
class Turn:
    """One scripted response.

    :param content: the blocks, in order.
    :param stop_reason: defaults to ``tool_use`` when there are tool calls, else ``stop``.
    :param raw_stop_reason: what the "wire" said; defaults to ``stop_reason``.
    :param usage: the usage the response reports.
    :param error: after the content, end the response with this error.
    :param status: answer with this HTTP error status instead (body: ``error``).
    :param delay: seconds to wait before each event.
    :param hang: after the content, keep the response open until the client leaves.
    """

    content: Sequence[ContentBlock] = ()
    stop_reason: StopReason | str | None = None
    raw_stop_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    error: str | None = None
    status: int | None = None
    delay: float = 0.0
    hang: bool = False

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Turn:
        """A turn from plain data, as a ``--script`` file holds it: ``{"content": [{"type": "text",
        "text": ...}, {"type": "tool_use", "name": ..., "arguments": {...}}], "stop_reason": ...}``
        (every key: ``docs/testing.md``).

        :raises ValueError: the data is malformed; the message names the key, e.g. ``content[0].type: ...``.
        """
        from ._plain import turn_fields

        return cls(*turn_fields(data))

    def to_dict(self) -> dict[str, Any]:
        """This turn as plain data, as :meth:`from_dict` reads it and a ``--script`` file holds it."""
        from ._plain import turn_to_dict

        return turn_to_dict({name: getattr(self, name) for name in self.__dataclass_fields__})


class ScriptedRequest:
    """What the loop sent for one turn, decoded back into canonical values on first access.

    Decoding waits until a test asks, so that a long scripted run costs the
    "server" only the bytes it received, as a real server's would.
    """

    def __init__(self, raw: bytes) -> None:
        self.raw = raw

    @cached_property
    def body(self) -> dict[str, Any]:
        return json.loads(self.raw)

    @cached_property
    def messages(self) -> list[Message]:
        return [message_from_dict(message) for message in self.body["messages"]]

    @property
    def system(self) -> str | None:
        return self.body.get("system")

    @property
    def tools(self) -> list[dict[str, Any]]:
        return self.body.get("tools", [])

    @property
    def max_tokens(self) -> int | None:
        return self.body.get("max_tokens")

    @property
    def tool_choice(self) -> str | None:
        return self.body.get("tool_choice")

    @property
    def tool_names(self) -> list[str]:
        return [tool["name"] for tool in self.tools]


class _ScriptedServer(httpx.AsyncBaseTransport):
    """Records what the loop sent and answers it with a turn, in the faux wire's events."""

    #: The default of ``keep_requests``.
    KEEP_REQUESTS = 16

    def __init__(self, keep_requests: int | None, log: str | None = None) -> None:
        if keep_requests is not None and keep_requests < 1:
            raise ValueError(f"keep_requests must be 1 or more, or None to keep all, not {keep_requests!r}")
        self.requests: list[ScriptedRequest] = []
        self.keep_requests = keep_requests
        #: Every request received, including those no longer kept.
        self.request_count = 0
        #: A file each request is appended to, one JSON line (``{"turn": n}``, from 1), when set.
        self.log = log

    def _answer(self, request: ScriptedRequest, number: int) -> Turn:
        """The turn that answers ``request``, the ``number``-th (from 0)."""
        raise NotImplementedError

    def _number(self, request: ScriptedRequest, received: int) -> int:
        """Which request ``request`` is, from 0: by default, the order it arrived in."""
        return received

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        received = ScriptedRequest(await request.aread())
        self.requests.append(received)
        number = self.request_count
        self.request_count += 1
        if self.keep_requests is not None and len(self.requests) > self.keep_requests:
            del self.requests[: -self.keep_requests]
        number = self._number(received, number)
        if self.log is not None:  # another process (a test of a command) counts what was asked
            with open(self.log, "a", encoding="utf-8") as out:
                out.write(json.dumps({"turn": number + 1}) + "\n")
        turn = self._answer(received, number)
        if turn.status is not None:
            error = {"error": {"type": "scripted", "message": turn.error or f"HTTP {turn.status}"}}
            return httpx.Response(turn.status, json=error)
        return httpx.Response(
            200,
            headers={"content-type": "text/event-stream"},
            stream=_TurnStream(list(_frames(turn, number, request.headers.get("x-faux-model", ""))), turn.delay, turn.hang),
        )


class Script(_ScriptedServer):
    """Plays scripted turns in order; see the module docstring.

    :param turns: :class:`Turn` values, or plain data as a ``--script`` file holds it.
    :param keep_requests: how many of the most recent requests
        ``script.requests`` keeps; ``None`` keeps every one (a short test that
        wants them all).
    :param by_transcript: answer each request with the turn its transcript has
        reached (the number of assistant messages after its last user message)
        instead of the next one in arrival order: a run recovered in another
        process, whose earlier responses came from checkpoints, gets the turn
        it would have had (durable runs, ``docs/durable.md``). Each run then
        plays the script from its first turn, and a failed turn (left out of
        the next request) is played again.
    :param log: a file each request is appended to as one JSON line ``{"turn": n}``
        (counted from 1), for a test counting the requests of another process.
    :raises ValueError: a turn of plain data is malformed; the message names
        the turn (counted from 1) and the key.
    """

    def __init__(
        self, turns: Iterable[Turn | dict[str, Any]], *, keep_requests: int | None = _ScriptedServer.KEEP_REQUESTS,
        by_transcript: bool = False, log: str | None = None,
    ) -> None:
        super().__init__(keep_requests, log)
        self.turns = [_turn(turn, number) for number, turn in enumerate(turns, 1)]
        self.by_transcript = by_transcript

    def _number(self, request: ScriptedRequest, received: int) -> int:
        if not self.by_transcript:
            return received
        roles = [message.get("role") for message in request.body.get("messages", ())]
        last_user = max((index for index, role in enumerate(roles) if role == "user"), default=-1)
        return roles[last_user + 1:].count("assistant")

    @property
    def remaining(self) -> int:
        return len(self.turns) - self.request_count

    def _answer(self, request: ScriptedRequest, number: int) -> Turn:
        if number < len(self.turns):
            return self.turns[number]
        played = len(self.turns)
        turns = "its 1 turn was" if played == 1 else f"all {played} turns were"
        return Turn(error=f"the script ran out: {turns} played and the model was asked for turn {number + 1}; "
                          "add the turns the run needs")


#: What a :class:`FunctionModel`'s function may answer: a turn, or the text of one.
Answer = Turn | str


class FunctionModel(_ScriptedServer):
    """A model that is a Python function of the request: ``function(request)`` answers each one.

    :param function: called with the :class:`ScriptedRequest` the loop sent;
        returns a :class:`Turn`, or a string as the text of one.
    :param keep_requests: as :class:`Script`'s; by default every request is kept.
    """

    def __init__(self, function: Callable[[ScriptedRequest], Answer], *, keep_requests: int | None = None) -> None:
        super().__init__(keep_requests)
        self.function = function

    def _answer(self, request: ScriptedRequest, number: int) -> Turn:
        answer = self.function(request)
        return Turn([text(answer)]) if isinstance(answer, str) else answer


def _turn(turn: Turn | dict[str, Any], number: int) -> Turn:
    if isinstance(turn, Turn):
        return turn
    from ._plain import ScriptFormatError

    try:
        return Turn.from_dict(turn)
    except ScriptFormatError as exc:
        raise ValueError(f"turn {number}{', ' + exc.key if exc.key else ''}: {exc.problem}") from None


class _TurnStream(httpx.AsyncByteStream):
    def __init__(self, frames: list[bytes], delay: float, hang: bool) -> None:
        self.frames = frames
        self.delay = delay
        self.hang = hang

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for frame in self.frames:
            if self.delay:
                await asyncio.sleep(self.delay)
            yield frame
        if self.hang:
            await asyncio.Event().wait()


def _sse(data: dict[str, Any]) -> bytes:
    return f"event: {data['type']}\ndata: {json.dumps(data)}\n\n".encode()


def _chunks(value: str) -> list[str]:
    return [value[i : i + CHUNK] for i in range(0, len(value), CHUNK)]


def _frames(turn: Turn, number: int, model: str) -> Iterable[bytes]:
    yield _sse({"type": "message_start", "id": f"faux-{number + 1}", "model": model})
    calls = 0
    for block in turn.content:
        if isinstance(block, ToolUseBlock):
            calls += 1
            call_id = block.id or f"call_{number + 1}_{calls}"
            yield _sse({"type": "block_start", "kind": "tool_use", "id": call_id, "name": block.name})
            parts = _chunks(block.arguments)
        elif isinstance(block, ThinkingBlock):
            yield _sse({"type": "block_start", "kind": "thinking"})
            parts = _chunks(block.thinking)
        else:
            yield _sse({"type": "block_start", "kind": "text"})
            parts = _chunks(block.text)  # type: ignore[union-attr]  # a script gives the model no image
        for part in parts:
            yield _sse({"type": "delta", "text": part})
        end: dict[str, Any] = {"type": "block_end"}
        if isinstance(block, ThinkingBlock):
            end.update(signature=block.signature, redacted=block.redacted)
        yield _sse(end)
    if turn.error is not None:
        yield _sse({"type": "error", "message": turn.error})
        return
    if turn.hang:
        return
    stop = turn.stop_reason or ("tool_use" if calls else "stop")
    stop = StopReason(stop).value
    yield _sse(
        {
            "type": "message_end",
            "stop_reason": stop,
            "raw_stop_reason": turn.raw_stop_reason or stop,
            "usage": turn.usage.to_dict(),
        }
    )
