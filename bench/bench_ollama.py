"""Per-turn cost of the ollama-chat codec, deep into a session.

One turn is what the host asks of the codec per request: encode the request
(system prompt, the whole transcript, the tool definitions) and decode a
typical streamed answer (thinking and text deltas, one tool call with object
arguments, the final line with the counts). The transcript is synthetic: each
earlier turn adds an assistant message with a tool call and its result, and
the host reuses the same message and ToolSpec objects from one turn to the
next, as the real loop does; only the newest two messages are new objects
each turn.

Reported: microseconds per turn at turn 20 and turn 200 and their ratio (the
depth term), plus the same turns with every cache cold as the baseline.

Run: ``.venv/bin/python bench/bench_ollama.py``
"""

from __future__ import annotations

from typing import Any

from _codec_bench import report
from agentkit_provider_ollama import OllamaChat

from agentkit.plugin_api import (
    AssistantMessage,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolResultMessage,
    ToolUseBlock,
    WireEvent,
)


def _turn(n: int) -> list[Any]:
    call = ToolUseBlock(
        f"call_{n:06d}", f"tool_{n % 20}", f'{{"path":"src/module_{n}.py","limit":200}}'
    )
    return [
        AssistantMessage(
            [
                ThinkingBlock(f"Module {n} is next.", "ollama-chat"),
                TextBlock(f"Step {n}: reading the next file."),
                call,
            ],
            StopReason.TOOL_USE,
        ),
        ToolResultMessage(call.id, call.name, [TextBlock(f"contents of module {n}\n" * 30)]),
    ]


def _response() -> list[WireEvent]:
    def chunk(message: dict[str, Any], **top: Any) -> WireEvent:
        data = {
            "model": "qwen3",
            "created_at": "2025-05-27T22:54:57.641643Z",
            "message": {"role": "assistant", "content": "", **message},
            "done": False,
        }
        data.update(top)
        return WireEvent(data)

    events = [chunk({"thinking": word}) for word in ("The", " next", " module", ".") * 3]
    events += [
        chunk({"content": word})
        for word in ("I", " will", " now", " look", " at", " the", " next", " module", ".") * 4
    ]
    call = {"function": {"name": "tool_3", "arguments": {"path": "src/a.py", "limit": 50}}}
    events.append(chunk({"tool_calls": [call]}))
    events.append(chunk({}, done=True, done_reason="stop", prompt_eval_count=9000, eval_count=60))
    return events


def main() -> dict[str, float]:
    return report("ollama-chat", OllamaChat, "ollama/qwen3", _turn, _response())


if __name__ == "__main__":
    main()
