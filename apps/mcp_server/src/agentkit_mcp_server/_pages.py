"""Lists served a page at a time, continued by opaque cursors.

A cursor names the list it belongs to and the key (a tool's or prompt's
name, a resource's URI, a template's URI template) of the last item its page
held; the next page starts after that key. It carries no server state, so any
process serving the same tools continues it (the server runs stateless behind
a balancer), and an item added or removed elsewhere in the list moves no page
boundary. A cursor that is not one of ours, belongs to another list, or names
an item no longer served is ``-32602`` (the specification's answer to an
invalid cursor): the client lists again from the start.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from typing import Any, TypeVar

from mcp.shared.exceptions import MCPError

from ._call import INVALID_PARAMS
from ._limits import DEFAULT_PAGE_SIZE

__all__ = ["DEFAULT_PAGE_SIZE", "page"]

T = TypeVar("T")


def page(kind: str, items: Mapping[str, T], cursor: str | None, size: int) -> tuple[list[T], str | None]:
    """The page of ``items`` (in their order) that ``cursor`` asks for, and the cursor of the next one (``None``: the last)."""
    keys = list(items)
    start = 0 if cursor is None else _index(kind, keys, cursor) + 1
    chosen = keys[start:start + size]
    following = encode(kind, chosen[-1]) if start + size < len(keys) else None
    return [items[key] for key in chosen], following


def encode(kind: str, after: str) -> str:
    """The cursor of the page of list ``kind`` that follows the item keyed ``after``."""
    return base64.urlsafe_b64encode(json.dumps({"list": kind, "after": after}).encode()).decode()


def _index(kind: str, keys: list[str], cursor: str) -> int:
    """Where the item ``cursor`` names is in ``keys``; ``MCPError(-32602)`` when the cursor is not valid here."""
    try:
        decoded: Any = json.loads(base64.urlsafe_b64decode(cursor.encode("ascii")))
    except (ValueError, binascii.Error, UnicodeError):  # not base64, not JSON
        decoded = None
    if (not isinstance(decoded, dict) or decoded.get("list") != kind or not isinstance(decoded.get("after"), str)
            or base64.urlsafe_b64encode(json.dumps(decoded).encode()).decode() != cursor):
        raise MCPError(INVALID_PARAMS, f"invalid cursor for {kind.replace('_', ' ')}: list again without a cursor",
                       {"cursor": cursor})
    try:
        return keys.index(decoded["after"])
    except ValueError:
        raise MCPError(INVALID_PARAMS, f"invalid cursor for {kind.replace('_', ' ')}: the list changed since it "
                       "was given; list again without a cursor", {"cursor": cursor}) from None
