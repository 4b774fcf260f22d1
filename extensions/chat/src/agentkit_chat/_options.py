"""What the command line chose for a chat, kept for every agent the chat builds."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class ChatOptions:
    """What the command line chose, kept for the agents the chat builds (a ``/model`` switch, a ``/clear``)."""

    root: Path
    allow_all_tools: bool
    system: str | None
    max_turns: int | None
    max_tokens: int | None
    trust_project: bool
    transport: Any  # the scripted model's script, kept across agents so that it plays on
