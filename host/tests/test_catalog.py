"""The catalog at request time, observed through the agent: max_tokens fits the window, reasoning is a
level the model has, cost is at the prices of the model that served.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

import httpx
import pytest
from agentkit_provider_faux import FauxProvider, Script
from host_helpers import make_agent, make_host

from agentkit.host import Agent, AgentConfig, Connection, ModelSettings, PluginHost
from agentkit.plugin_api import ModelInfo, hookimpl

WINDOW = 200_000  # the scripted model's context window
MAX_OUTPUT = 32_000  # and its output limit
RESERVE = 4096


def expected_max_tokens(prompt_chars: int, requested: int = MAX_OUTPUT) -> int:
    """The documented rule: min(requested, max(1, window - ceil(chars / 4) - 4096))."""
    return min(requested, max(1, WINDOW - -(-prompt_chars // 4) - RESERVE))


# -- max_tokens ----------------------------------------------------------------------


def test_a_short_prompt_gets_the_whole_output_limit(tmp_path: Any) -> None:
    agent, script = make_agent([{"content": [{"type": "text", "text": "hi"}]}], root=tmp_path, tools=[])
    agent.run_sync("hello")
    assert script.requests[0].max_tokens == MAX_OUTPUT


def test_a_long_prompt_leaves_only_what_the_window_has_left(tmp_path: Any) -> None:
    prompt = "x" * 700_000  # ~175k tokens of a 200k window
    agent, script = make_agent([{"content": [{"type": "text", "text": "ok"}]}], root=tmp_path, tools=[])
    agent.run_sync(prompt)
    assert script.requests[0].max_tokens == expected_max_tokens(len(prompt))
    assert script.requests[0].max_tokens < MAX_OUTPUT


def test_a_prompt_past_the_window_still_asks_for_one_token(tmp_path: Any) -> None:
    agent, script = make_agent([{"content": [{"type": "text", "text": "ok"}]}], root=tmp_path, tools=[])
    agent.run_sync("y" * 900_000)
    assert script.requests[0].max_tokens == 1


def test_the_estimate_grows_with_the_transcript(tmp_path: Any) -> None:
    """The second request counts the first answer and the tool result too."""
    answer = "z" * 400_000
    agent, script = make_agent(
        [{"content": [{"type": "text", "text": answer}]}, {"content": [{"type": "text", "text": "ok"}]}],
        root=tmp_path, tools=[],
    )
    agent.run_sync("a" * 300_000)
    agent.run_sync("b")
    assert script.requests[0].max_tokens == expected_max_tokens(300_000)
    assert script.requests[1].max_tokens == expected_max_tokens(300_000 + len(answer) + 1)


def test_a_smaller_request_is_kept(tmp_path: Any) -> None:
    agent, script = make_agent([{"content": [{"type": "text", "text": "ok"}]}], root=tmp_path, tools=[],
                               settings=ModelSettings(max_tokens=500))
    agent.run_sync("hello")
    assert script.requests[0].max_tokens == 500


# -- reasoning -----------------------------------------------------------------------


class _LevelsProvider(FauxProvider):
    """The scripted codec under another wire name, serving rows with chosen reasoning levels."""

    api: ClassVar[str] = "faux-levels"

    def catalog(self) -> tuple[ModelInfo, ...]:
        base = dict(vendor="levels", api=self.api, base_url="http://faux.invalid", context_window=WINDOW,
                    max_output=MAX_OUTPUT)
        return (
            ModelInfo(id="gapped", reasoning_levels=("low", "high"), default=True, **base),
            ModelInfo(id="plain", **base),
        )


class _LevelsPlugin:
    @hookimpl
    def agentkit_register_providers(self, register: Any) -> None:
        register(_LevelsProvider())


def _reasoning_sent(model: str, level: str | None, tmp_path: Any) -> Any:
    host = make_host(_LevelsPlugin())
    script = Script([{"content": [{"type": "text", "text": "ok"}]}])
    agent = Agent(AgentConfig(model=model, root=tmp_path, connection=Connection(transport=script), tools=[],
                              reasoning=level), host=host)
    result = agent.run_sync("think")
    assert result.outcome == "completed", result.error
    return script.requests[0].body["reasoning"]


@pytest.mark.parametrize(
    ("level", "sent"),
    [
        ("medium", "medium"),  # supported: as asked
        ("minimal", "low"),  # below the lowest: up
        ("xhigh", "high"),  # above the highest: down
        ("max", "high"),
        (None, None),
        ("off", None),
    ],
)
def test_reasoning_is_clamped_to_the_scripted_models_levels(level: str | None, sent: str | None, tmp_path: Any) -> None:
    assert _reasoning_sent("faux/scripted", level, tmp_path) == sent


def test_reasoning_between_two_levels_goes_up_first(tmp_path: Any) -> None:
    """A model with low and high only: medium becomes high (at least the thought asked for), never low."""
    assert _reasoning_sent("levels/gapped", "medium", tmp_path) == "high"
    assert _reasoning_sent("levels/gapped", "minimal", tmp_path) == "low"


def test_a_model_without_levels_gets_no_reasoning(tmp_path: Any) -> None:
    assert _reasoning_sent("levels/plain", "high", tmp_path) is None


def test_an_unknown_level_ends_the_run_with_a_message_naming_the_levels(tmp_path: Any) -> None:
    host = make_host()
    script = Script([{"content": [{"type": "text", "text": "ok"}]}])
    agent = Agent(AgentConfig(model="faux/scripted", root=tmp_path, connection=Connection(transport=script), tools=[],
                              reasoning="turbo"),
                  host=host)
    result = agent.run_sync("think")
    assert result.outcome == "error"
    assert "turbo" in (result.error or "") and "low, medium, high" in (result.error or "")
    assert script.requests == []


# -- cost ----------------------------------------------------------------------------


def _anthropic_stream(served: str, usage: dict[str, int]) -> bytes:
    """A Messages stream in the wire's documented event order, with the served model named in message_start."""
    events = [
        ("message_start", {"type": "message_start", "message": {
            "id": "msg_1", "type": "message", "role": "assistant", "model": served, "content": [],
            "stop_reason": None, "usage": {**usage, "output_tokens": 1}}}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "2"}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                           "usage": {"output_tokens": usage["output_tokens"]}}),
        ("message_stop", {"type": "message_stop"}),
    ]
    return b"".join(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in events)


