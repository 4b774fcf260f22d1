"""Argument text the loop refused still goes back to the model on every wire.

A model may send tool-call arguments the strict decoder refuses: nested
50,000 deep, ``NaN``, ``Infinity``, a number that overflows a float. The call
gets an error result (see ``test_run_ends_well``), and the call stays in the
history, so the next request replays it. A wire that carries arguments as a
JSON object must parse that text again: if that raised (``RecursionError``)
or produced a body that is not JSON (``NaN``), every later request of the
session would fail. Each installed wire must build its request, and send
valid JSON.
"""

from __future__ import annotations

import asyncio

import pytest

from agentkit.host import PluginHost
from agentkit.host.runtime import ProviderRuntime
from agentkit.host.wire import json as strict_json
from agentkit.plugin_api import (
    AssistantMessage,
    ProviderRequest,
    StopReason,
    TextBlock,
    ToolResultMessage,
    ToolUseBlock,
    UserMessage,
)

HOST = PluginHost.discover()
WIRES = sorted(api for api in HOST.providers if api != "faux")
REFUSED = {
    "deep": '{"a":' + "[" * 50_000 + "]" * 50_000 + "}",
    # Parses, but writing it back inside a request goes past the recursion limit.
    "just_under_the_recursion_limit": '{"a":' + "[" * 970 + "]" * 970 + "}",
    "nan": '{"a": NaN}',
    "infinity": '{"a": -Infinity}',
    "overflow": '{"a": 1e999}',
}


def model_of(api: str):
    return next(model for model in HOST.models.values() if model.api == api)


@pytest.mark.parametrize("arguments", list(REFUSED))
@pytest.mark.parametrize("api", WIRES)
def test_a_call_with_refused_arguments_does_not_break_the_next_request(api: str, arguments: str) -> None:
    model = model_of(api)
    call = ToolUseBlock("call_1", "echo", REFUSED[arguments])
    history = [
        UserMessage.text("go"),
        AssistantMessage([call], StopReason.TOOL_USE, provider=model.vendor, api=model.api, model=model.id),
        ToolResultMessage("call_1", "echo", [TextBlock('{"ok": false, "error": "invalid_arguments"}')], is_error=True),
        UserMessage.text("go on"),
    ]
    runtime = ProviderRuntime(env={})
    prepared = asyncio.run(runtime.prepare(HOST.providers[api], ProviderRequest(model=model, messages=history)))
    strict_json.loads(prepared.body_bytes)  # valid JSON: no NaN, no Infinity, within the depth limit
