"""The scripted provider, through the host's real runtime: its event order is normative."""

from __future__ import annotations

import asyncio

from agentkit_provider_faux import FauxProvider, Script, Turn, text, thinking, tool_call

from agentkit.host import PluginHost
from agentkit.host.runtime import ProviderRuntime
from agentkit.plugin_api import ProviderRequest, StopReason, TextBlock, ToolSpec, Usage, UserMessage

PROVIDER = FauxProvider()
MODEL = PROVIDER.catalog()[0]


def play(script: Script, **request):
    request.setdefault("messages", [UserMessage.text("hi")])

    async def collect():
        runtime = ProviderRuntime(transport=script)
        return [event async for event in runtime.stream(PROVIDER, ProviderRequest(model=MODEL, **request))]

    return asyncio.run(collect())


def test_the_plugin_is_installed_and_found_through_its_entry_point():
    host = PluginHost.discover()
    assert host.records["faux"].distribution == "agentkit-provider-faux"
    assert isinstance(host.providers["faux"], FauxProvider)


def test_the_event_order_is_message_start_blocks_message_end():
    script = Script([Turn([thinking("hmm", "sig-9"), text("x" * 30), tool_call("edit", {"path": "a"})],
                          usage=Usage(input=3, output=4))])
    events = play(script)
    kinds = [(event.type, getattr(event, "index", None)) for event in events]
    assert kinds == [
        ("message_start", None),
        ("block_start", 0), ("block_delta", 0), ("block_end", 0),
        ("block_start", 1), ("block_delta", 1), ("block_delta", 1), ("block_delta", 1), ("block_end", 1),
        ("block_start", 2), ("block_delta", 2), ("block_end", 2),
        ("message_end", None),
    ]
    ends = [event.block for event in events if event.type == "block_end"]
    assert ends[0].signature == "sig-9" and ends[1].text == "x" * 30
    assert ends[2].arguments == '{"path":"a"}' and ends[2].id == "call_1_1"
    final = events[-1].message
    assert final.stop_reason is StopReason.TOOL_USE and final.usage.output == 4
    assert final.content == ends


def test_an_exhausted_script_answers_an_error_naming_its_turns():
    events = play(Script([]))
    assert [event.type for event in events] == ["message_start", "message_end"]
    final = events[-1].message
    assert final.stop_reason is StopReason.ERROR and final.content == []
    assert final.error_message.startswith("the script ran out: all 0 turns were played and the model was asked for turn 1")


def test_errors_end_the_message_with_what_arrived():
    events = play(Script([Turn([text("half an answer")], error="model overloaded")]))
    final = events[-1].message
    assert final.stop_reason is StopReason.ERROR and final.error_message == "model overloaded"
    assert final.text == "half an answer"
    http = play(Script([Turn(status=529, error="overloaded")]))[-1].message
    assert http.stop_reason is StopReason.ERROR and "overloaded" in http.error_message


def test_the_script_exposes_what_the_loop_sent():
    script = Script([{"content": [{"type": "text", "text": "ok"}]}])
    spec = ToolSpec("echo", "Echo.", {"type": "object"})
    play(script, system="be brief", tools=[spec], max_tokens=100, tool_choice="auto",
         messages=[UserMessage([TextBlock("question")])])
    [sent] = script.requests
    assert sent.system == "be brief" and sent.tool_names == ["echo"] and sent.max_tokens == 100
    assert sent.tool_choice == "auto" and sent.messages[0].content[0].text == "question"
