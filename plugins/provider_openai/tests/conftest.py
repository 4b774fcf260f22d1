"""The test kit: ``agentkit.conformance.codec`` bound to this wire, and a chunk builder."""

from __future__ import annotations

from typing import Any

import pytest
from agentkit_provider_openai import OpenAICompletions

from agentkit.conformance import codec
from agentkit.plugin_api import WireEvent


def chunk(
    delta: dict[str, Any] | None = None, *, finish: str | None = None, **top: Any
) -> WireEvent:
    """One streamed ``chat.completion.chunk`` as a wire event."""
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    data = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "m", "choices": choices}
    data.update(top)
    return WireEvent(data=data)


@pytest.fixture(scope="session")
def kit() -> codec.ProviderKit:
    """The helpers, for test modules (which cannot import each other)."""
    return codec.ProviderKit(
        OpenAICompletions, "openai/gpt-4o-mini", chunk=chunk, shape_problems=codec.shape_problems
    )
