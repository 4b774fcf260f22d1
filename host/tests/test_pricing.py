"""Pricing, observed through the agent: each response is priced once, at the model that served it.

A tiny wire whose responses name the model that served them (and may report
their own cost) runs under a catalog of two priced rows of one vendor.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, ClassVar

import httpx
import pytest

from agentkit.host import Agent, AgentConfig, Connection, PluginHost
from agentkit.plugin_api import (
    AssistantMessage,
    Credential,
    MessageAssembler,
    ModelInfo,
    ProviderEvent,
    ProviderRequest,
    StopReason,
    WireEvent,
    WireRequest,
    hookimpl,
)

DEAR = ModelInfo("pv", "big", "priced-wire", "https://priced.example/", 100_000, 1000,
                 input_price=15.0, output_price=75.0, cache_read_price=1.5, cache_write_price=18.75, default=True)
CHEAP = ModelInfo("pv", "small", "priced-wire", "https://priced.example/", 100_000, 1000,
                  input_price=1.0, output_price=5.0, cache_read_price=0.1, cache_write_price=1.25)
USAGE = {"input": 1000, "output": 200, "cache_read": 3000, "cache_write": 5000}


def dollars(row: ModelInfo) -> float:
    return (1000 * row.input_price + 200 * row.output_price + 3000 * row.cache_read_price
            + 5000 * row.cache_write_price) / 1_000_000


class _Decoder:
    def __init__(self, request: ProviderRequest) -> None:
        self.assembler = MessageAssembler(provider=request.model.vendor, api="priced-wire", model=request.model.id)

    def feed(self, event: WireEvent) -> list[ProviderEvent]:
        data, a = event.data, self.assembler
        a.response_model = data["model"]
        if data["type"] == "tool":
            index, events = a.start_block("tool_use", id=data["id"], name=data["name"])
            return events + a.delta(index, "{}") + a.end_block(index)
        if data["type"] == "text":
            index, events = a.start_block("text")
            return events + a.delta(index, data["text"]) + a.end_block(index)
        usage = data["usage"]
        a.usage.input, a.usage.output = usage["input"], usage["output"]
        a.usage.cache_read, a.usage.cache_write = usage["cache_read"], usage["cache_write"]
        a.usage.cost = usage.get("cost", 0.0)
        return a.finish(StopReason(data["stop"]))

    def finish(self) -> list[ProviderEvent]:
        return self.assembler.fail(StopReason.ERROR, "no end event")

    def fail(self, stop_reason: StopReason, error_message: str) -> list[ProviderEvent]:
        return self.assembler.fail(stop_reason, error_message)


class _PricedWire:
    api: ClassVar[str] = "priced-wire"
    credential_env: ClassVar[tuple[tuple[str, str], ...]] = ()

    def auth_headers(self, credential: Credential) -> dict[str, str]:
        return {}

    def catalog(self) -> list[ModelInfo]:
        return [DEAR, CHEAP]

    def encode(self, request: ProviderRequest) -> WireRequest:
        return WireRequest("/v1/answer", {"messages": len(request.messages)})

    def decoder(self, request: ProviderRequest) -> _Decoder:
        return _Decoder(request)


class _Plugin:
    @hookimpl
    def agentkit_register_providers(self, register: Any) -> None:
        register(_PricedWire())


def _responses(served: str, usage: dict[str, Any]) -> httpx.MockTransport:
    """First a call to a tool nobody has (answered with an error), then text: two responses."""
    turns = [
        [{"type": "tool", "id": "c1", "name": "nowhere"}, {"type": "end", "stop": "tool_use"}],
        [{"type": "text", "text": "done"}, {"type": "end", "stop": "stop"}],
    ]
    sent: list[int] = []

    def answer(request: httpx.Request) -> httpx.Response:
        turn = turns[len(sent)]
        sent.append(1)
        events = [{**event, "model": served} | ({"usage": usage} if event["type"] == "end" else {})
                  for event in turn]
        body = b"".join(f"data: {json.dumps(event)}\n\n".encode() for event in events)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    return httpx.MockTransport(answer)


class CountingPricing:
    """Wraps the agent's pricing: every response it prices, in order."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.priced: list[AssistantMessage] = []

    def __call__(self, message: AssistantMessage, requested: ModelInfo) -> AssistantMessage:
        self.priced.append(message)
        return self.inner(message, requested)


def _run(served: str, usage: dict[str, Any], tmp_path: Any) -> tuple[Any, CountingPricing]:
    host = PluginHost()
    assert host.register(_Plugin(), name="priced").status == "loaded"
    agent = Agent(AgentConfig(model="pv/big", root=tmp_path,
                              connection=Connection(transport=_responses(served, usage)), tools=[]),
                  host=host)
    counting = CountingPricing(agent.runtime.pricing)
    agent.runtime.pricing = counting
    result = agent.run_sync("go")
    assert result.outcome == "completed", result.error
    return result, counting


def _responses_of(messages: Sequence[Any]) -> list[AssistantMessage]:
    return [message for message in messages if isinstance(message, AssistantMessage)]


@pytest.mark.parametrize("served", ["small", "small-2026-01-01"])
def test_a_response_served_by_another_model_is_priced_once_at_its_prices(served: str, tmp_path: Any) -> None:
    """Asked for the dear row, served by the cheap one (or a dated snapshot of it): the cheap bill, priced once."""
    result, counting = _run(served, USAGE, tmp_path)
    answers = _responses_of(result.messages)
    assert len(answers) == 2 and len(counting.priced) == 2
    assert [message.response_model for message in counting.priced] == [served, served]
    assert [message.usage.cost for message in answers] == [pytest.approx(dollars(CHEAP))] * 2
    assert result.usage.cost == pytest.approx(2 * dollars(CHEAP))
    assert dollars(CHEAP) != pytest.approx(dollars(DEAR))


def test_a_response_of_the_requested_model_is_at_its_prices(tmp_path: Any) -> None:
    result, counting = _run("big", USAGE, tmp_path)
    assert len(counting.priced) == 2
    assert result.usage.cost == pytest.approx(2 * dollars(DEAR))


def test_a_cost_the_wire_reported_is_kept_whoever_served(tmp_path: Any) -> None:
    """The wire's own bill stands, even when it happens to equal the requested row's arithmetic."""
    reported = dollars(DEAR)
    result, counting = _run("small", {**USAGE, "cost": reported}, tmp_path)
    assert len(counting.priced) == 2
    assert [message.usage.cost for message in _responses_of(result.messages)] == [reported, reported]
