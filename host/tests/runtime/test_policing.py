"""The provider event stream is policed: a decoder's defect is a clear error, never a silent end.

A provider plugin's decoder is third-party code. Whatever it returns (a
``None``, a delta for a block that never started, two tool calls with one id,
text past the response's size limit), the caller still gets exactly one
``message_end``, last, and a message that names the provider's defect.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

import httpx
import pytest
from _runtime_fakes import model, request, sse

from agentkit.host import Agent, AgentConfig, Connection, PluginHost
from agentkit.host.runtime import ProviderRuntime, ResponseLimits
from agentkit.plugin_api import (
    AssistantMessage,
    BlockDelta,
    BlockEnd,
    BlockStart,
    MessageEnd,
    MessageStart,
    ProviderEvent,
    StopReason,
    TextBlock,
    ToolUseBlock,
    WireEvent,
    WireRequest,
    hookimpl,
)


def _end(*blocks: Any) -> MessageEnd:
    return MessageEnd(AssistantMessage(list(blocks), StopReason.TOOL_USE, provider="v", api="scripted"))


class ScriptedDecoder:
    """Returns, for the n-th wire event, the n-th list of canonical events it was given."""

    def __init__(self, script: list[Any]) -> None:
        self.script = list(script)
        self.fed = 0

    def feed(self, event: WireEvent) -> Any:
        self.fed += 1
        return self.script.pop(0) if self.script else []

    def finish(self) -> list[ProviderEvent]:
        return [MessageEnd(AssistantMessage([], StopReason.ERROR, error_message="finish"))]

    def fail(self, stop_reason: StopReason, error_message: str) -> list[ProviderEvent]:
        return [MessageEnd(AssistantMessage([], stop_reason, error_message=error_message))]


class ScriptedProvider:
    api: ClassVar[str] = "scripted"
    credential_env: ClassVar[tuple] = ()

    def __init__(self, script: list[Any]) -> None:
        self.script = script

    def auth_headers(self, credential):  # pragma: no cover - keyless
        return {}

    def catalog(self):  # pragma: no cover
        return [model(api="scripted")]

    def encode(self, req) -> WireRequest:
        return WireRequest("/x", {})

    def decoder(self, req) -> ScriptedDecoder:
        return ScriptedDecoder(self.script)


def play(script: list[Any], *, limits: ResponseLimits | None = None, events: int | None = None) -> list[Any]:
    count = events if events is not None else len(script)
    body = b"".join(sse({"n": n}) for n in range(count))
    transport = httpx.MockTransport(
        lambda req: httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)
    )
    runtime = ProviderRuntime(transport, response_limits=limits)

    async def main() -> list[Any]:
        return [e async for e in runtime.stream(ScriptedProvider(script), request())]

    return asyncio.run(main())


def assert_provider_defect(events: list[Any], *words: str) -> AssistantMessage:
    assert None not in events
    assert isinstance(events[0], MessageStart)
    assert isinstance(events[-1], MessageEnd)
    assert sum(isinstance(e, MessageEnd) for e in events) == 1
    message = events[-1].message
    assert message.stop_reason is StopReason.ERROR
    assert "'scripted' provider" in message.error_message
    for word in words:
        assert word in message.error_message
    return message


def test_a_none_from_the_decoder_is_a_provider_error_not_a_silent_end() -> None:
    events = play([[MessageStart()], [None]])
    assert_provider_defect(events, "None")


def test_a_decoder_returning_something_other_than_a_list_is_a_provider_error() -> None:
    events = play([[MessageStart()], None])
    assert_provider_defect(events, "list")


def test_a_delta_for_a_block_that_never_started_is_a_provider_error() -> None:
    events = play([[MessageStart()], [BlockDelta(3, "orphan")]])
    assert_provider_defect(events, "block 3", "never started")
    assert not any(isinstance(e, BlockDelta) for e in events), "the orphan delta reached the consumer"


def test_an_end_before_its_start_is_a_provider_error() -> None:
    events = play([[MessageStart()], [BlockEnd(0, TextBlock("x"))]])
    assert_provider_defect(events, "block 0")


def test_a_block_started_twice_is_a_provider_error() -> None:
    events = play([[MessageStart(), BlockStart(0, "text")], [BlockStart(0, "text")]])
    assert_provider_defect(events, "block 0", "twice")


class _OwnStart(BlockStart):
    """A decoder's own event class: policed as the event type it extends."""


