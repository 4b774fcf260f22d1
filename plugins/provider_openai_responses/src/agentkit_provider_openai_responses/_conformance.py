"""This wire's responder for the shared conformance fixtures (``agentkit.conformance``).

It plays the server: a canonical assistant message rendered as the events
``POST /responses`` streams (``response.created``, each output item added,
its deltas and ``output_item.done``, then ``response.completed``) and as the
whole ``response`` object, written from OpenAI's Responses streaming
reference. Usage counts every input token, cached and cache-written ones
included, as the API does. It never calls this package's decoder. The suite
finds it as :attr:`OpenAIResponses.conformance_responder`.
"""

from __future__ import annotations

from typing import Any

from agentkit.plugin_api import (
    AssistantMessage,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    WireEvent,
)
from agentkit.plugin_api.codec import chunks

from ._ids import split_call_id

_CHUNK = 5


class ResponsesResponder:
    """Canonical responses as Responses events (stream) and ``response`` objects (whole)."""

    api = "openai-responses"
    # Reasoning signatures are this wire's own JSON (item id and encrypted
    # content), so an arbitrary fixture signature cannot round-trip.
    features = frozenset({"thinking", "cache_write", "reasoning"})

    def _output(self, message: AssistantMessage) -> list[dict[str, Any]]:
        output: list[dict[str, Any]] = []
        for n, block in enumerate(message.content):
            if isinstance(block, ThinkingBlock):
                output.append({"id": f"rs_{n}", "type": "reasoning", "encrypted_content": "gAAAA-conformance",
                               "summary": [{"type": "summary_text", "text": block.thinking}]})
            elif isinstance(block, TextBlock):
                part = {"type": "output_text", "annotations": [], "logprobs": [], "text": block.text}
                output.append({"id": f"msg_{n}", "type": "message", "status": "completed", "role": "assistant",
                               "content": [part]})
            elif isinstance(block, ToolUseBlock):
                call_id, item_id = split_call_id(block.id)
                item = {"type": "function_call", "status": "completed", "arguments": block.arguments,
                        "call_id": call_id, "name": block.name}
                if item_id is not None:
                    item["id"] = item_id
                output.append(item)
        return output

    def _response(self, message: AssistantMessage, output: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        usage = message.usage
        length = message.stop_reason is StopReason.LENGTH
        return {
            "id": "resp_conformance", "object": "response", "created_at": 1764480000,
            "status": "incomplete" if length else "completed", "error": None,
            "incomplete_details": {"reason": "max_output_tokens"} if length else None,
            "model": "conformance", "output": self._output(message) if output is None else output,
            "parallel_tool_calls": True, "store": False, "tool_choice": "auto", "tools": [],
            "usage": {
                "input_tokens": usage.input + usage.cache_read + usage.cache_write,
                "input_tokens_details": {"cached_tokens": usage.cache_read, "cache_write_tokens": usage.cache_write},
                "output_tokens": usage.output,
                "output_tokens_details": {"reasoning_tokens": usage.reasoning},
                "total_tokens": usage.input + usage.cache_read + usage.cache_write + usage.output,
            },
        }

    def stream(self, message: AssistantMessage) -> list[WireEvent]:
        whole = self._response(message)
        events: list[dict[str, Any]] = []

        def emit(kind: str, **fields: Any) -> None:
            events.append({"type": kind, **fields, "sequence_number": len(events)})

        start = {**whole, "status": "in_progress", "output": [], "usage": None, "incomplete_details": None}
        emit("response.created", response=start)
        emit("response.in_progress", response=start)
        for index, item in enumerate(whole["output"]):
            item_id = item.get("id", "")
            kind = item["type"]
            if kind == "function_call":
                emit("response.output_item.added", output_index=index,
                     item={**item, "status": "in_progress", "arguments": ""})
                for piece in chunks(item["arguments"], _CHUNK):
                    emit("response.function_call_arguments.delta", item_id=item_id, output_index=index, delta=piece)
                emit("response.function_call_arguments.done", item_id=item_id, output_index=index,
                     arguments=item["arguments"])
            elif kind == "message":
                emit("response.output_item.added", output_index=index,
                     item={**item, "status": "in_progress", "content": []})
                part = item["content"][0]
                common = {"item_id": item_id, "output_index": index, "content_index": 0}
                emit("response.content_part.added", **common, part={**part, "text": ""})
                for piece in chunks(part["text"], _CHUNK):
                    emit("response.output_text.delta", **common, delta=piece, logprobs=[])
                emit("response.output_text.done", **common, text=part["text"], logprobs=[])
                emit("response.content_part.done", **common, part=part)
            else:  # reasoning: the summary streams, the encrypted content comes with the done item
                emit("response.output_item.added", output_index=index,
                     item={"id": item_id, "type": "reasoning", "summary": []})
                for summary_index, part in enumerate(item["summary"]):
                    common = {"item_id": item_id, "output_index": index, "summary_index": summary_index}
                    emit("response.reasoning_summary_part.added", **common, part={"type": "summary_text", "text": ""})
                    for piece in chunks(part["text"], _CHUNK):
                        emit("response.reasoning_summary_text.delta", **common, delta=piece)
                    emit("response.reasoning_summary_text.done", **common, text=part["text"])
                    emit("response.reasoning_summary_part.done", **common, part=part)
            emit("response.output_item.done", output_index=index, item=item)
        emit("response.incomplete" if whole["status"] == "incomplete" else "response.completed", response=whole)
        return [WireEvent(event, event["type"]) for event in events]

    def whole(self, message: AssistantMessage) -> list[WireEvent] | None:
        return [WireEvent(self._response(message))]

    def error(self, text: str) -> list[WireEvent]:
        event = {"type": "error", "code": "server_error", "message": text, "param": None, "sequence_number": 0}
        return [WireEvent(event, "error")]
