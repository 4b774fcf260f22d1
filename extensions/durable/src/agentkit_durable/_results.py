"""A durable run's result as plain data: what its workflow returns and ``runs resume`` prints."""

from __future__ import annotations

from typing import Any

from agentkit.host import RunResult
from agentkit.plugin_api import Outcome, Usage, message_from_dict

__all__ = ["run_result_from_dict", "run_result_to_dict"]


def run_result_to_dict(result: RunResult[Any], *, run_id: str, session_id: str | None) -> dict[str, Any]:
    """``result`` as JSON-able data, with the run's and its session's ids."""
    return {
        "run_id": run_id,
        "session_id": session_id,
        "outcome": result.outcome.value,
        "text": result.text,
        "messages": [message.to_dict() for message in result.messages],
        "usage": result.usage.to_dict(),
        "turns": result.turns,
        "error": result.error,
        "problems": list(result.problems),
        "skills": list(result.skills),
        "stopped_by": result.stopped_by,
    }


def run_result_from_dict(data: dict[str, Any]) -> RunResult[Any]:
    """The :class:`~agentkit.host.RunResult` of :func:`run_result_to_dict`'s data."""
    return RunResult(Outcome(data["outcome"]), [message_from_dict(message) for message in data["messages"]],
                     Usage.from_dict(data["usage"]), data["turns"], data["error"], list(data["problems"]),
                     list(data["skills"]), data["stopped_by"])
