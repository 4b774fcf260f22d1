"""A provider written from the ``Provider`` protocol alone, no vendor code: it runs and it conforms.

The wire below is made up for this test. Its provider subclasses the protocol
(inheriting the defaults of the optional members it leaves out), uses only
``agentkit.plugin_api`` and its codec kit, and brings its own conformance
responder, as a third-party wire would.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import httpx

from agentkit.conformance import fixtures
from agentkit.conformance._providers import check_providers
from agentkit.host import Agent, AgentConfig, Connection, PluginHost
from agentkit.plugin_api import (
    AssistantMessage,
    ConformanceResponder,
    Credential,
    CredentialKind,
    Message,
    MessageAssembler,
    ModelInfo,
    Provider,
    ProviderEvent,
    ProviderRequest,
    StopReason,
    StreamDecoder,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    Usage,
    WireEvent,
    WireRequest,
    hookimpl,
)
from agentkit.plugin_api.codec import (
    IdentityCache,
    SamplingRules,
    TranscriptEncoder,
    array,
    dumps,
    refusal,
    sampling,
)

API = "protocol-only"
MODEL = ModelInfo(vendor="protocol-only", id="model-1", api=API, base_url="http://protocol-only.invalid",
                  context_window=32_000, max_output=1_000, default=True)


class Decoder:
    """The made-up wire's events: ``block`` / ``delta`` / ``block_end`` per block, then ``end``."""

    def __init__(self, request: ProviderRequest) -> None:
        self.out = MessageAssembler(provider=request.model.vendor, api=API, model=request.model.id)
        self.index: int | None = None

    def feed(self, event: WireEvent) -> list[ProviderEvent]:
        data = event.data if isinstance(event.data, dict) else {}
        kind = data.get("type")
        if kind == "block":
            self.index, events = self.out.start_block(data["kind"], id=data.get("id"), name=data.get("name"))
            return events
        if kind == "delta" and self.index is not None:
            return self.out.delta(self.index, data["text"])
        if kind == "block_end" and self.index is not None:
            self.out.update(self.index, signature=data.get("signature"))
            index, self.index = self.index, None
            return self.out.end_block(index)
        if kind == "end":
            self.out.usage = Usage.from_dict(data["usage"])
            return self.out.finish(StopReason(data["stop_reason"]), data["stop_reason"])
        if kind == "error":
            return self.out.fail(StopReason.ERROR, data["message"])
        return []

    def finish(self) -> list[ProviderEvent]:
        return [] if self.out.ended else self.out.fail(StopReason.ERROR, "the response ended before its end")

    def fail(self, stop_reason: StopReason, error_message: str) -> list[ProviderEvent]:
        return self.out.fail(stop_reason, error_message)


class Responder:
    """The made-up wire's server, written from its format above, not from the decoder."""

    api = API
    features = frozenset({"thinking", "signature", "cache_write", "reasoning"})

    def stream(self, message: AssistantMessage) -> list[WireEvent]:
        events: list[dict[str, Any]] = []
        for block in message.content:
            if isinstance(block, ToolUseBlock):
                events.append({"type": "block", "kind": "tool_use", "id": block.id, "name": block.name})
                text = block.arguments
            elif isinstance(block, ThinkingBlock):
                events.append({"type": "block", "kind": "thinking"})
                text = block.thinking
            else:
                assert isinstance(block, TextBlock)
                events.append({"type": "block", "kind": "text"})
                text = block.text
            events += [{"type": "delta", "text": text[i : i + 4]} for i in range(0, len(text), 4)]
            events.append({"type": "block_end", "signature": getattr(block, "signature", None)})
        events.append({"type": "end", "stop_reason": message.stop_reason.value, "usage": message.usage.to_dict()})
        return [WireEvent(event) for event in events]

    def whole(self, message: AssistantMessage) -> list[WireEvent] | None:
        return None

    def error(self, text: str) -> list[WireEvent]:
        return [WireEvent({"type": "error", "message": text})]


