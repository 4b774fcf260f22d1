"""``agentkit.conformance.codec``: the helpers a provider plugin's tests use, on a small wire of their own."""

from __future__ import annotations

import json
from typing import Any, Literal, NotRequired, Required, TypedDict

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentkit.conformance import codec
from agentkit.plugin_api import (
    AssistantMessage,
    Credential,
    MessageEnd,
    ModelInfo,
    ProviderEvent,
    ProviderRequest,
    StopReason,
    TextBlock,
    WireEvent,
    WireRequest,
)

ROWS = (
    ModelInfo("echo", "small", "echo", "http://127.0.0.1:9", 1000, 100),
    ModelInfo("echo", "large", "echo", "http://127.0.0.1:9", 9000, 900),
    ModelInfo("mirror", "large", "echo", "http://127.0.0.1:9", 9000, 900),
)


class EchoDecoder:
    """Joins the ``text`` of every event into one message."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def feed(self, event: WireEvent) -> list[ProviderEvent]:
        self.texts.append(event.data["text"])
        return []

    def finish(self) -> list[ProviderEvent]:
        return [MessageEnd(AssistantMessage([TextBlock("".join(self.texts))], StopReason.STOP))]


class Echo:
    """A wire that sends the model id and the message count, and answers with what it is fed."""

    api = "echo"
    credential_env = ()

    def auth_headers(self, credential: Credential) -> dict[str, str]:
        return {}

    def catalog(self) -> tuple[ModelInfo, ...]:
        return ROWS

    def encode(self, request: ProviderRequest) -> WireRequest:
        body = {"model": request.model.id, "messages": len(request.messages)}
        return WireRequest("/echo", json.dumps(body).encode())

    def decoder(self, request: ProviderRequest) -> EchoDecoder:
        return EchoDecoder()


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.dictionaries(st.text(), JSON, max_size=3), max_size=4), st.sampled_from(["\n", "\r\n"]))
def test_an_sse_body_frames_back_into_its_payloads(payloads: list[dict[str, Any]], line_end: str) -> None:
    raw = codec.sse_body(payloads, event=lambda payload: f"kind-{len(payload)}", line_end=line_end)
    events = codec.frame(raw, "sse")
    assert [event.data for event in events] == payloads
    assert [event.event for event in events] == [f"kind-{len(payload)}" for payload in payloads]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.dictionaries(st.text(), JSON, max_size=3), max_size=4))
def test_an_ndjson_body_frames_back_into_its_payloads(payloads: list[dict[str, Any]]) -> None:
    assert [event.data for event in codec.frame(codec.ndjson_body(payloads), "ndjson")] == payloads


def test_an_sse_body_without_event_names_has_data_lines_only() -> None:
    assert codec.sse_body([{"a": 1}, {"b": "é"}]) == 'data: {"a": 1}\n\ndata: {"b": "é"}\n\n'.encode()


def test_a_catalog_row_is_found_by_key_or_by_an_unambiguous_id() -> None:
    assert codec.catalog_row(Echo(), "echo/large") is ROWS[1]
    assert codec.catalog_row(Echo(), "small") is ROWS[0]
    assert codec.catalog_row(Echo(), "echo/small", context_window=5).context_window == 5
    with pytest.raises(LookupError, match="echo/large, mirror/large"):
        codec.catalog_row(Echo(), "large")
    with pytest.raises(LookupError, match="found none"):
        codec.catalog_row(Echo(), "echo/missing")


def test_the_encoded_body_is_parsed_whether_bytes_or_a_json_value() -> None:
    request = codec.request_for(ROWS[0])
    assert [block.text for message in request.messages for block in message.content] == ["hi"]
    assert codec.encoded_body(Echo(), request) == {"model": "small", "messages": 1}

    class Valued(Echo):
        def encode(self, request: ProviderRequest) -> WireRequest:
            return WireRequest("/echo", {"model": request.model.id})

    assert codec.encoded_body(Valued(), request) == {"model": "small"}


def test_a_kit_binds_the_helpers_to_its_provider_and_default_model() -> None:
    kit = codec.ProviderKit(Echo, "echo/small")
    assert kit.request_for().model is ROWS[0]
    assert kit.request_for(model=ROWS[1]).model is ROWS[1]
    assert kit.body_of(kit.request_for(messages=[])) == {"model": "small", "messages": 0}
    raw = codec.sse_body([{"text": "he"}, {"text": "llo"}])
    assert kit.final_message(kit.decode(kit.frame_sse(raw))).text == "hello"
    assert kit.decode(kit.frame_json({"text": "x"}), finish=False) == []


def test_a_kit_carries_wire_specific_helpers_and_says_which_one_is_missing() -> None:
    kit = codec.ProviderKit(Echo, "echo/small", chunk=lambda text: {"text": text})
    more = kit.with_helpers(twice=lambda text: [{"text": text}] * 2)
    assert more.chunk("a") == {"text": "a"} and more.twice("b") == [{"text": "b"}] * 2
    assert more.model == kit.model and more.provider is kit.provider
    with pytest.raises(AttributeError, match="no helper 'twice'"):
        kit.twice  # noqa: B018


class _Function(TypedDict):
    name: Required[str]
    strict: NotRequired[bool]


class _Tool(TypedDict, total=False):
    type: Required[Literal["function"]]
    function: _Function
    weight: float
    tags: list[str] | None


def test_a_body_that_fits_the_declared_request_type_has_no_shape_problems() -> None:
    tool = {"type": "function", "function": {"name": "grep"}, "weight": 1, "tags": None}
    assert codec.shape_problems(tool, _Tool) == []
    assert codec.shape_problems([tool, {"type": "function", "tags": ["a"]}], list[_Tool]) == []


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({"type": "function", "extra": 1}, "$.extra: not a declared field"),
        ({"function": {"name": "x"}}, "$.type: required field missing"),
        ({"type": "function", "function": {}}, "$.function.name: required field missing"),
        ({"type": "tool"}, "$.type: 'tool' not in ('function',)"),
        ({"type": "function", "function": {"name": "x", "strict": 1}}, "$.function.strict: expected bool"),
        ({"type": "function", "weight": True}, "$.weight: expected a number"),
        ({"type": "function", "tags": "a"}, "$.tags: fits no member of the union"),
        ({"type": "function", "tags": [1]}, "$.tags: fits no member of the union ($.tags[0]: expected str)"),
        ("function", "$: expected an object"),
    ],
)
def test_each_departure_from_the_declared_type_is_named_by_its_place(value: Any, problem: str) -> None:
    [found] = codec.shape_problems(value, _Tool)
    assert found.startswith(problem), found


def test_a_literal_is_exact_in_type_too() -> None:
    assert codec.shape_problems(1, Literal[True]) == ["$: 1 not in (True,)"]


def test_a_request_runs_through_the_host_runtime_against_a_mock_server() -> None:
    kit = codec.ProviderKit(Echo, "echo/small")

    def respond(request: httpx.Request) -> httpx.Response:
        body = codec.sse_body([{"text": "he"}, {"text": "llo"}])
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    message, sent = kit.through_runtime(kit.request_for(stream=True), respond, env={})
    assert message.text == "hello"
    [request] = sent
    assert str(request.url) == "http://127.0.0.1:9/echo"
    assert json.loads(request.content) == {"model": "small", "messages": 1}
