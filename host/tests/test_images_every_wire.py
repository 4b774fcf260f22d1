"""Images on every installed wire: carried, or refused with the fix, never dropped.

For every catalog row that takes images, an inline image in a user message and
in a tool result reaches the body; a URL image reaches it as the URL where the
row's limits say the wire takes URLs, and fails naming ``image_fetcher``
everywhere else (the host fetches for those wires, when allowed).
"""

from __future__ import annotations

import asyncio

import pytest

from agentkit.host import PluginHost
from agentkit.host.runtime import ProviderRuntime
from agentkit.plugin_api import (
    AssistantMessage,
    ImageBlock,
    ModelInfo,
    ProviderRequest,
    StopReason,
    TextBlock,
    ToolResultMessage,
    ToolSpec,
    ToolUseBlock,
    UserMessage,
)
from agentkit.plugin_api.codec import DEFAULT_IMAGE_LIMITS
from agentkit.plugin_api.errors import ProviderError

HOST = PluginHost.discover()
VISION = sorted((row for row in HOST.models.values() if row.image_input), key=lambda row: row.key)
TOOLS = (ToolSpec("look", "Look.", {"type": "object", "properties": {}}),)
#: A 1x1 PNG, whose base64 text cannot occur in a body by chance.
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
URL = "https://images.example/a-picture-of-a-potato.jpg"


def _transcript(image: ImageBlock) -> list:
    call = ToolUseBlock("call_1", "look", "{}")
    return [UserMessage([TextBlock("first:"), image]), AssistantMessage([call], StopReason.TOOL_USE),
            ToolResultMessage(call.id, call.name, [TextBlock("second:"), image])]


def _body(row: ModelInfo, image: ImageBlock) -> bytes:
    request = ProviderRequest(model=row, messages=_transcript(image), tools=TOOLS, max_tokens=64, stream=False)
    return asyncio.run(ProviderRuntime(env={}).prepare(HOST.providers[row.api], request)).body_bytes


def test_every_wire_that_sends_images_is_installed() -> None:
    assert {row.api for row in VISION} >= {"anthropic-messages", "openai-completions", "openai-responses",
                                           "google-generative-ai", "ollama-chat"}


@pytest.mark.parametrize("row", VISION, ids=[row.key for row in VISION])
def test_an_inline_image_reaches_the_body_from_a_user_and_from_a_tool(row: ModelInfo) -> None:
    assert _body(row, ImageBlock(PNG, "image/png")).count(PNG.encode()) == 2


@pytest.mark.parametrize("row", VISION, ids=[row.key for row in VISION])
def test_a_url_image_is_sent_as_a_url_or_refused_naming_the_fetcher(row: ModelInfo) -> None:
    limits = row.image_limits or DEFAULT_IMAGE_LIMITS
    # The scripted test wire writes every canonical block as it is, a URL included.
    if limits.urls or row.api == "faux":
        assert _body(row, ImageBlock.from_url(URL)).count(URL.encode()) == 2
        return
    with pytest.raises(ProviderError, match="image_fetcher"):
        _body(row, ImageBlock.from_url(URL))


@pytest.mark.parametrize("row", VISION, ids=[row.key for row in VISION])
def test_every_vendor_row_that_takes_images_states_its_limits(row: ModelInfo) -> None:
    if row.vendor != "faux":  # the scripted test wire has no vendor to document limits
        assert row.image_limits is not None, f"{row.key} takes images but its row gives no image_limits"
