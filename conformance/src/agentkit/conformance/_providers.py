"""Checks of the ``providers`` category: each wire codec against the shared fixtures.

See :mod:`agentkit.conformance.fixtures` for what the fixtures are and how a
wire's responses are rendered.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from agentkit.host import PluginHost
from agentkit.plugin_api import (
    AssistantMessage,
    BlockDelta,
    BlockEnd,
    BlockStart,
    MessageEnd,
    MessageStart,
    StopReason,
    ToolUseBlock,
    WireEvent,
    WireRequest,
)

from . import fixtures
from ._report import Check, failed, passed, skipped, warned

#: The framings the host can cut a response into (``WireRequest.framing``).
FRAMINGS = {"sse", "ndjson", "json"}


def check_providers(host: PluginHost, plugin: str) -> list[Check]:
    providers = [p for api, p in sorted(host.providers.items()) if host.plugin_of("provider", api) == plugin]
    if not providers:
        return [failed("providers.registered", "registered no provider",
                       "call register(provider) in agentkit_register_providers, or drop the agentkit.providers entry point")]
    checks: list[Check] = []
    for provider in providers:
        rows = list(provider.catalog())
        model = next((row for row in rows if row.default), rows[0]) if rows else fixtures.conformance_model(provider.api)
        if not rows:
            checks.append(warned("providers.catalog", "the catalog is empty", "list the models the wire serves", provider.api))
        checks += _encode_checks(provider, model)
        checks.append(_settings_check(provider, model))
        checks += _decode_checks(provider, model)
    return checks


def _encode_checks(provider: Any, model: Any) -> list[Check]:
    problems = []
    for transcript in fixtures.TRANSCRIPTS:
        for stream in (True, False):
            label = f"{transcript.name} (stream={stream})"
            try:
                first = provider.encode(fixtures.request_for(transcript, model, stream=stream))
                second = provider.encode(fixtures.request_for(transcript, model, stream=stream))
            except Exception as exc:
                problems.append((label, f"encode raised {type(exc).__name__}: {exc}"))
                continue
            problem = _wire_request_problem(first)
            if problem is None and _body_text(first) != _body_text(second):
                problem = "encoding the same request twice gave different bodies"
            if problem:
                problems.append((label, problem))
    if not problems:
        return [passed("providers.encode", f"{len(fixtures.TRANSCRIPTS)} transcripts encode", provider.api)]
    return [failed("providers.encode", f"{label}: {problem}",
                   "encode must return a WireRequest (path '/...', str headers, JSON body, a known framing), "
                   "the same for the same request", provider.api) for label, problem in problems]


#: A value of each tool choice and sampling setting, set one at a time on a request with tools.
SETTINGS: dict[str, dict[str, Any]] = {
    "tool_choice='none'": {"tool_choice": "none"},
    "tool_choice='required'": {"tool_choice": "required"},
    "a named tool_choice": {"tool_choice": "<first tool>"},
    "temperature": {"temperature": 0.25},
    "top_p": {"top_p": 0.5},
    "top_k": {"top_k": 7},
    "stop_sequences": {"stop_sequences": ["STOP-HERE"]},
    "seed": {"seed": 4242},
}


def _settings_check(provider: Any, model: Any) -> Check:
    """Each tool choice and sampling setting changes the body or is refused with an error naming it."""
    transcript = next(t for t in fixtures.TRANSCRIPTS if t.tools)
    base = fixtures.request_for(transcript, model, stream=False)
    dropped = []
    try:
        baseline = _body_text(provider.encode(base))
    except Exception as exc:  # the encode check reports it
        return skipped("providers.settings", f"the base request did not encode ({type(exc).__name__})", provider.api)
    for label, fields in SETTINGS.items():
        if fields.get("tool_choice") == "<first tool>":
            fields = {"tool_choice": transcript.tools[0].name}
        (name,) = fields
        request = dataclasses.replace(base, **fields)
        try:
            body = _body_text(provider.encode(request))
        except Exception as exc:
            if name not in str(exc):
                dropped.append(f"{label} (refused, but the error does not name {name}: {exc})")
            continue
        if body == baseline:
            dropped.append(label)
    if not dropped:
        return passed("providers.settings", "every tool choice and sampling setting is carried or refused by name",
                      provider.api)
    return warned("providers.settings", f"dropped without an error: {', '.join(dropped)}",
                  "map each setting to the wire, or refuse it with agentkit.plugin_api.codec.refusal "
                  "(codec.tool_choice and codec.sampling do both)", provider.api)


def _wire_request_problem(wire: Any) -> str | None:
    if not isinstance(wire, WireRequest):
        return f"encode returned {type(wire).__name__}, not a WireRequest"
    if not isinstance(wire.path, str) or not wire.path.startswith("/"):
        return f"path {wire.path!r} does not start with '/'"
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in wire.headers.items()):
        return "headers must map str to str"
    if wire.framing not in FRAMINGS:
        return f"framing {wire.framing!r} is not one of {sorted(FRAMINGS)}"
    try:
        _body_text(wire)
    except (TypeError, ValueError) as exc:
        return f"the body is not JSON ({exc})"
    return None


def _body_text(wire: WireRequest) -> str:
    if isinstance(wire.body, (bytes, bytearray)):
        return json.dumps(json.loads(wire.body))
    return json.dumps(wire.body, allow_nan=False)


def decode(provider: Any, model: Any, events: list[WireEvent], *, fail: StopReason | None = None,
           stream: bool = True) -> tuple[list[Any], AssistantMessage | None, str | None]:
    """Feed ``events`` to a fresh decoder; ``(events out, final message, order problem)``."""
    request = fixtures.request_for(fixtures.TRANSCRIPTS[0], model, stream=stream)
    decoder = provider.decoder(request)
    out: list[Any] = []
    for event in events:
        out += decoder.feed(event)
    out += decoder.fail(fail, f"conformance {fail.value}") if fail else decoder.finish()
    return out, (out[-1].message if out and isinstance(out[-1], MessageEnd) else None), _order_problem(out)


def _order_problem(events: list[Any]) -> str | None:
    """The normative order: message_start, per block start/delta*/end, one message_end last."""
    if not events or not isinstance(events[0], MessageStart):
        return "the first event is not message_start"
    ends = [index for index, event in enumerate(events) if isinstance(event, MessageEnd)]
    if ends != [len(events) - 1]:
        return "there must be exactly one message_end, and it must be the last event"
    open_blocks: dict[int, list[str]] = {}
    closed = []
    for event in events[1:-1]:
        if isinstance(event, BlockStart):
            if event.index in open_blocks:
                return f"block {event.index} started twice"
            open_blocks[event.index] = []
        elif isinstance(event, BlockDelta):
            if event.index not in open_blocks:
                return f"a delta for block {event.index}, which is not open"
            open_blocks[event.index].append(event.delta)
        elif isinstance(event, BlockEnd):
            if event.index not in open_blocks:
                return f"block {event.index} ended without starting"
            streamed = "".join(open_blocks.pop(event.index))
            whole = _block_text(event.block)
            if whole is not None and streamed != whole:
                return f"block {event.index}: its deltas {streamed!r} do not add up to the block {whole!r}"
            closed.append(event.block)
    if open_blocks:
        return f"blocks {sorted(open_blocks)} never ended"
    if list(events[-1].message.content) != closed:
        return "message_end's content is not the blocks block_end carried, in order"
    return None


def _block_text(block: Any) -> str | None:
    if isinstance(block, ToolUseBlock):
        return block.arguments
    if hasattr(block, "thinking") and not getattr(block, "redacted", False):
        return block.thinking
    return getattr(block, "text", None)


def _decode_checks(provider: Any, model: Any) -> list[Check]:
    api = provider.api
    checks: list[Check] = []
    responder = fixtures.responder_for(provider)
    if responder is None:
        checks.append(warned("providers.decode", f"no responder for wire {api!r}: the decode checks did not run",
                             "give the provider a conformance_responder (see docs/plugins.md)", api))
        checks += _fail_checks(provider, model, [])
        return checks
    for fixture in fixtures.RESPONSES:
        if not fixtures.applies(fixture, responder):
            checks.append(skipped("providers.decode", f"{fixture.name}: the wire lacks {sorted(fixture.needs)}", api))
            continue
        features = fixtures.carried(responder)
        expected = fixtures.canonical(fixture.message, features)
        forms = [("stream", responder.stream(fixture.message), True)]
        whole = responder.whole(fixture.message)
        if whole is not None:
            forms.append(("whole", whole, False))
        arguments: dict[str, list[str]] = {}
        for form, events, stream in forms:
            try:
                _, message, problem = decode(provider, model, events, stream=stream)
            except Exception as exc:
                checks.append(failed("providers.decode", f"{fixture.name} ({form}): the decoder raised "
                                     f"{type(exc).__name__}: {exc}", "a decoder must never raise", api))
                continue
            if problem or message is None:
                checks.append(failed("providers.decode", f"{fixture.name} ({form}): {problem}",
                                     "build events with MessageAssembler, which keeps the normative order", api))
                continue
            got = fixtures.canonical(message, features)
            if got != expected:
                checks.append(failed("providers.decode", f"{fixture.name} ({form}): decoded {json.dumps(got)}, "
                                     f"expected {json.dumps(expected)}",
                                     "decode to the canonical message the fixture describes", api))
                continue
            arguments[form] = [call.arguments for call in message.tool_calls]
            checks.append(passed("providers.decode", f"{fixture.name} ({form})", api))
        if len(arguments) == 2 and arguments["stream"] != arguments["whole"]:
            checks.append(failed("providers.stream-vs-whole",
                                 f"{fixture.name}: tool-call arguments differ: {arguments['stream']!r} streamed, "
                                 f"{arguments['whole']!r} whole", "keep the argument text exactly as received", api))
        elif fixture.message.tool_calls and len(arguments) == 2:
            checks.append(passed("providers.stream-vs-whole", fixture.name, api))
    checks += _fail_checks(provider, model, responder.stream(fixtures.RESPONSES[0].message), responder)
    return checks


def _fail_checks(provider: Any, model: Any, text_events: list[WireEvent], responder: Any = None) -> list[Check]:
    api = provider.api
    checks = []
    partial = text_events[: max(1, len(text_events) // 2)] if text_events else []
    cases: list[tuple[str, list[WireEvent], StopReason | None]] = [
        ("abort", partial, StopReason.ABORTED),
        ("error", partial, StopReason.ERROR),
    ]
    if responder is not None:
        cases.append(("wire error", partial + responder.error("conformance: the server failed"), None))
    for name, events, reason in cases:
        try:
            _, message, problem = decode(provider, model, events, fail=reason)
        except Exception as exc:
            checks.append(failed("providers.failure", f"{name}: the decoder raised {type(exc).__name__}: {exc}",
                                 "a decoder must never raise", api))
            continue
        wanted = reason or StopReason.ERROR
        if problem or message is None:
            checks.append(failed("providers.failure", f"{name}: {problem}", "end with MessageAssembler.fail", api))
        elif message.stop_reason is not wanted or not message.error_message:
            checks.append(failed("providers.failure", f"{name}: the message ended {message.stop_reason.value!r} "
                                 f"with error_message {message.error_message!r}",
                                 f"end the message with stop reason {wanted.value!r} and say why", api))
        elif events and not message.content:
            checks.append(failed("providers.failure", f"{name}: the content that arrived before the end was dropped",
                                 "keep the partial content (MessageAssembler.fail does)", api))
        else:
            checks.append(passed("providers.failure", name, api))
    return checks
