"""Per-turn cost of the google-generative-ai codec, deep into a session.

One turn is what the host asks of the codec per request: encode the request
(system prompt, the whole transcript, the tool declarations) and decode a
typical streamed answer (a thought, text pieces, one signed function call,
cumulative usage on every chunk). The transcript is synthetic: each earlier
turn adds a model message with text, a function call and its signature
carrier, and the call's result; the host reuses the same message and ToolSpec
objects from one turn to the next, as the real loop does, and only the newest
two messages are new objects each turn.

Run: ``.venv/bin/python bench/bench_gemini.py``
"""

from __future__ import annotations

from typing import Any

from _codec_bench import report
from agentkit_provider_gemini import GeminiGenerateContent

from agentkit.plugin_api import (
    AssistantMessage,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolResultMessage,
    ToolUseBlock,
    WireEvent,
)

SIGNATURE = "CikBypeBEsobvcr6wjGzmiPcTaeG7/gUfE5yuYB3ha/uSLvR7Q=="


def _turn(n: int) -> list[Any]:
    call = ToolUseBlock(
        f"gemini_{n:024x}", f"tool_{n % 20}", f'{{"path":"src/module_{n}.py","limit":200}}'
    )
    return [
        AssistantMessage(
            [
                TextBlock(f"Step {n}: reading the next file."),
                call,
                ThinkingBlock("", SIGNATURE, redacted=True),
            ],
            StopReason.TOOL_USE,
            provider="google",
            api="google-generative-ai",
            model="gemini-2.5-flash",
        ),
        ToolResultMessage(call.id, call.name, [TextBlock(f"contents of module {n}\n" * 30)]),
    ]


def _response() -> list[WireEvent]:
    def chunk(part: dict[str, Any], finish: str | None = None) -> WireEvent:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": [part]}, "index": 0}
        if finish:
            candidate["finishReason"] = finish
        return WireEvent(
            {
                "candidates": [candidate],
                "usageMetadata": {
                    "promptTokenCount": 9000,
                    "candidatesTokenCount": 60,
                    "cachedContentTokenCount": 8500,
                    "thoughtsTokenCount": 40,
                },
                "modelVersion": "gemini-2.5-flash",
                "responseId": "bench-response",
            }
        )

    events = [chunk({"text": "**Choosing the next module**", "thought": True})]
    for word in ("I", " will", " now", " look", " at", " the", " next", " module", ".") * 4:
        events.append(chunk({"text": word}))
    call = {"functionCall": {"name": "tool_3", "args": {"path": "src/a.py", "limit": 50}}}
    events.append(chunk({**call, "thoughtSignature": SIGNATURE}, finish="STOP"))
    return events


def main() -> dict[str, float]:
    return report(
        "google-generative-ai", GeminiGenerateContent, "google/gemini-2.5-flash", _turn, _response()
    )


if __name__ == "__main__":
    main()
