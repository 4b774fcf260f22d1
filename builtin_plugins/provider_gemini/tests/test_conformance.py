"""The shared conformance fixtures (``agentkit.conformance``) on this wire.

The conformance suite decodes a wire only through a responder that renders
canonical responses as that wire's events. This one is written from the
Gemini API reference (``GenerateContentResponse``: candidates, parts,
``finishReason``, ``usageMetadata`` with cached tokens inside the prompt count
and thoughts beside the candidates count), with the same chunk builder as the
other tests (``conftest.stream_chunks``), and is registered for the duration of
the test; the suite then encodes every shared transcript and decodes every
shared response, streamed and whole, plus the error and abort cases.

One restatement: this wire carries call arguments as a JSON object, not as
text, so the only argument text it can give back is the object written
compactly. The shared fixture's text has spaces after ``:`` and ``,``, which
no object-carrying wire can reproduce; the test hands the suite the same
fixture with the same objects written compactly (and checks they parse to the
original objects), instead of weakening the comparison.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from agentkit.plugin_api import (
    AssistantMessage,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    WireEvent,
)

_FINISH = {StopReason.LENGTH: "MAX_TOKENS", StopReason.REFUSAL: "SAFETY"}


class GeminiResponder:
    """Canonical responses as ``streamGenerateContent`` chunks and a whole response."""

    api = "google-generative-ai"
    # No cache writes on this wire: implicit caching reports reads only.
    features = frozenset({"thinking", "signature", "reasoning"})

    def __init__(self, kit: Any) -> None:
        self.kit = kit

    def _response(self, message: AssistantMessage) -> dict[str, Any]:
        parts: list[dict[str, Any]] = []
        for block in message.content:
            if isinstance(block, ThinkingBlock):
                part = {"text": block.thinking, "thought": True}
                if block.signature:
                    part["thoughtSignature"] = block.signature
                parts.append(part)
            elif isinstance(block, TextBlock):
                parts.append({"text": block.text})
            elif isinstance(block, ToolUseBlock):
                # The wire's optional call id, so the fixture's ids come back as they are.
                call = {"id": block.id, "name": block.name, "args": block.parsed_arguments()}
                parts.append({"functionCall": call})
        usage = message.usage
        metadata = self.kit.usage_metadata(
            usage.input + usage.cache_read,
            usage.output - usage.reasoning,
            cached=usage.cache_read,
            thoughts=usage.reasoning,
        )
        return self.kit.response(
            parts, finish=_FINISH.get(message.stop_reason, "STOP"), usage=metadata
        )

    def stream(self, message: AssistantMessage) -> list[WireEvent]:
        chunks = self.kit.stream_chunks(self._response(message), chunk=5)
        return self.kit.frame_sse(self.kit.sse_bytes(chunks))

    def whole(self, message: AssistantMessage) -> list[WireEvent] | None:
        return self.kit.frame_json(self._response(message))

    def error(self, text: str) -> list[WireEvent]:
        error = {"error": {"code": 500, "message": text, "status": "INTERNAL"}}
        return [WireEvent(data=error)]


def _compact_arguments(fixture: Any) -> Any:
    """``fixture`` with each call's argument text as this wire renders its object."""
    content = [
        dataclasses.replace(
            block,
            arguments=json.dumps(
                json.loads(block.arguments), ensure_ascii=False, separators=(",", ":")
            ),
        )
        if isinstance(block, ToolUseBlock)
        else block
        for block in fixture.message.content
    ]
    return dataclasses.replace(
        fixture, message=dataclasses.replace(fixture.message, content=content)
    )


def test_the_shared_fixtures_pass_on_this_wire(kit, monkeypatch) -> None:
    conformance = pytest.importorskip("agentkit.conformance")
    from agentkit.conformance import fixtures

    # register_responder has no inverse; setitem puts the registry back afterwards.
    monkeypatch.setitem(fixtures._RESPONDERS, "google-generative-ai", GeminiResponder(kit))
    restated = tuple(_compact_arguments(fixture) for fixture in fixtures.RESPONSES)
    for old, new in zip(fixtures.RESPONSES, restated, strict=True):
        assert [json.loads(c.arguments) for c in old.message.tool_calls] == [
            json.loads(c.arguments) for c in new.message.tool_calls
        ]
    monkeypatch.setattr(fixtures, "RESPONSES", restated)
    report = conformance.check_plugin("gemini", lint=False)
    provider_checks = [check for check in report.checks if check.check.startswith("providers.")]
    problems = [
        f"{check.check}: {check.message}" for check in provider_checks if check.outcome != "pass"
    ]
    assert problems == []
    assert sum(check.check == "providers.decode" for check in provider_checks) == 8
