"""Tool choice, sampling settings and output schemas are never dropped quietly, on any installed wire.

For every catalog row of every installed wire, each tool choice and each
sampling setting either changes the request body (the wire carries it) or
makes the request fail with an error that names the wire or the model and the
setting. A setting that leaves the body as it was without an error was
dropped, which the issue forbids.
"""

from __future__ import annotations

import asyncio

import pytest

from agentkit.host import PluginHost
from agentkit.host.runtime import ProviderRuntime
from agentkit.plugin_api import ModelInfo, ProviderRequest, ToolSpec, UserMessage
from agentkit.plugin_api.errors import ProviderError

HOST = PluginHost.discover()
ROWS = sorted(HOST.models.values(), key=lambda row: row.key)
TOOLS = (ToolSpec("clock", "The time.", {"type": "object", "properties": {}}),
         ToolSpec("search", "Search.", {"type": "object", "properties": {}}))
SETTINGS = {
    "tool_choice=auto": {"tool_choice": "auto"},
    "tool_choice=none": {"tool_choice": "none"},
    "tool_choice=required": {"tool_choice": "required"},
    "tool_choice=search": {"tool_choice": "search"},
    "temperature": {"temperature": 0.25},
    "top_p": {"top_p": 0.5},
    "top_k": {"top_k": 7},
    "stop_sequences": {"stop_sequences": ["STOP-HERE"]},
    "seed": {"seed": 4242},
    # Carried by the rows that say structured_output, refused naming the model by the others.
    "output_schema": {"output_schema": {"type": "object", "properties": {"a": {"type": "string"}},
                                        "required": ["a"], "additionalProperties": False}},
}


#: One message object for every request, so that the bodies differ only by the setting (the
#: scripted wire sends the message's timestamp).
MESSAGES = (UserMessage.text("hi"),)


def _body(row: ModelInfo, **fields) -> bytes:
    request = ProviderRequest(model=row, messages=MESSAGES, tools=TOOLS, max_tokens=64,
                              stream=False, **fields)
    prepared = asyncio.run(ProviderRuntime(env={}).prepare(HOST.providers[row.api], request))
    return prepared.body_bytes


@pytest.mark.parametrize("setting", list(SETTINGS))
@pytest.mark.parametrize("row", ROWS, ids=[row.key for row in ROWS])
def test_a_setting_is_carried_or_refused_by_name_never_dropped(row: ModelInfo, setting: str) -> None:
    fields = SETTINGS[setting]
    (name,) = fields
    baseline = _body(row)
    try:
        body = _body(row, **fields)
    except ProviderError as exc:
        message = str(exc)
        assert name in message and (row.api.split("-")[0] in message or row.key in message), message
        return
    if fields == {"tool_choice": "auto"}:
        return  # the wire's default: a wire may send it or leave it out, both mean the same
    assert body != baseline, f"{row.key} dropped {setting}"
