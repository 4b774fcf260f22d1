"""Per-turn cost of the openai-responses codec, deep into a session.

One turn is what the host asks of the codec per request: encode the request
(instructions, the whole transcript as input items, the tool definitions) and
decode a typical streamed answer (a reasoning item, text deltas, one function
call with argument deltas, the completed response with usage). The transcript
is synthetic: each earlier turn adds an assistant message (reasoning with its
encrypted content, text, one call) and the call's result, and the host reuses
the same message and ToolSpec objects from one turn to the next, as the real
loop does; only the newest two messages are new objects each turn.

Run: ``.venv/bin/python bench/bench_openai_responses.py``
"""

from __future__ import annotations

import json
from typing import Any

from _codec_bench import report
from agentkit_provider_openai_responses import OpenAIResponses

from agentkit.plugin_api import (
    AssistantMessage,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolResultMessage,
    ToolUseBlock,
    WireEvent,
)

ENCRYPTED = "gAAAAB" + "x" * 600


def _turn(n: int) -> list[Any]:
    call = ToolUseBlock(
        f"call_{n:06d}|fc_{n:06d}",
        f"tool_{n % 20}",
        f'{{"path": "src/module_{n}.py", "limit": 200}}',
    )
    signature = json.dumps({"id": f"rs_{n:06d}", "encrypted_content": ENCRYPTED})
    return [
        AssistantMessage(
            [
                ThinkingBlock(f"**Step {n}**", signature),
                TextBlock(f"Step {n}: reading the next file."),
                call,
            ],
            StopReason.TOOL_USE,
        ),
        ToolResultMessage(call.id, call.name, [TextBlock(f"contents of module {n}\n" * 30)]),
    ]


def _response() -> list[WireEvent]:
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": "resp_b", "model": "gpt-5"}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"id": "rs_b", "type": "reasoning", "summary": []},
        },
    ]
    for word in (
        "**Next",
        " module**",
    ):
        events.append(
            {
                "type": "response.reasoning_summary_text.delta",
                "output_index": 0,
                "summary_index": 0,
                "item_id": "rs_b",
                "delta": word,
            }
        )
    events.append(
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {
                "id": "rs_b",
                "type": "reasoning",
                "encrypted_content": ENCRYPTED,
                "summary": [{"type": "summary_text", "text": "**Next module**"}],
            },
        }
    )
    events.append(
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {"id": "msg_b", "type": "message", "role": "assistant", "content": []},
        }
    )
    text = ("I", " will", " now", " look", " at", " the", " next", " module", ".") * 4
    for word in text:
        events.append(
            {
                "type": "response.output_text.delta",
                "output_index": 1,
                "content_index": 0,
                "item_id": "msg_b",
                "delta": word,
            }
        )
    events.append(
        {
            "type": "response.output_item.done",
            "output_index": 1,
            "item": {
                "id": "msg_b",
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "".join(text)}],
            },
        }
    )
    call = {
        "id": "fc_b",
        "type": "function_call",
        "call_id": "call_b",
        "name": "tool_3",
        "arguments": "",
    }
    events.append({"type": "response.output_item.added", "output_index": 2, "item": call})
    pieces = ('{"pa', 'th": "s', "rc/a.py", '", "li', 'mit": 5', "0}")
    for piece in pieces:
        events.append(
            {
                "type": "response.function_call_arguments.delta",
                "output_index": 2,
                "item_id": "fc_b",
                "delta": piece,
            }
        )
    arguments = "".join(pieces)
    events.append(
        {
            "type": "response.function_call_arguments.done",
            "output_index": 2,
            "item_id": "fc_b",
            "arguments": arguments,
        }
    )
    events.append(
        {
            "type": "response.output_item.done",
            "output_index": 2,
            "item": {**call, "arguments": arguments},
        }
    )
    usage = {
        "input_tokens": 9000,
        "input_tokens_details": {"cached_tokens": 8500},
        "output_tokens": 60,
        "output_tokens_details": {"reasoning_tokens": 20},
    }
    # The completed response repeats the output; the decoder skips items it already has.
    events.append(
        {
            "type": "response.completed",
            "response": {
                "id": "resp_b",
                "model": "gpt-5",
                "status": "completed",
                "output": [e["item"] for e in events if e["type"] == "response.output_item.done"],
                "usage": usage,
            },
        }
    )
    return [WireEvent(data=event, event=event["type"]) for event in events]


def main() -> dict[str, float]:
    return report("openai-responses", OpenAIResponses, "openai-responses/gpt-5", _turn, _response())


if __name__ == "__main__":
    main()
