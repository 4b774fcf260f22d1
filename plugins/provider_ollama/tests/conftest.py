"""The test kit: ``agentkit.conformance.codec`` bound to this wire, and Ollama responses built
from the API reference.

The chunk shapes follow Ollama's API reference (``docs/api.md`` of ollama/ollama,
"Generate a chat completion") and its announcement of streamed tool calls
(ollama.com/blog/streaming-tool, 2025-05-28): each line is an object with
``model``, ``created_at``, ``message`` (``role``, ``content`` and, for thinking
models, ``thinking``; ``tool_calls`` holding whole calls with object arguments)
and ``done``; the last line has ``done: true``, ``done_reason`` and the counts.
"""

from __future__ import annotations

from typing import Any

import pytest
from agentkit_provider_ollama import OllamaChat

from agentkit.conformance import codec

CREATED = "2025-05-27T22:54:57.641643Z"


def line(message: dict[str, Any] | None = None, *, model: str = "qwen3", **top: Any) -> dict:
    """One streamed chunk; ``done`` is false unless given."""
    chunk: dict[str, Any] = {"model": model, "created_at": CREATED}
    chunk["message"] = {"role": "assistant", "content": "", **(message or {})}
    chunk["done"] = False
    chunk.update(top)
    return chunk


def done(
    reason: str = "stop", *, prompt: int = 26, output: int = 282, model: str = "qwen3", **top: Any
) -> dict:
    """The final chunk of a stream, with counts and durations as the server sends them."""
    return line(
        model=model,
        done=True,
        done_reason=reason,
        total_duration=4883583458,
        load_duration=1334875,
        prompt_eval_count=prompt,
        prompt_eval_duration=342546000,
        eval_count=output,
        eval_duration=4535599000,
        **top,
    )


def whole(chunks: list[dict]) -> dict:
    """The ``stream: false`` response the server builds from the same generation.

    Content and thinking are concatenated, tool calls gathered in order, and the
    final chunk's fields kept: what Ollama's chat handler does when it does not stream.
    """
    message: dict[str, Any] = {"role": "assistant", "content": ""}
    thinking = "".join(c["message"].get("thinking", "") for c in chunks)
    if thinking:
        message["thinking"] = thinking
    message["content"] = "".join(c["message"].get("content", "") for c in chunks)
    calls = [call for c in chunks for call in c["message"].get("tool_calls", [])]
    if calls:
        message["tool_calls"] = calls
    final = dict(chunks[-1])
    final["message"] = message
    return final


@pytest.fixture(scope="session")
def kit() -> codec.ProviderKit:
    """The helpers, for test modules (which cannot import each other)."""
    return codec.ProviderKit(
        OllamaChat, "ollama/qwen3", line=line, done=done, ndjson=codec.ndjson_body, whole=whole
    )
