"""The repair of a turn a killed process left half-finished.

A process killed in the middle of a tool batch leaves a log whose last
assistant message has calls without results: the results never came, or came
and were not yet written. The next run on the session answers each of them,
in the log, before anything else: an error result saying the process ended
(:data:`INTERRUPTED_RESULT`). The tree is then well formed again, every wire
accepts the next request, and the model is told the truth: the call may or may
not have taken effect.
"""

from __future__ import annotations

from collections.abc import Sequence

from agentkit.plugin_api import AssistantMessage, Message, StopReason, TextBlock, ToolResultMessage

INTERRUPTED_RESULT = "The process ended before this call finished; it may or may not have taken effect."


def interrupted_results(messages: Sequence[Message]) -> list[ToolResultMessage]:
    """Error results for the calls the conversation's last turn left unanswered, in call order.

    Only the last assistant message is looked at, and only while nothing but
    tool results follows it; one that ended in ``error`` or ``aborted`` needs
    no answers (the send-time repair leaves it out, with its results).
    """
    answered: set[str] = set()
    for message in reversed(messages):
        if isinstance(message, ToolResultMessage):
            answered.add(message.tool_use_id)
            continue
        if not isinstance(message, AssistantMessage) or message.stop_reason in (StopReason.ERROR, StopReason.ABORTED):
            return []
        results = []
        for call in message.tool_calls:
            if call.id not in answered:
                answered.add(call.id)
                results.append(ToolResultMessage(call.id, call.name, [TextBlock(INTERRUPTED_RESULT)], is_error=True))
        return results
    return []
