"""How the wire's identities live in canonical blocks, and back.

Two things on this wire have no field of their own in the canonical transcript:

* **A function call has two ids.** ``call_id`` (``call_...``) pairs the call
  with its ``function_call_output``; the item ``id`` (``fc_...``) names the
  output item itself and must come back when the call is replayed. The
  canonical :class:`~agentkit.plugin_api.ToolUseBlock` keeps both as
  ``"<call_id>|<item_id>"``. A ``ToolUseBlock.id`` without ``|`` (a transcript
  from another wire) is a bare ``call_id`` and is replayed without an item id.
* **A reasoning item is replayed by id and encrypted content.** With
  ``store: false`` the server keeps nothing between turns, so the item's
  ``encrypted_content`` is the reasoning itself. The canonical
  :class:`~agentkit.plugin_api.ThinkingBlock` keeps the readable summary in
  ``thinking`` and ``{"id": ..., "encrypted_content": ...}`` as compact JSON in
  ``signature`` (``encrypted_content`` absent when the server sent none).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

#: Separates ``call_id`` from the item id in ``ToolUseBlock.id``.
CALL_ID_SEPARATOR = "|"


def join_call_id(call_id: str, item_id: str | None) -> str:
    """The canonical tool-use id of a call with ``call_id`` and output item ``item_id``."""
    return f"{call_id}{CALL_ID_SEPARATOR}{item_id}" if item_id else call_id


def split_call_id(tool_use_id: str) -> tuple[str, str | None]:
    """``(call_id, item_id)`` from a canonical tool-use id; ``item_id`` is ``None`` when absent."""
    call_id, separator, item_id = tool_use_id.partition(CALL_ID_SEPARATOR)
    return call_id, (item_id if separator and item_id else None)


@dataclass(frozen=True, slots=True)
class ReasoningRef:
    """What replaying one reasoning item needs beside its summary text."""

    id: str
    encrypted_content: str | None = None

    def to_signature(self) -> str:
        value = {"id": self.id}
        if self.encrypted_content is not None:
            value["encrypted_content"] = self.encrypted_content
        return json.dumps(value, separators=(",", ":"))

    @classmethod
    def from_signature(cls, signature: str | None) -> ReasoningRef | None:
        """The reference kept in a thinking block's signature; ``None`` when the
        signature is not ours (thinking from another wire, or none at all)."""
        if not signature or not signature.startswith("{"):
            return None
        try:
            value = json.loads(signature)
        except ValueError:
            return None
        if not isinstance(value, dict) or not isinstance(value.get("id"), str) or not value["id"]:
            return None
        encrypted = value.get("encrypted_content")
        return cls(value["id"], encrypted if isinstance(encrypted, str) and encrypted else None)
