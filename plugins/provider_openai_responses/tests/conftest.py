"""The test kit: ``agentkit.conformance.codec`` bound to this wire, Responses event streams built
the way the API sends them, and the ``openai`` SDK behind a mock transport."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from agentkit_provider_openai_responses import OpenAIResponses

from agentkit.conformance import codec
from agentkit.plugin_api import ThinkingBlock

# -- responses ---------------------------------------------------------


def response_object(
    output: list[dict[str, Any]],
    *,
    status: str = "completed",
    usage: dict[str, Any] | None = None,
    incomplete_reason: str | None = None,
    error: dict[str, Any] | None = None,
    response_id: str = "resp_0a1b2c",
    model: str = "gpt-5-2025-08-07",
) -> dict[str, Any]:
    """A whole ``response`` object with the fields the API returns."""
    return {
        "id": response_id,
        "object": "response",
        "created_at": 1764480000,
        "status": status,
        "background": False,
        "error": error,
        "incomplete_details": {"reason": incomplete_reason} if incomplete_reason else None,
        "instructions": None,
        "max_output_tokens": None,
        "model": model,
        "output": output,
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "prompt_cache_key": None,
        "reasoning": {"effort": "medium", "summary": None},
        "store": False,
        "temperature": 1.0,
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": "auto",
        "tools": [],
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": usage,
        "user": None,
        "metadata": {},
    }


def usage(input_tokens: int, cached: int, output: int, reasoning: int = 0) -> dict[str, Any]:
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": cached},
        "output_tokens": output,
        "output_tokens_details": {"reasoning_tokens": reasoning},
        "total_tokens": input_tokens + output,
    }


def message_item(text: str, item_id: str = "msg_01") -> dict[str, Any]:
    part = {"type": "output_text", "annotations": [], "logprobs": [], "text": text}
    return {
        "id": item_id,
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [part],
    }


def call_item(call_id: str, item_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {
        "id": item_id,
        "type": "function_call",
        "status": "completed",
        "arguments": arguments,
        "call_id": call_id,
        "name": name,
    }


def reasoning_item(
    item_id: str, summary: list[str], encrypted: str | None = "gAAAAB-enc"
) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": item_id,
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": text} for text in summary],
    }
    if encrypted is not None:
        item["encrypted_content"] = encrypted
    return item


def _pieces(text: str, size: int) -> list[str]:
    return [text[start : start + size] for start in range(0, len(text), size)] or []


def stream_events(
    response: dict[str, Any], *, chunk: int = 5, terminal: bool = True
) -> list[dict[str, Any]]:
    """The event sequence the API streams for ``response``, in the documented order.

    Each item is announced in its in-progress shape (a function call with the
    placeholder ``arguments: ""``, a message with no content, a reasoning item
    with no summary and no encrypted content), its text arrives in pieces of
    ``chunk`` characters, and ``output_item.done`` carries the complete item.
    """
    events: list[dict[str, Any]] = []

    def emit(kind: str, **fields: Any) -> None:
        events.append({"type": kind, **fields, "sequence_number": len(events)})

    start = copy.deepcopy(response)
    start.update(status="in_progress", output=[], usage=None, error=None, incomplete_details=None)
    emit("response.created", response=start)
    emit("response.in_progress", response=start)
    for index, item in enumerate(response["output"]):
        kind, item_id = item["type"], item.get("id", "")
        if kind == "function_call":
            added = {**item, "status": "in_progress", "arguments": ""}
        elif kind == "message":
            added = {**item, "status": "in_progress", "content": []}
        elif kind == "reasoning":
            added = {"id": item_id, "type": "reasoning", "summary": []}
        else:
            added = item
        emit("response.output_item.added", output_index=index, item=added)
        if kind == "function_call":
            for piece in _pieces(item["arguments"], chunk):
                emit(
                    "response.function_call_arguments.delta",
                    item_id=item_id,
                    output_index=index,
                    delta=piece,
                )
            emit(
                "response.function_call_arguments.done",
                item_id=item_id,
                output_index=index,
                arguments=item["arguments"],
            )
        elif kind == "message":
            for content_index, part in enumerate(item["content"]):
                empty = {**part, "text": ""} if part["type"] == "output_text" else part
                common = {"item_id": item_id, "output_index": index, "content_index": content_index}
                emit("response.content_part.added", **common, part=empty)
                for piece in _pieces(part.get("text", ""), chunk):
                    emit("response.output_text.delta", **common, delta=piece, logprobs=[])
                emit("response.output_text.done", **common, text=part.get("text", ""), logprobs=[])
                emit("response.content_part.done", **common, part=part)
        elif kind == "reasoning":
            for summary_index, part in enumerate(item["summary"]):
                common = {"item_id": item_id, "output_index": index, "summary_index": summary_index}
                emit(
                    "response.reasoning_summary_part.added",
                    **common,
                    part={"type": "summary_text", "text": ""},
                )
                for piece in _pieces(part["text"], chunk):
                    emit("response.reasoning_summary_text.delta", **common, delta=piece)
                emit("response.reasoning_summary_text.done", **common, text=part["text"])
                emit("response.reasoning_summary_part.done", **common, part=part)
        emit("response.output_item.done", output_index=index, item=item)
    if terminal:
        kind = {"incomplete": "response.incomplete", "failed": "response.failed"}.get(
            response["status"], "response.completed"
        )
        emit(kind, response=response)
    return events


def sse_bytes(events: list[dict[str, Any]]) -> bytes:
    """``events`` as the API writes them: ``event:`` + ``data:`` lines, a blank line each."""
    return codec.sse_body(events, event=lambda event: event["type"])


# -- the SDK -----------------------------------------------------------


def sdk_client(handler: Callable[[Any], Any]) -> Any:
    """An ``openai.OpenAI`` client whose HTTP goes to ``handler`` (``httpx2.MockTransport``)."""
    openai = pytest.importorskip("openai")
    httpx2 = pytest.importorskip("httpx2")
    return openai.OpenAI(
        api_key="test",
        base_url="https://api.openai.com/v1",
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
        max_retries=0,
    )


def reasoning_blocks(texts: list[str], signature: dict[str, str]) -> list[ThinkingBlock]:
    """A reasoning item's blocks: one per summary part with text (one empty, redacted block for none),
    each naming the item, the last also holding its encrypted content."""
    whole = json.dumps(signature, separators=(",", ":"))
    if not texts:
        return [ThinkingBlock("", whole, True)]
    named = json.dumps({"id": signature["id"]}, separators=(",", ":"))
    return [*(ThinkingBlock(text, named) for text in texts[:-1]), ThinkingBlock(texts[-1], whole)]


@pytest.fixture(scope="session")
def kit() -> codec.ProviderKit:
    """The helpers, for test modules (which cannot import each other)."""
    return codec.ProviderKit(
        OpenAIResponses,
        "openai-responses/gpt-5",
        response_object=response_object,
        usage=usage,
        message_item=message_item,
        call_item=call_item,
        reasoning_item=reasoning_item,
        reasoning_blocks=reasoning_blocks,
        stream_events=stream_events,
        sse_bytes=sse_bytes,
        sdk_client=sdk_client,
    )
