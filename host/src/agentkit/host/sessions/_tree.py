"""The entries of a session as a tree, and the fold that resumes it.

Each entry names its parent, so one log holds every branch the conversation
took. The *leaf* is where the next entry goes: after a load, the last entry
of the file (moving elsewhere appends a ``branch_summary`` entry there, so the
last entry is always the current position). ``None`` is the root: a branch
from the very beginning.

Resuming is a fold over the path from the root to the leaf: the model is the
last ``model_change`` on it (else the provenance of the last assistant
message), the thinking level the last ``thinking_level_change``, and the
conversation is its messages in order, a branch summary with text shown to
the model as a user message wrapped in :data:`BRANCH_SUMMARY_PREFIX` and
:data:`BRANCH_SUMMARY_SUFFIX`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import field

from agentkit.plugin_api import AssistantMessage, Message, UserMessage
from agentkit.plugin_api._dataclass import dataclass

from ._entries import (
    BRANCH_SUMMARY,
    COMPACTION,
    MESSAGE,
    MODEL_CHANGE,
    THINKING_LEVEL_CHANGE,
    Entry,
)

#: Around a branch summary's text, when the model is shown it.
BRANCH_SUMMARY_PREFIX = "The conversation returned here from another branch it had taken. That branch, summarized:\n\n<summary>\n"
BRANCH_SUMMARY_SUFFIX = "\n</summary>"


@dataclass
class Resume:
    """What a session resumes with: the fold of its current branch.

    :param model: ``vendor/model`` from the last model change, else from the
        last assistant message; ``None`` when the branch has neither.
    :param thinking_level: from the last thinking-level change (``None`` also
        when there is none: see ``thinking_level_changed``).
    :param messages: the conversation of the branch, in order.
    :param leaf_id: the entry the branch ends at (``None``: the root).
    :param first_kept: from the last ``compaction`` entry on the branch: the
        first message requests carry (``None``: no compaction); the agent
        goes on from that checkpoint.
    :param summary: that compaction's summary (``None`` when it has none).
    """

    model: str | None = None
    thinking_level: str | None = None
    thinking_level_changed: bool = False
    messages: list[Message] = field(default_factory=list)
    leaf_id: str | None = None
    first_kept: Message | None = None
    summary: str | None = None


class Tree:
    """Entries by id, and how many children each has."""

    def __init__(self, entries: Iterable[Entry] = ()) -> None:
        self.by_id: dict[str, Entry] = {}
        self.children: dict[str | None, int] = {}
        by_id, children = self.by_id, self.children
        for entry in entries:  # add(), inline: a session opened with 10,000 entries makes as many calls less
            by_id[entry.id] = entry
            children[entry.parent_id] = children.get(entry.parent_id, 0) + 1

    def add(self, entry: Entry) -> None:
        self.by_id[entry.id] = entry
        self.children[entry.parent_id] = self.children.get(entry.parent_id, 0) + 1

    def path(self, leaf_id: str | None) -> list[Entry]:
        """The entries from the root down to ``leaf_id``, in order (parents always precede children in a log)."""
        path: list[Entry] = []
        current = leaf_id
        while current is not None:
            entry = self.by_id[current]
            path.append(entry)
            current = entry.parent_id
        path.reverse()
        return path

    def leaves(self, entries: Iterable[Entry]) -> list[Entry]:
        """The entries of ``entries`` (file order kept) that no entry continues."""
        return [entry for entry in entries if entry.id not in self.children]


def branch_summary_message(summary: str, timestamp: float | None = None) -> UserMessage:
    """How the model is shown a branch summary."""
    message = UserMessage.text(f"{BRANCH_SUMMARY_PREFIX}{summary}{BRANCH_SUMMARY_SUFFIX}")
    if timestamp is not None:
        message.timestamp = timestamp
    return message


def fold(path: Iterable[Entry]) -> Resume:
    """Resume the branch ``path`` (root first); damaged and unknown entries are skipped."""
    resume = Resume()
    last_assistant: AssistantMessage | None = None
    messages: dict[str, Message] = {}  # the messages on the path so far, by entry id
    for entry in path:
        resume.leaf_id = entry.id
        if entry.damaged:
            continue
        if entry.type == MESSAGE and entry.message is not None:
            resume.messages.append(entry.message)
            messages[entry.id] = entry.message
            if isinstance(entry.message, AssistantMessage):
                last_assistant = entry.message
        elif entry.type == MODEL_CHANGE:
            resume.model = entry.data["model"]
        elif entry.type == THINKING_LEVEL_CHANGE:
            resume.thinking_level, resume.thinking_level_changed = entry.data["thinking_level"], True
        elif entry.type == BRANCH_SUMMARY and entry.data["summary"]:
            resume.messages.append(branch_summary_message(entry.data["summary"]))
        elif entry.type == COMPACTION and entry.data["first_kept_entry_id"] in messages:
            resume.first_kept = messages[entry.data["first_kept_entry_id"]]
            resume.summary = entry.data["summary"] or None
    if resume.model is None and last_assistant is not None and last_assistant.provider and last_assistant.model:
        resume.model = f"{last_assistant.provider}/{last_assistant.model}"
    return resume
