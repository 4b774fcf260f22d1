"""What a server sends, looked at before the SDK parses it: one bad tool never costs the others.

The SDK validates a ``tools/list`` page whole, so one tool whose
``inputSchema`` is not an object schema made the whole page, and every tool
of the server, an error. The transport's read stream is wrapped
(:func:`screened`) so that such a tool is taken out of the page first, and
named with why in :attr:`Screen.left_out`; the rest of the page reaches the SDK as it
came. A transport fault (a line that is not JSON-RPC) is the SDK's to report;
the connection learns of it through its message handler.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import mcp.types as types
from mcp.shared.message import SessionMessage

#: The longest reason quoted from a server's data in a line.
_REASON_CAP = 200


class Screen:
    """Takes unusable tools out of ``tools/list`` pages; what it took out, and why, in ``left_out``."""

    def __init__(self) -> None:
        #: ``(the tool's name, or None when it has none; why)``, until the connection's owner reads them.
        self.left_out: list[tuple[str | None, str]] = []

    def look(self, item: Any) -> Any:
        if isinstance(item, SessionMessage):
            message = item.message
            result = getattr(message, "result", None)
            # Only a tools/list page has a top-level "tools" list (a call's structured content is nested).
            if isinstance(result, dict) and isinstance(result.get("tools"), list):
                result["tools"] = [tool for tool in result["tools"] if self._usable(tool)]
        return item

    def _usable(self, tool: Any) -> bool:
        name = tool.get("name") if isinstance(tool, dict) else None
        if not isinstance(name, str):
            self.left_out.append((None, f"it has no name ({one_line(repr(tool))})"))
            return False
        schema = tool.get("inputSchema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            self.left_out.append((name, "its inputSchema is not a JSON Schema object with \"type\": \"object\" "
                                        f"({one_line(repr(schema))})"))
            return False
        try:
            types.Tool.model_validate(tool, by_name=False)
        except ValueError as exc:  # pydantic's ValidationError
            self.left_out.append((name, one_line(str(exc))))
            return False
        return True


class _ScreenedReads:
    """A transport's read stream, each item passed through a :class:`Screen` (the SDK's ``ReadStream``)."""

    def __init__(self, inner: Any, screen: Screen) -> None:
        self._inner, self._screen = inner, screen
        self._carries_context = hasattr(inner, "last_context")

    @property
    def last_context(self) -> Any:
        # The SDK asks for it after every message; through __getattr__ that raised (and built) an
        # AttributeError or two per message. Only the SDK's ContextReceiveStream carries one.
        return self._inner.last_context if self._carries_context else None

    async def receive(self) -> Any:
        return self._screen.look(await self._inner.receive())

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> _ScreenedReads:
        return self

    async def __anext__(self) -> Any:
        return self._screen.look(await self._inner.__anext__())

    async def __aenter__(self) -> _ScreenedReads:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()

    def __getattr__(self, name: str) -> Any:  # whatever else a stream offers
        return getattr(self._inner, name)


@contextlib.asynccontextmanager
async def screened(transport: Any, screen: Screen) -> AsyncIterator[tuple[Any, Any]]:
    """``transport`` (an SDK transport: an async context of read and write streams) with its reads screened."""
    async with transport as (reads, writes):
        yield _ScreenedReads(reads, screen), writes


def one_line(text: str, cap: int = _REASON_CAP) -> str:
    """``text`` on one line (a server's or a validator's text may hold any), at most ``cap`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= cap else flat[:cap] + "..."