class _OwnDelta(BlockDelta):
    pass


def test_a_decoders_own_subclass_of_an_event_is_policed_as_that_event() -> None:
    events = play([[MessageStart(), _OwnStart(0, "text")], [_OwnStart(0, "text")]])
    assert_provider_defect(events, "block 0", "twice")
    events = play([[MessageStart()], [_OwnDelta(3, "orphan")]])
    assert_provider_defect(events, "block 3", "never started")


def test_a_delta_after_its_block_ended_is_a_provider_error() -> None:
    events = play([[MessageStart(), BlockStart(0, "text"), BlockEnd(0, TextBlock(""))], [BlockDelta(0, "late")]])
    assert_provider_defect(events, "block 0", "ended")


def test_a_duplicate_tool_call_id_is_a_provider_error_and_neither_call_runs() -> None:
    first = ToolUseBlock("call_1", "rm", "{}")
    second = ToolUseBlock("call_1", "rm", "{}")
    events = play([
        [MessageStart(), BlockStart(0, "tool_use", "rm", "call_1"), BlockEnd(0, first)],
        [BlockStart(1, "tool_use", "rm", "call_1"), BlockEnd(1, second)],
        [_end(first, second)],
    ])
    message = assert_provider_defect(events, "call_1", "twice")
    assert len([b for b in message.content if isinstance(b, ToolUseBlock)]) <= 1


def test_a_duplicate_id_only_in_the_final_message_is_a_provider_error() -> None:
    call = ToolUseBlock("call_9", "rm", "{}")
    events = play([[MessageStart()], [_end(call, call)]])
    assert_provider_defect(events, "call_9")


def test_the_good_events_before_the_defect_reach_the_consumer() -> None:
    events = play([[MessageStart(), BlockStart(0, "text"), BlockDelta(0, "kept")], [BlockDelta(7, "x")]])
    assert [e.delta for e in events if isinstance(e, BlockDelta)] == ["kept"]
    assert_provider_defect(events)


@pytest.mark.parametrize(
    ("kind", "limit_field", "word"),
    [("text", "text_bytes", "text"), ("thinking", "thinking_bytes", "thinking"),
     ("tool_use", "argument_bytes", "argument")],
)
def test_a_response_past_its_size_limit_ends_as_an_error(kind: str, limit_field: str, word: str) -> None:
    deltas = [[BlockDelta(0, "0123456789")] for _ in range(50)]
    script = [[MessageStart(), BlockStart(0, kind, "t" if kind == "tool_use" else None,
                                          "c" if kind == "tool_use" else None)], *deltas]
    limits = ResponseLimits(**{limit_field: 100})
    events = play(script, limits=limits)
    message = events[-1].message
    assert message.stop_reason is StopReason.ERROR
    assert word in message.error_message and "100 bytes" in message.error_message
    assert "response_limits" in message.error_message, "the message names the setting to change"
    delivered = sum(len(e.delta) for e in events if isinstance(e, BlockDelta))
    assert delivered <= 100


def test_the_default_limits_come_from_the_model_catalog() -> None:
    small = model(max_output=1000)
    large = model(max_output=128_000)
    assert ResponseLimits().resolve(small).text_bytes < ResponseLimits().resolve(large).text_bytes
    assert ResponseLimits(text_bytes=5).resolve(large).text_bytes == 5
    assert ResponseLimits().resolve(large).argument_bytes >= 1024 * 1024


class _ScriptedPlugin:
    def __init__(self, provider: ScriptedProvider) -> None:
        self.provider = provider

    @hookimpl
    def agentkit_register_providers(self, register: Any) -> None:
        register(self.provider)


def test_an_agent_run_on_a_provider_yielding_none_ends_as_an_error_not_an_assertion() -> None:
    body = b"".join(sse({"n": n}) for n in range(3))
    transport = httpx.MockTransport(
        lambda req: httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)
    )
    host = PluginHost()
    host.register(_ScriptedPlugin(ScriptedProvider([[MessageStart()], [None]])), name="scripted")
    agent = Agent(AgentConfig(model="fakevendor/fake-1", connection=Connection(transport=transport)), host=host)
    seen: list[Any] = []
    agent.subscribe(seen.append)
    result = agent.run_sync("go")
    assert result.outcome == "error"
    assert "'scripted' provider" in (result.error or "") and "None" in (result.error or "")
    assert None not in seen