class ProtocolOnly(Provider):
    api = API
    credential_env: ClassVar[Sequence[tuple[str, CredentialKind]]] = ()
    conformance_responder: ClassVar[ConformanceResponder] = Responder()

    def __init__(self) -> None:
        self.messages: IdentityCache[bytes] = IdentityCache(1024)
        self.transcript: TranscriptEncoder[tuple[bytes, ...]] = TranscriptEncoder(self.extend)

    def extend(self, done: tuple[bytes, ...] | None, new: Sequence[Message]) -> tuple[bytes, ...]:
        return (*(done or ()), *(self.messages.get(m, lambda m=m: dumps(m.to_dict())) for m in new))

    def auth_headers(self, credential: Credential) -> dict[str, str]:
        return {"Authorization": f"Bearer {credential.value}"}

    def catalog(self) -> Sequence[ModelInfo]:
        return (MODEL,)

    def encode(self, request: ProviderRequest) -> WireRequest:
        # This wire sends no tools and no sampling settings: it refuses them, naming itself.
        if request.tool_choice not in (None, "auto"):
            raise refusal(API, f"tool_choice={request.tool_choice!r}", "it sends no tools")
        sampling(request, SamplingRules(API))
        return self.bare(request)

    def bare(self, request: ProviderRequest) -> WireRequest:
        head = dumps({"model": request.model.id, "system": request.system, "stream": request.stream})
        body = b"".join([head[:-1], b',"messages":', *array(self.transcript.encode(request.messages)), b"}"])
        return WireRequest("/generate", body, framing="sse" if request.stream else "json")

    def decoder(self, request: ProviderRequest) -> StreamDecoder:
        return Decoder(request)


class DropsSettings(ProtocolOnly):
    """The same wire, forgetting to refuse what it cannot send."""

    def encode(self, request: ProviderRequest) -> WireRequest:
        return self.bare(request)


class Plugin:
    def __init__(self, provider: Provider | None = None) -> None:
        self.provider = provider or ProtocolOnly()

    @hookimpl
    def agentkit_register_providers(self, register: Any) -> None:
        register(self.provider)


def host(provider: Provider | None = None) -> PluginHost:
    built = PluginHost()
    assert built.register(Plugin(provider), name="protocol-only").status == "loaded"
    return built


def test_a_provider_that_drops_settings_quietly_is_warned_naming_them():
    (warning,) = [c for c in check_providers(host(DropsSettings()), "protocol-only") if c.outcome != "pass"]
    assert (warning.check, warning.outcome) == ("providers.settings", "warn")
    assert "tool_choice='required'" in warning.message and "seed" in warning.message
    assert "codec.refusal" in warning.fix


def test_a_provider_written_from_the_protocol_alone_passes_the_conformance_checks():
    checks = check_providers(host(), "protocol-only")
    assert [c for c in checks if c.outcome in ("fail", "warn")] == []
    passed = {(c.check, c.message) for c in checks if c.outcome == "pass"}
    assert ("providers.decode", "parallel_tool_calls (stream)") in passed
    assert ("providers.decode", "thinking (stream)") in passed


def test_a_provider_written_from_the_protocol_alone_answers_an_agent(tmp_path):
    sent: list[bytes] = []
    answer = AssistantMessage([TextBlock("Hello from the protocol.")], StopReason.STOP, usage=Usage(input=3, output=4))

    def server(request: httpx.Request) -> httpx.Response:
        sent.append(request.content)
        frames = b"".join(f"data: {dumps(event.data).decode()}\n\n".encode() for event in Responder().stream(answer))
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=frames)

    agent = Agent(AgentConfig(model="protocol-only/model-1", root=tmp_path, tools=[],
                              connection=Connection(transport=httpx.MockTransport(server))), host=host())
    result = agent.run_sync("Say hello.")
    assert result.messages[-1].text == "Hello from the protocol."
    assert result.usage.output == 4
    assert len(sent) == 1 and b'"model":"model-1"' in sent[0]


def test_the_conformance_package_renders_no_wire_by_itself():
    """A wire's format comes from its own plugin: a provider without a responder gets none."""

    class Anonymous:
        api = "anthropic-messages"

    assert fixtures.responder_for(Anonymous()) is None
    discovered = PluginHost.discover()
    for api, provider in discovered.providers.items():
        responder = fixtures.responder_for(provider)
        assert responder is not None and responder.api == api, api
