"""Values the lifecycle hooks receive and return."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Block:
    """A refusal of one tool call.

    The call still gets a result (an error carrying ``reason``) and the loop
    goes on. ``terminate=True`` is how a hook or the embedder's
    ``before_tool_call`` ends the run: once the batch is answered, it ends
    with outcome ``terminated``.
    """

    reason: str
    terminate: bool = False


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """The run a hook is called for."""

    session_id: str
    model: str
    root: Path

