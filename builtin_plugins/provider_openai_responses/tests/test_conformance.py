"""The shared conformance fixtures (``agentkit.conformance``) on this wire.

The conformance suite decodes a wire only through a responder that renders
canonical responses as that wire's events. This one is written from OpenAI's
Responses streaming reference, with the same event builder as the other
tests (``conftest.stream_events``), and is registered for the duration of the
test; the suite then encodes every shared transcript and decodes every shared
response, streamed and whole, plus the error and abort cases.
"""

from __future__ import annotations

from typing import Any

import pytest
from agentkit_provider_openai_responses import split_call_id

from agentkit.plugin_api import (
    AssistantMessage,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    WireEvent,
)


class ResponsesResponder:
    """Canonical responses as Responses events (stream) and ``response`` objects (whole)."""

    api = "openai-responses"
    # Reasoning signatures are this wire's own JSON, so an arbitrary one cannot round-trip.
    features = frozenset({"thinking", "cache_write", "reasoning"})

    def __init__(self, kit: Any) -> None:
        self.kit = kit

    def _response(self, message: AssistantMessage) -> dict[str, Any]:
        output: list[dict[str, Any]] = []
        for n, block in enumerate(message.content):
            if isinstance(block, ThinkingBlock):
                output.append(self.kit.reasoning_item(f"rs_{n}", [block.thinking], "gAAAA-c"))
            elif isinstance(block, TextBlock):
                output.append(self.kit.message_item(block.text, f"msg_{n}"))
            elif isinstance(block, ToolUseBlock):
                call_id, item_id = split_call_id(block.id)
                item = self.kit.call_item(call_id, item_id or "", block.name, block.arguments)
                if item_id is None:
                    del item["id"]
                output.append(item)
        usage = message.usage
        wire_usage = {
            "input_tokens": usage.input + usage.cache_read + usage.cache_write,
            "input_tokens_details": {
                "cached_tokens": usage.cache_read,
                "cache_write_tokens": usage.cache_write,
            },
            "output_tokens": usage.output,
            "output_tokens_details": {"reasoning_tokens": usage.reasoning},
        }
        if message.stop_reason is StopReason.LENGTH:
            return self.kit.response_object(
                output, status="incomplete", incomplete_reason="max_output_tokens", usage=wire_usage
            )
        return self.kit.response_object(output, usage=wire_usage)

    def stream(self, message: AssistantMessage) -> list[WireEvent]:
        events = self.kit.stream_events(self._response(message))
        return [WireEvent(data=event, event=event["type"]) for event in events]

    def whole(self, message: AssistantMessage) -> list[WireEvent] | None:
        return [WireEvent(data=self._response(message))]

    def error(self, text: str) -> list[WireEvent]:
        event = {"type": "error", "code": "server_error", "message": text, "param": None}
        return [WireEvent(data=event, event="error")]


def test_the_shared_fixtures_pass_on_this_wire(kit, monkeypatch) -> None:
    conformance = pytest.importorskip("agentkit.conformance")
    from agentkit.conformance import fixtures

    # register_responder has no inverse; setitem puts the registry back afterwards.
    monkeypatch.setitem(fixtures._RESPONDERS, "openai-responses", ResponsesResponder(kit))
    report = conformance.check_plugin("openai-responses", lint=False)
    provider_checks = [check for check in report.checks if check.check.startswith("providers.")]
    problems = [
        f"{check.check}: {check.message}" for check in provider_checks if check.outcome != "pass"
    ]
    assert problems == []
    assert sum(check.check == "providers.decode" for check in provider_checks) == 8
