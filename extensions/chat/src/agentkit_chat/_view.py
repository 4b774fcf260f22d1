"""How a run's events look in the chat: a view over the agent's event stream, never a loop of its own."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from agentkit.host.cli.support import visible, visible_line
from agentkit.plugin_api import (
    AgentEnd,
    AssistantMessage,
    BlockDelta,
    BlockEnd,
    BlockStart,
    Event,
    Message,
    MessageEnd,
    Outcome,
    StopReason,
    TextBlock,
    ToolCallEnd,
    ToolCallStart,
    ToolResultMessage,
    ToolUseBlock,
    Usage,
    UserMessage,
)

from ._answer import MarkdownAnswer
from ._markdown import render
from ._screen import THEMES, Screen
from ._status import Status

#: How much of a tool call's arguments, and of its result, a progress line shows (the authorization
#: question shows the whole call: :func:`whole_call`).
ARGUMENTS_WIDTH = 80
RESULT_WIDTH = 80


def shorten(text: str, width: int) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def short_arguments(call: ToolUseBlock) -> str:
    """The call's arguments as ``key=value`` pairs on one short line (the raw text if it is no JSON object).

    A progress line only: cut with an ellipsis. What the person approves is :func:`whole_call`.
    """
    try:
        parsed = json.loads(call.arguments) if call.arguments.strip() else {}
    except ValueError:
        return shorten(visible_line(call.arguments), ARGUMENTS_WIDTH)
    if not isinstance(parsed, dict):
        return shorten(visible_line(call.arguments), ARGUMENTS_WIDTH)
    return shorten(" ".join(f"{visible_line(key)}={argument_text(value)}" for key, value in parsed.items()),
                   ARGUMENTS_WIDTH)


def argument_text(value: Any) -> str:
    """One argument's value on one line, every character of it: a string as it is, anything else as JSON."""
    return visible_line(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))


def whole_call(arguments: dict[str, Any]) -> list[str]:
    """Every argument of a call, one ``key: value`` line each, nothing cut and every control shown.

    Built from the arguments the host will run the tool with (not from the
    model's text, where a key given twice reads one way and parses another).
    """
    if not arguments:
        return ["  (no arguments)"]
    return [f"  {visible_line(key)}: {argument_text(value)}" for key, value in arguments.items()]


def result_text(result: ToolResultMessage) -> str:
    return "".join(block.text for block in result.content if isinstance(block, TextBlock))


def result_summary(result: ToolResultMessage) -> str:
    """What a result says, on one short visible line: an envelope's data or error, else its text."""
    text = result_text(result)
    try:
        envelope = json.loads(text)
    except ValueError:
        envelope = None
    if isinstance(envelope, dict) and "ok" in envelope:
        if envelope["ok"] and "data" in envelope:
            data = envelope["data"]
            text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        elif not envelope["ok"]:
            text = ": ".join(str(envelope[key]) for key in ("error", "detail") if envelope.get(key))
    return visible(shorten(text, RESULT_WIDTH))


def usage_line(label: str, usage: Usage) -> str:
    """``label: 1,200 in, 80 out, 300 cached, $0.0042`` (``cost unknown`` for a model without prices)."""
    parts = [f"{usage.input:,} in", f"{usage.output:,} out"]
    if usage.cache_read or usage.cache_write:
        parts.append(f"{usage.cache_read:,} cache read, {usage.cache_write:,} cache write")
    cost = "cost unknown" if usage.cost is None else f"${usage.cost:.4f}"
    return f"{label}: {', '.join(parts)}, {cost}"


def session_usage(history: Iterable[Message]) -> Usage:
    """What every response in the history cost, summed (a resumed session's earlier turns included)."""
    total = Usage()
    for message in history:
        if isinstance(message, AssistantMessage):
            total = total + message.usage
    return total


