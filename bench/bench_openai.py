"""Per-turn cost of the openai-completions codec, deep into a session.

One turn is what the host asks of the codec per request: encode the request
(system prompt, the whole transcript, the tool definitions) and decode a
typical streamed answer (text deltas, one tool call, the usage chunk). The
transcript is synthetic: each earlier turn adds an assistant message with a
tool call and its result, and the host reuses the same message and ToolSpec
objects from one turn to the next, as the real loop does; only the newest two
messages are new objects each turn.

Run: ``.venv/bin/python bench/bench_openai.py``
"""

from __future__ import annotations

from typing import Any

from _codec_bench import report
from agentkit_provider_openai import OpenAICompletions

from agentkit.plugin_api import (
    AssistantMessage,
    StopReason,
    TextBlock,
    ToolResultMessage,
    ToolUseBlock,
    WireEvent,
)


def _turn(n: int) -> list[Any]:
    call = ToolUseBlock(
        f"call_{n:06d}", f"tool_{n % 20}", f'{{"path": "src/module_{n}.py", "limit": 200}}'
    )
    return [
        AssistantMessage(
            [TextBlock(f"Step {n}: reading the next file."), call], StopReason.TOOL_USE
        ),
        ToolResultMessage(call.id, call.name, [TextBlock(f"contents of module {n}\n" * 30)]),
    ]


def _response() -> list[WireEvent]:
    chunks = [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}]
    for word in ("I", " will", " now", " look", " at", " the", " next", " module", ".") * 4:
        chunks.append({"choices": [{"index": 0, "delta": {"content": word}}]})
    start = {
        "index": 0,
        "id": "call_x",
        "type": "function",
        "function": {"name": "tool_3", "arguments": ""},
    }
    chunks.append({"choices": [{"index": 0, "delta": {"tool_calls": [start]}}]})
    for piece in ('{"pa', 'th": "s', "rc/a.py", '", "li', 'mit": 5', "0}"):
        chunks.append(
            {
                "choices": [
                    {
                        "index": 0,
                        "delta": {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]},
                    }
                ]
            }
        )
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    chunks.append(
        {
            "choices": [],
            "usage": {
                "prompt_tokens": 9000,
                "completion_tokens": 60,
                "prompt_tokens_details": {"cached_tokens": 8500},
            },
        }
    )
    return [WireEvent(data={"id": "chatcmpl-b", "model": "gpt-4.1", **chunk}) for chunk in chunks]


def main() -> dict[str, float]:
    return report("openai-completions", OpenAICompletions, "openai/gpt-4.1", _turn, _response())


if __name__ == "__main__":
    main()
