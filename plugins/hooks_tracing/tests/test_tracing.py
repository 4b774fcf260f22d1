"""A traced run: its spans, their GenAI attributes, content only when asked, and no credential."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from typing import Any, ClassVar

import agentkit_hooks_tracing
import httpx
import pytest
from agentkit_hooks_tracing import Tracing
from agentkit_provider_faux import FauxProvider, Script, Turn, text, tool_call
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from agentkit.host import Agent, AgentConfig, Connection, PluginHost, Trust, allow_all
from agentkit.plugin_api import Credential, Tool, Usage, hookimpl

KEY_ENV = "AGENTKIT_TRACING_TEST_KEY"
#: Long and distinctive: found in an attribute only if the credential itself was copied there.
PLANTED_KEY = "sk-planted-0f3c9e-credential-that-must-never-reach-a-span-7b1d2a"


class KeyedFaux(FauxProvider):
    """The scripted wire, with a credential the host reads from the environment and sends."""

    credential_env: ClassVar[Any] = ((KEY_ENV, "api_key"),)

    def auth_headers(self, credential: Credential) -> dict[str, str]:
        return {"x-api-key": credential.value}


class Provider:
    @hookimpl
    def agentkit_register_providers(self, register):
        register(KeyedFaux())


class HeaderScript(Script):
    """A script that keeps the headers of each request, to show the credential was sent."""

    def __init__(self, turns: list[Turn]) -> None:
        super().__init__(turns)
        self.headers: list[httpx.Headers] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.headers.append(request.headers)
        return await super().handle_async_request(request)


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def _traced_run(monkeypatch, *, record_content: bool | None = None) -> tuple[list[ReadableSpan], HeaderScript]:
    monkeypatch.setenv(KEY_ENV, PLANTED_KEY)
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    host = PluginHost()
    host.register(Provider(), name="keyed-faux")
    host.register(Tracing(tracer_provider=provider, record_content=record_content), name="tracing")
    script = HeaderScript([
        Turn([text("Adding."), tool_call("add", {"a": 2, "b": 3}, id="call_add_1")],
             usage=Usage(input=11, output=7, cache_read=5)),
        Turn([text("It is 5.")], usage=Usage(input=20, output=4)),
    ])
    config = AgentConfig(model="faux/scripted", tools=["add"], extra_tools=[Tool.from_function(add)],
                         trust=Trust(before_tool_call=allow_all), connection=Connection(transport=script))
    result = Agent(config, host=host).run_sync("What is 2 + 3?")
    assert result.outcome == "completed", result.error
    return list(exporter.get_finished_spans()), script


def _by_operation(spans: list[ReadableSpan], operation: str) -> list[ReadableSpan]:
    return [span for span in spans if (span.attributes or {}).get("gen_ai.operation.name") == operation]


def test_a_run_is_one_agent_span_with_a_chat_span_per_request_and_a_tool_span(monkeypatch):
    spans, _ = _traced_run(monkeypatch)
    [run] = _by_operation(spans, "invoke_agent")
    chats = _by_operation(spans, "chat")
    [tool] = _by_operation(spans, "execute_tool")
    assert len(spans) == 4 and len(chats) == 2
    for child in [*chats, tool]:
        assert child.parent is not None and child.parent.span_id == run.context.span_id
        assert child.context.trace_id == run.context.trace_id
    assert run.parent is None and run.name == "invoke_agent"

    first, second = sorted(chats, key=lambda span: span.attributes["agentkit.turn"])
    assert first.name == "chat scripted"
    assert first.attributes["gen_ai.request.model"] == "scripted"
    assert first.attributes["gen_ai.provider.name"] == "faux"
    assert first.attributes["gen_ai.usage.input_tokens"] == 16  # cached tokens counted in, per the conventions
    assert first.attributes["gen_ai.usage.output_tokens"] == 7
    assert first.attributes["gen_ai.usage.cache_read.input_tokens"] == 5
    assert first.attributes["gen_ai.response.finish_reasons"] == ("tool_use",)
    assert second.attributes["gen_ai.response.finish_reasons"] == ("stop",)
    assert isinstance(first.attributes["agentkit.usage.cost_usd"], float)

    assert tool.name == "execute_tool add"
    assert tool.attributes["gen_ai.tool.name"] == "add"
    assert tool.attributes["gen_ai.tool.call.id"] == "call_add_1"
    assert tool.status.status_code is not StatusCode.ERROR

    assert run.attributes["gen_ai.usage.input_tokens"] == 36
    assert run.attributes["gen_ai.usage.output_tokens"] == 11
    assert run.attributes["agentkit.outcome"] == "completed"
    assert run.attributes["gen_ai.request.model"] == "scripted"


CONTENT_ATTRIBUTES = {"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments",
                      "gen_ai.tool.call.result"}


def test_content_is_absent_by_default(monkeypatch):
    monkeypatch.delenv(agentkit_hooks_tracing.CONTENT_ENV, raising=False)
    spans, _ = _traced_run(monkeypatch)
    for span in spans:
        assert not CONTENT_ATTRIBUTES & set(span.attributes or {})
        assert not any("2 + 3" in str(value) for value in (span.attributes or {}).values())


@pytest.mark.parametrize("opt_in", ["environment", "argument"])
def test_content_is_recorded_when_the_user_opts_in(monkeypatch, opt_in):
    if opt_in == "environment":
        monkeypatch.setenv(agentkit_hooks_tracing.CONTENT_ENV, "1")
        spans, _ = _traced_run(monkeypatch)
    else:
        monkeypatch.delenv(agentkit_hooks_tracing.CONTENT_ENV, raising=False)
        spans, _ = _traced_run(monkeypatch, record_content=True)
    [run] = _by_operation(spans, "invoke_agent")
    [tool] = _by_operation(spans, "execute_tool")
    first = next(span for span in _by_operation(spans, "chat") if span.attributes["agentkit.turn"] == 1)
    prompt = json.loads(run.attributes["gen_ai.input.messages"])
    assert prompt == [{"role": "user", "parts": [{"type": "text", "content": "What is 2 + 3?"}]}]
    [answer] = json.loads(first.attributes["gen_ai.output.messages"])
    assert answer["role"] == "assistant"
    [call] = [part for part in answer["parts"] if part["type"] == "tool_call"]
    assert (call["id"], call["name"], json.loads(call["arguments"])) == ("call_add_1", "add", {"a": 2, "b": 3})
    assert json.loads(tool.attributes["gen_ai.tool.call.arguments"]) == {"a": 2, "b": 3}
    assert "5" in tool.attributes["gen_ai.tool.call.result"]


def test_the_environment_opts_out_when_the_argument_does_not_decide(monkeypatch):
    monkeypatch.setenv(agentkit_hooks_tracing.CONTENT_ENV, "1")
    spans, _ = _traced_run(monkeypatch, record_content=False)
    assert not any(CONTENT_ATTRIBUTES & set(span.attributes or {}) for span in spans)


@pytest.mark.parametrize("record_content", [False, True])
def test_the_credential_reaches_the_wire_and_no_attribute(monkeypatch, record_content):
    spans, script = _traced_run(monkeypatch, record_content=record_content)
    assert all(headers.get("x-api-key") == PLANTED_KEY for headers in script.headers)  # the host did send it
    for span in spans:
        for name, value in (span.attributes or {}).items():
            assert PLANTED_KEY not in str(value), name
        assert PLANTED_KEY not in span.name
        assert PLANTED_KEY not in str(span.status.description)


def test_a_failing_tool_marks_its_span_an_error(monkeypatch):
    monkeypatch.setenv(KEY_ENV, PLANTED_KEY)
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    host = PluginHost()
    host.register(Provider(), name="keyed-faux")
    host.register(Tracing(tracer_provider=provider), name="tracing")
    script = Script([Turn([tool_call("missing_tool", {}, id="call_x")]), Turn([text("Sorry.")])])
    result = Agent(AgentConfig(model="faux/scripted", trust=Trust(before_tool_call=allow_all),
                               connection=Connection(transport=script)),
                   host=host).run_sync("Go")
    assert result.outcome == "completed", result.error
    [tool] = _by_operation(list(exporter.get_finished_spans()), "execute_tool")
    assert tool.status.status_code is StatusCode.ERROR
    assert tool.attributes["error.type"] == "tool_error"


def test_without_a_tracer_provider_the_installed_plugin_records_nothing():
    # A fresh process: the global tracer provider can be set once per process.
    code = """
