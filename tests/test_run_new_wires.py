"""``agentkit run`` on the Gemini, OpenAI Responses and Ollama wires, end to end.

The command runs through its ``main``, in this process; its HTTP traffic is
answered from a file (the ``AGENTKIT_REPLAY`` seam) holding responses in each
vendor's format, rendered by the wire's conformance responder from canonical
messages: a turn that calls ``read_file``, then a text answer.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest

from agentkit.host import PluginHost
from agentkit.plugin_api import AssistantMessage, StopReason, TextBlock, ToolUseBlock, Usage

# (model, credential variable or None, framing, content type)
WIRES = {
    "google-generative-ai": ("google/gemini-2.5-flash", "GEMINI_API_KEY", "sse", "text/event-stream"),
    "openai-responses": ("openai-responses/gpt-5", "OPENAI_API_KEY", "sse", "text/event-stream"),
    "ollama-chat": ("ollama/qwen3", None, "ndjson", "application/x-ndjson"),
}

CALL = AssistantMessage(
    [TextBlock("Let me read it."), ToolUseBlock("call_1", "read_file", '{"path": "notes.txt"}')],
    StopReason.TOOL_USE,
    usage=Usage(input=20, output=8),
)
ANSWER = AssistantMessage([TextBlock("The notes say: buy milk.")], StopReason.STOP, usage=Usage(input=40, output=9))


@functools.cache
def installed() -> PluginHost:
    """The installed plugins, loaded once: only their providers' responders are read."""
    return PluginHost.discover()


def body(api: str, message: AssistantMessage) -> str:
    """The response body the wire's server would send for ``message``."""
    responder = installed().providers[api].conformance_responder
    framing = WIRES[api][2]
    lines = []
    for event in responder.stream(message):
        data = json.dumps(event.data)
        if framing == "ndjson":
            lines.append(data + "\n")
        else:
            lines.append((f"event: {event.event}\n" if event.event else "") + f"data: {data}\r\n\r\n")
    return "".join(lines)


@pytest.mark.parametrize("api", sorted(WIRES))
def test_run_reads_a_file_through_a_tool_call_and_prints_the_answer(api, tmp_path, agentkit):
    model, variable, _, content_type = WIRES[api]
    (tmp_path / "notes.txt").write_text("buy milk\n")
    recording = tmp_path / "replay.json"
    recording.write_text(json.dumps([
        {"status": 200, "headers": {"content-type": content_type}, "body": body(api, CALL)},
        {"status": 200, "headers": {"content-type": content_type}, "body": body(api, ANSWER)},
    ]))
    log = tmp_path / "sent.jsonl"
    env = {"AGENTKIT_REPLAY": str(recording), "AGENTKIT_REPLAY_LOG": str(log)}
    if variable:
        env[variable] = "test-key-not-real"
    result = agentkit.inline("run", "What do my notes say?", "--model", model, "--root", str(tmp_path), env=env)
    assert result.returncode == 0, result.stderr
    assert "The notes say: buy milk." in result.stdout
    assert "test-key-not-real" not in result.stdout + result.stderr + log.read_text()
    first, second = (json.loads(line) for line in log.read_text().splitlines())
    assert "buy milk" not in json.dumps(first["body"])
    assert "buy milk" in json.dumps(second["body"]), "the tool's result went back to the model"


@pytest.mark.parametrize("api", [api for api, wire in sorted(WIRES.items()) if wire[1]])
def test_run_without_a_key_exits_2_naming_the_variable(api, tmp_path, agentkit):
    model, variable, _, _ = WIRES[api]
    result = agentkit.inline("run", "hi", "--model", model, env={})
    assert result.returncode == 2
    assert variable in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_ollama_needs_no_key_and_dry_run_shows_the_local_server(tmp_path: Any, agentkit):
    result = agentkit.inline("run", "hi", "--model", "ollama/qwen3", "--dry-run", env={})
    assert result.returncode == 0, result.stderr
    assert "http://127.0.0.1:11434/api/chat" in result.stdout
