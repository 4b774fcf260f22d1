"""Helpers for testing a provider codec without a network, as the host drives it.

A provider author's tests, and this repository's, cut recorded or hand-built
response bytes into wire events with the host's own framer, feed them to a
decoder and look at the message it ends with::

    from agentkit.conformance.codec import decode, final_message, frame

    events = decode(MyProvider(), frame(recorded_bytes, "sse"), request)
    message = final_message(events)

:class:`ProviderKit` binds these helpers to one provider and a default model,
which is what a provider's ``conftest.py`` hands its tests as a fixture::

    @pytest.fixture(scope="session")
    def kit() -> ProviderKit:
        return ProviderKit(MyProvider, "my-wire/my-model")

    def test_text(kit):
        events = kit.frame_sse(sse_body([{"delta": "hi"}, {"done": True}]))
        assert kit.final_message(kit.decode(events)).text == "hi"

:func:`sse_body` and :func:`ndjson_body` write hand-built response chunks the
way servers put them on the wire, and :func:`encoded_body` reads back the body
an encoder produced; :func:`shape_problems` checks it against the request types a
vendor's SDK declares. :func:`through_runtime` runs a request through the host's
whole provider runtime (HTTP, credentials, framing) against a mock server.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import httpx

from agentkit.conformance._shapes import shape_problems
from agentkit.host.runtime import ProviderRuntime
from agentkit.host.runtime.framing import make_framer
from agentkit.host.wire import loads
from agentkit.plugin_api import (
    AssistantMessage,
    MessageEnd,
    ModelInfo,
    Provider,
    ProviderEvent,
    ProviderRequest,
    UserMessage,
    WireEvent,
)

__all__ = [
    "ProviderKit",
    "catalog_row",
    "decode",
    "encoded_body",
    "final_message",
    "frame",
    "frame_json",
    "ndjson_body",
    "request_for",
    "shape_problems",
    "sse_body",
    "through_runtime",
]


def frame(raw: bytes, framing: str = "sse") -> list[WireEvent]:
    """Cut a response body into wire events exactly as the host does.

    The host's framer for ``framing`` (``sse``, ``ndjson`` or ``json``) with its
    strict JSON decoder: ``data: [DONE]`` ends an SSE stream, an event without
    data is skipped, a malformed frame raises.
    """
    framer = make_framer(framing)
    events = framer.feed(raw)
    if framer.error is not None:
        raise framer.error
    if not framer.done:
        events += framer.close()
    return events


def frame_json(body: Any) -> list[WireEvent]:
    """A whole (non-streamed) body as the host hands it to a decoder: one wire event."""
    raw = body if isinstance(body, bytes) else json.dumps(body, ensure_ascii=False).encode("utf-8")
    return [WireEvent(loads(raw))]


def sse_body(
    payloads: Iterable[Any],
    *,
    event: Callable[[Any], str] | None = None,
    line_end: str = "\n",
) -> bytes:
    """``payloads`` as a server streams them over SSE: one event each, ended by a blank line.

    Each event is an ``event:`` line when ``event`` names it (from its payload),
    then a ``data:`` line holding the payload as JSON. ``line_end`` is what the
    server ends lines with (``"\\r\\n"`` for some).
    """
    out = []
    for payload in payloads:
        lines = [] if event is None else [f"event: {event(payload)}"]
        lines.append(f"data: {json.dumps(payload, ensure_ascii=False)}")
        out.append(line_end.join([*lines, "", ""]))
    return "".join(out).encode("utf-8")


def ndjson_body(payloads: Iterable[Any]) -> bytes:
    """``payloads`` as a server streams them as NDJSON: one JSON object a line."""
    return b"".join(
        json.dumps(item, ensure_ascii=False).encode("utf-8") + b"\n" for item in payloads
    )


def catalog_row(provider: Provider, name: str, **changes: Any) -> ModelInfo:
    """The row of ``provider``'s catalog whose key is ``name`` (or, failing that, whose model id is).

    ``changes`` replace fields of the row (another ``base_url``, ``options``...).
    Raises :class:`LookupError` when no row, or more than one by model id, matches.
    """
    rows = list(provider.catalog())
    matches = [row for row in rows if row.key == name] or [row for row in rows if row.id == name]
    if len(matches) != 1:
        found = ", ".join(row.key for row in matches) or "none"
        raise LookupError(f"{name!r}: expected one catalog row with that key or id, found {found}")
    return dataclasses.replace(matches[0], **changes) if changes else matches[0]


def request_for(model: ModelInfo, **fields: Any) -> ProviderRequest:
    """A request for ``model``; without ``messages``, one user message saying ``hi``."""
    fields.setdefault("messages", [UserMessage.text("hi")])
    return ProviderRequest(model=model, **fields)


def encoded_body(provider: Provider, request: ProviderRequest) -> Any:
    """The body ``provider`` encodes for ``request``, as the server parses it.

    Bytes (JSON the codec serialized itself) are parsed; a JSON value the host
    would serialize is returned as it is.
    """
    body = provider.encode(request).body
    return json.loads(body) if isinstance(body, bytes | str) else body


def decode(
    provider: Provider,
    events: Iterable[WireEvent],
    request: ProviderRequest,
    *,
    finish: bool = True,
) -> list[ProviderEvent]:
    """Feed ``events`` to a fresh decoder for ``request``, then ``finish`` it (unless told not to)."""
    decoder = provider.decoder(request)
    out: list[ProviderEvent] = []
    for event in events:
        out += decoder.feed(event)
    if finish:
        out += decoder.finish()
    return out


def final_message(events: list[ProviderEvent]) -> AssistantMessage:
    """The one message a response ended with; fails unless ``message_end`` came once, last."""
    ends = [event for event in events if isinstance(event, MessageEnd)]
    assert len(ends) == 1, f"expected exactly one message_end, got {len(ends)}"
    assert events[-1] is ends[0], "message_end must be the last event"
    return ends[0].message


def through_runtime(
    provider: Provider,
    request: ProviderRequest,
    respond: Callable[[httpx.Request], httpx.Response],
    *,
    env: Mapping[str, str],
) -> tuple[AssistantMessage, list[httpx.Request]]:
    """Stream ``request`` through the host's provider runtime, ``respond`` playing the server.

    The runtime builds the HTTP request (credentials from ``env``, no
    attribution header), sends it over ``httpx.MockTransport(respond)``, frames
    and decodes the answer. Returns the message the stream ended with (it must
    end with ``message_end``) and every HTTP request the runtime sent.
    """
    sent: list[httpx.Request] = []

    def transport(http_request: httpx.Request) -> httpx.Response:
        sent.append(http_request)
        return respond(http_request)

    runtime = ProviderRuntime(httpx.MockTransport(transport), env=env, attribution=False)

    async def collect() -> list[ProviderEvent]:
        return [event async for event in runtime.stream(provider, request)]

    events = asyncio.run(collect())
    assert isinstance(events[-1], MessageEnd), f"the stream ended with {events[-1]!r}"
    return events[-1].message, sent


class ProviderKit:
    """The helpers above, bound to one provider and a default catalog row.

    ``provider`` makes a fresh provider object (the class itself will do);
    ``model`` is the key (or model id) of the row requests use unless told
    otherwise. Wire-specific helpers given by keyword (response builders, an
    SDK client...) are reachable as attributes too, so one fixture can hand a
    test module everything it needs; :meth:`with_helpers` adds more. A kit that
    must frame differently overrides :meth:`frame_sse` in a subclass.
    """

    def __init__(
        self, provider: Callable[[], Provider], model: str, /, **helpers: Callable[..., Any]
    ) -> None:
        self.provider = provider
        self.model = model
        self._helpers = helpers

    def __getattr__(self, name: str) -> Callable[..., Any]:
        helpers = self.__dict__.get("_helpers", {})
        if name in helpers:
            return helpers[name]
        raise AttributeError(f"{type(self).__name__} has no helper {name!r}")

    def with_helpers(self, **helpers: Callable[..., Any]) -> ProviderKit:
        """A kit like this one with ``helpers`` added (replacing any of the same name)."""
        return type(self)(self.provider, self.model, **{**self._helpers, **helpers})

    def model_row(self, name: str | None = None, **changes: Any) -> ModelInfo:
        """The catalog row ``name`` (the kit's default model without one), with ``changes``."""
        return catalog_row(self.provider(), name or self.model, **changes)

    def request_for(self, **fields: Any) -> ProviderRequest:
        """A request with ``fields``; the default model and a ``hi`` message unless given."""
        model = fields.pop("model") if "model" in fields else self.model_row()
        return request_for(model, **fields)

    def body_of(self, request: ProviderRequest, provider: Provider | None = None) -> Any:
        """The body encoded for ``request`` (by a fresh provider unless one is given), parsed."""
        return encoded_body(provider or self.provider(), request)

    def decode(
        self,
        events: Iterable[WireEvent],
        *,
        request: ProviderRequest | None = None,
        provider: Provider | None = None,
        finish: bool = True,
    ) -> list[ProviderEvent]:
        """Decode ``events`` with a fresh decoder (of a fresh provider unless one is given)."""
        return decode(
            provider or self.provider(), events, request or self.request_for(), finish=finish
        )

    def through_runtime(
        self,
        request: ProviderRequest,
        respond: Callable[[httpx.Request], httpx.Response],
        *,
        env: Mapping[str, str],
        provider: Provider | None = None,
    ) -> tuple[AssistantMessage, list[httpx.Request]]:
        """:func:`through_runtime` with a fresh provider unless one is given."""
        return through_runtime(provider or self.provider(), request, respond, env=env)

    def frame_sse(self, raw: bytes) -> list[WireEvent]:
        """An SSE body cut into wire events as the host does."""
        return frame(raw, "sse")

    def frame_ndjson(self, raw: bytes) -> list[WireEvent]:
        """An NDJSON body cut into wire events as the host does."""
        return frame(raw, "ndjson")

    frame_json = staticmethod(frame_json)
    final_message = staticmethod(final_message)