from opentelemetry import trace
from agentkit_provider_faux import Script, Turn, text
from agentkit.host import Agent, AgentConfig, PluginHost
host = PluginHost.discover()
assert host.records["tracing"].status == "loaded", host.records["tracing"]
assert isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)
asked = []
proxy_get_tracer = trace.ProxyTracerProvider.get_tracer
trace.ProxyTracerProvider.get_tracer = lambda self, *a, **k: asked.append(a) or proxy_get_tracer(self, *a, **k)
agent = Agent(AgentConfig(model="faux/scripted", tools=[], transport=Script([Turn([text("Hi.")])])), host=host)
assert agent.run_sync("Hello").outcome == "completed"
assert asked == [], asked  # not even a tracer: no spans made to be dropped

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)
agent = Agent(AgentConfig(model="faux/scripted", tools=[], transport=Script([Turn([text("Hi.")])])), host=host)
assert agent.run_sync("Hello").outcome == "completed"
print(sorted(span.name for span in exporter.get_finished_spans()))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['chat scripted', 'invoke_agent']"


@pytest.mark.slow
def test_validate_plugins_passes_it(agentkit):
    result = agentkit("validate-plugins", "tracing")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Plugins: 1 passed, 0 failed." in result.stdout


def test_the_old_import_name_still_works_and_says_the_new_one():
    sys.modules.pop("agentkit_tracing", None)
    with pytest.warns(DeprecationWarning, match="import agentkit_hooks_tracing instead"):
        old = importlib.import_module("agentkit_tracing")
    assert old.Tracing is agentkit_hooks_tracing.Tracing and old.plugin is agentkit_hooks_tracing.plugin
    assert old.CONTENT_ENV == agentkit_hooks_tracing.CONTENT_ENV