USAGE = {"input_tokens": 1000, "output_tokens": 200, "cache_read_input_tokens": 3000,
         "cache_creation_input_tokens": 5000}


def _run_anthropic(model: str, served: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> tuple[Any, PluginHost]:
    host = PluginHost.discover()
    if "anthropic-messages" not in host.providers:
        pytest.skip("agentkit-provider-anthropic is not installed")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key-not-real")
    for name in ("ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_OAUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    transport = httpx.MockTransport(lambda request: httpx.Response(
        200, headers={"content-type": "text/event-stream"}, content=_anthropic_stream(served, {**USAGE})))
    agent = Agent(AgentConfig(model=model, root=tmp_path, connection=Connection(transport=transport),
                              tools=[]), host=host)
    result = agent.run_sync("What is 1+1?")
    assert result.outcome == "completed", result.error
    return result, host


def _dollars(row: ModelInfo) -> float:
    return (1000 * row.input_price + 200 * row.output_price + 3000 * row.cache_read_price
            + 5000 * row.cache_write_price) / 1_000_000


def test_cost_is_at_the_prices_of_the_model_that_served(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """Asked for Opus, served by a Haiku snapshot (a fallback): the bill is Haiku's, cache writes included."""
    result, host = _run_anthropic("anthropic/claude-opus-5-5", "claude-haiku-4-5-20251001", monkeypatch, tmp_path)
    haiku, opus = host.models["anthropic/claude-haiku-4-5"], host.models["anthropic/claude-opus-5-5"]
    assert result.final_message.response_model == "claude-haiku-4-5-20251001"
    assert result.usage.cost == pytest.approx(_dollars(haiku))
    assert result.final_message.usage.cost == pytest.approx(_dollars(haiku))
    assert _dollars(haiku) != pytest.approx(_dollars(opus))


def test_cost_of_a_snapshot_of_the_requested_model_is_at_its_prices(monkeypatch: pytest.MonkeyPatch,
                                                                     tmp_path: Any) -> None:
    result, host = _run_anthropic("anthropic/claude-haiku-4-5", "claude-haiku-4-5-20251001", monkeypatch, tmp_path)
    haiku = host.models["anthropic/claude-haiku-4-5"]
    assert result.usage.cost == pytest.approx(_dollars(haiku))
    assert 5000 * haiku.cache_write_price / 1_000_000 > 0  # cache writes are part of the bill


def test_a_snapshot_name_is_billed_at_the_longest_row_it_extends(monkeypatch: pytest.MonkeyPatch,
                                                                  tmp_path: Any) -> None:
    """claude-opus-5-5-<date> extends both claude-opus-5 and claude-opus-5-5: it is an Opus 5.5."""
    result, host = _run_anthropic("anthropic/claude-opus-5", "claude-opus-5-5-20261101", monkeypatch, tmp_path)
    assert result.usage.cost == pytest.approx(_dollars(host.models["anthropic/claude-opus-5-5"]))
    assert _dollars(host.models["anthropic/claude-opus-5-5"]) != pytest.approx(_dollars(host.models["anthropic/claude-opus-5"]))


def test_an_unknown_served_model_is_billed_at_the_requested_row(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    result, host = _run_anthropic("anthropic/claude-sonnet-4-6", "some-model-from-elsewhere", monkeypatch, tmp_path)
    assert result.usage.cost == pytest.approx(_dollars(host.models["anthropic/claude-sonnet-4-6"]))
