"""The provider checks: the shipped wires pass the shared fixtures, and codec bugs are caught."""

from __future__ import annotations

import dataclasses
import json

import pytest

from agentkit.conformance import fixtures
from agentkit.conformance._providers import check_providers
from agentkit.host import PluginHost
from agentkit.plugin_api import (
    BlockEnd,
    MessageAssembler,
    MessageEnd,
    ToolUseBlock,
    WireRequest,
    hookimpl,
)


@pytest.mark.parametrize(("plugin", "api"), [("anthropic", "anthropic-messages"), ("openai", "openai-completions"),
                                             ("faux", "faux")])
def test_each_shipped_wire_passes_the_shared_fixtures(plugin, api):
    host = PluginHost()
    host.load_entry_points(env={"AGENTKIT_LOAD_PLUGINS": plugin})
    checks = check_providers(host, plugin)
    assert [c for c in checks if c.outcome in ("fail", "warn")] == []
    passed = {(c.check, c.message) for c in checks if c.outcome == "pass"}
    assert ("providers.decode", "parallel_tool_calls (stream)") in passed
    if api != "faux":  # the scripted provider only streams
        assert ("providers.stream-vs-whole", "parallel_tool_calls") in passed


class Wrapped:
    """A shipped codec with one thing changed, registered as a plugin of its own."""

    def __init__(self, inner, *, encode=None, events=None) -> None:
        self.inner, self._encode, self._events = inner, encode, events
        self.api = inner.api
        self.credential_env = inner.credential_env
        self.conformance_responder = inner.conformance_responder

    def catalog(self):
        return self.inner.catalog()

    def auth_headers(self, credential):
        return self.inner.auth_headers(credential)

    def encode(self, request):
        wire = self.inner.encode(request)
        return self._encode(wire) if self._encode else wire

    def decoder(self, request):
        decoder, rewrite = self.inner.decoder(request), self._events

        class Decoder:
            def feed(self, event):
                return rewrite(decoder.feed(event), request) if rewrite else decoder.feed(event)

            def finish(self):
                return rewrite(decoder.finish(), request) if rewrite else decoder.finish()

            def fail(self, stop_reason, error_message):
                return decoder.fail(stop_reason, error_message)

        return Decoder()


def failures(codec) -> list[str]:
    class Plugin:
        @hookimpl
        def agentkit_register_providers(self, register):
            register(codec)

    host = PluginHost()
    assert host.register(Plugin(), name="wrapped").status == "loaded"
    return [f"{c.check}: {c.message}" for c in check_providers(host, "wrapped") if c.outcome == "fail"]


def anthropic():
    host = PluginHost()
    host.load_entry_points(env={"AGENTKIT_LOAD_PLUGINS": "anthropic"})
    return host.providers["anthropic-messages"]


def compact_when_whole(events, request):
    """Re-serialize tool arguments of non-streamed responses: the bug byte-faithful replay forbids."""
    def compact(block):
        if isinstance(block, ToolUseBlock):
            return ToolUseBlock(block.id, block.name, json.dumps(json.loads(block.arguments), separators=(",", ":")))
        return block

    if request.stream:
        return events
    out = []
    for event in events:
        if isinstance(event, BlockEnd):
            event = BlockEnd(event.index, compact(event.block))
        elif isinstance(event, MessageEnd):
            event = MessageEnd(dataclasses.replace(event.message, content=[compact(b) for b in event.message.content]))
        out.append(event)
    return out


def test_whole_responses_that_rewrite_tool_arguments_fail():
    found = failures(Wrapped(anthropic(), events=compact_when_whole))
    assert any("parallel_tool_calls (whole)" in problem for problem in found), found


def test_a_decoder_that_loses_cached_tokens_fails():
    def drop_cache(events, request):
        for event in events:
            if isinstance(event, MessageEnd):
                event.message.usage.cache_read = 0
        return events

    found = failures(Wrapped(anthropic(), events=drop_cache))
    assert any(p.startswith("providers.decode: usage_with_cached_tokens (stream)") for p in found), found


def test_a_body_that_is_not_json_fails():
    found = failures(Wrapped(anthropic(), encode=lambda wire: WireRequest(wire.path, {"when": object()})))
    assert found and all(p.startswith("providers.encode") and "not JSON" in p for p in found)


def test_a_decoder_that_drops_partial_content_on_abort_fails():
    class Dropping(Wrapped):
        def decoder(self, request):
            inner = super().decoder(request)
            # Forget what arrived, then end: the message loses the partial text.
            inner.fail = lambda stop_reason, message: MessageAssembler().fail(stop_reason, message)[1:]
            return inner

    found = failures(Dropping(anthropic()))
    assert any(p.startswith("providers.failure: abort") for p in found), found


def test_the_fixtures_are_the_same_turns_for_every_wire():
    """Encode fixtures and response fixtures describe the same assistant turns."""
    names = {t.name for t in fixtures.TRANSCRIPTS}
    assert {"text", "parallel_tool_calls", "thinking", "error", "abort", "usage_with_cached_tokens"} <= names
    calls = fixtures.RESPONSES[1].message.tool_calls
    assert len(calls) == 2 and all(call.arguments == json.dumps(json.loads(call.arguments), ensure_ascii=False)
                                   for call in calls)


def test_what_a_wire_does_not_carry_is_not_compared():
    """A wire without ids or argument text (objects, e.g. Ollama) still has to keep calls distinct and equal as JSON."""
    message = fixtures.RESPONSES[1].message
    lean = fixtures.FEATURES - {"tool_ids", "argument_text"}
    renamed = dataclasses.replace(message, content=[
        ToolUseBlock(f"made-up-{i}", b.name, json.dumps(json.loads(b.arguments), separators=(",", ":")))
        if isinstance(b, ToolUseBlock) else b for i, b in enumerate(message.content)])
    assert fixtures.canonical(renamed, lean) == fixtures.canonical(message, lean)
    assert fixtures.canonical(renamed) != fixtures.canonical(message)
    same_ids = dataclasses.replace(renamed, content=[
        ToolUseBlock("dup", b.name, b.arguments) if isinstance(b, ToolUseBlock) else b for b in renamed.content])
    assert fixtures.canonical(same_ids, lean) != fixtures.canonical(message, lean)