class TurnView:
    """Shows one run as it happens: text streamed (as Markdown on a terminal), thinking dimmed, each tool call at
    its start and end, and the status of what the run waits for."""

    def __init__(self, screen: Screen, status: Status | None = None) -> None:
        self.screen = screen
        self.status = status if status is not None else Status(screen)
        self.usage = Usage()
        self.end: AgentEnd | None = None
        self._kinds: dict[int, str] = {}
        self._answer: MarkdownAnswer | None = None
        # Markdown is rendered for a person at a terminal with colours; anywhere else the text is as written.
        self._markdown = not screen.plain and screen.size() is not None

    def show(self, event: Event) -> None:
        screen = self.screen
        if isinstance(event, BlockStart):
            self.status.responding()
            self._kinds[event.index] = event.kind
            if event.kind == "thinking":
                screen.end_line()
                screen.write(screen.marker("💭 ", "[thinking] "), "thinking")
            elif event.kind == "text" and self._markdown:
                screen.end_line()
                self._answer = MarkdownAnswer(screen)
        elif isinstance(event, BlockDelta):
            kind = self._kinds.get(event.index)
            if kind == "text" and self._answer is not None:
                self._answer.feed(event.delta)
            elif kind in ("text", "thinking"):
                screen.write(visible(event.delta), kind if kind == "thinking" else None)
        elif isinstance(event, BlockEnd):
            if self._kinds.get(event.index) == "thinking":
                screen.end_line()
            self._finish_answer()
        elif isinstance(event, MessageEnd):
            self._finish_answer()  # a response cut short ends its open block with it
            self._kinds.clear()
            screen.end_line()
            self.usage = self.usage + event.message.usage
            if event.message.stop_reason is StopReason.ERROR and event.message.error_message:
                screen.line(f"error: {visible(shorten(event.message.error_message, 300))}", "error")
        elif isinstance(event, ToolCallStart):
            screen.line(f"{screen.marker('→', '[tool]')} {visible_line(event.call.name)} {short_arguments(event.call)}".rstrip(),
                        "tool")
            self.status.tool_started(event.call.id, event.call.name)
        elif isinstance(event, ToolCallEnd):
            self._tool_end(event.result)
        elif isinstance(event, AgentEnd):
            self.status.stop()
            self.end = event

    def _finish_answer(self) -> None:
        if self._answer is not None:
            self._answer.finish()
            self._answer = None

    def _tool_end(self, result: ToolResultMessage) -> None:
        screen = self.screen
        ran = self.status.tool_ended(result.tool_use_id)
        took = f" ({ran:.1f}s)" if ran is not None else ""
        summary = result_summary(result)
        if result.is_error:
            screen.line(f"{screen.marker('✗', '[failed]')} {visible_line(result.tool_name)}{took}: {summary}", "error")
        else:
            screen.line(f"{screen.marker('✓', '[done]')} {visible_line(result.tool_name)}{took}: {summary}", "ok")

    def finish(self, session_total: Usage, *, interrupted: bool = False) -> None:
        """The run's end: how it ended if not completed, and what the turn and the session cost."""
        screen = self.screen
        self._finish_answer()
        self.status.stop()
        screen.end_line()
        end = self.end
        if interrupted or (end is not None and end.outcome is Outcome.ABORTED):  # only the person aborts a turn
            screen.line("interrupted: the turn was aborted", "note")
        elif end is not None and end.outcome is not Outcome.COMPLETED:
            detail = f": {visible(shorten(end.error, 300))}" if end.error else ""
            screen.line(f"({end.outcome.value}{detail})", "note")
        screen.line(f"{usage_line('turn', self.usage)} · {usage_line('session', session_total)}", "usage")


def show_history(screen: Screen, messages: Sequence[Message], last: int) -> None:
    """The last ``last`` messages of a stored conversation, as the chat showed them."""
    shown = list(messages)[-last:]
    if len(shown) < len(messages):
        screen.line(f"… {len(messages) - len(shown)} earlier messages", "note")
    for message in shown:
        if isinstance(message, UserMessage):
            text = "".join(block.text for block in message.content if isinstance(block, TextBlock))
            screen.line(f"> {visible(text)}", "user")
        elif isinstance(message, AssistantMessage):
            if message.text and not screen.plain and screen.size() is not None:  # as the answer was shown
                screen.end_line()
                screen.write("\n".join(render(message.text, THEMES[screen.theme])) + "\n")
            elif message.text:
                screen.line(visible(message.text))
            for call in message.tool_calls:
                screen.line(f"{screen.marker('→', '[tool]')} {visible_line(call.name)} {short_arguments(call)}".rstrip(),
                            "tool")
        elif isinstance(message, ToolResultMessage):
            marker = screen.marker("✗", "[failed]") if message.is_error else screen.marker("✓", "[done]")
            screen.line(f"{marker} {visible_line(message.tool_name)}: {result_summary(message)}",
                        "error" if message.is_error else "ok")
