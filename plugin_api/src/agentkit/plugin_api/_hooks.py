"""Values the lifecycle hooks receive and return."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Block:
    """A refusal of one tool call.

    The call still gets a result (an error carrying ``reason``) and the loop
    goes on. ``terminate`` asks the run to end once the batch is answered.
    """

    reason: str
    terminate: bool = False


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """The run a hook is called for."""

    session_id: str
    model: str
    root: Path
