"""The test kit: ``agentkit.conformance.codec`` bound to this wire, framing stored streams as the host does."""

from __future__ import annotations

import pytest
from agentkit_provider_anthropic import AnthropicMessages

from agentkit.conformance import codec
from agentkit.plugin_api import WireEvent


class AnthropicKit(codec.ProviderKit):
    def frame_sse(self, raw: bytes) -> list[WireEvent]:
        """Cut raw SSE bytes into wire events as the host does.

        A stream on the wire ends its last event with a blank line. Some stored
        fixtures were saved without it; the host (after the WHATWG rules) discards
        an unterminated final event, so the blank line is restored here.
        """
        if not raw.endswith((b"\n\n", b"\r\n\r\n")):
            raw += b"\n\n"
        return codec.frame(raw, "sse")


@pytest.fixture(scope="session")
def kit() -> AnthropicKit:
    """The helpers, for test modules (which cannot import each other)."""
    return AnthropicKit(AnthropicMessages, "anthropic/claude-sonnet-5-5")
