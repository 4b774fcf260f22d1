"""Asking the person before a tool that needs authorization runs: allow once, for the session, or deny."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from agentkit.plugin_api import Block, ToolUseBlock

from ._input import Reader
from ._screen import Screen
from ._view import short_arguments

QUESTION = "allow {name} {arguments}? [y]es once, [a]lways (this session), [n]o: "


class Authorizer:
    """The chat's ``before_tool_call``: tools that need authorization are asked about, the others run.

    Ctrl-C at the question aborts the turn. Asking is serialized (the calls of one batch run concurrently, and the
    person answers one question at a time); an answer of ``a`` allows that
    tool for the rest of the chat.
    """

    def __init__(self, reader: Reader, screen: Screen, needs_asking: set[str],
                 on_interrupt: Callable[[], None]) -> None:
        self.reader = reader
        self.on_interrupt = on_interrupt
        self.screen = screen
        self.needs_asking = needs_asking
        self.allowed_for_session: set[str] = set()
        self._lock: asyncio.Lock | None = None
        self._lock_loop: asyncio.AbstractEventLoop | None = None

    async def __call__(self, call: ToolUseBlock, arguments: dict[str, Any]) -> Block | None:
        if call.name not in self.needs_asking:
            return None
        async with self._asking():
            if call.name in self.allowed_for_session:  # allowed while this call waited its turn
                return None
            self.screen.end_line()
            question = QUESTION.format(name=call.name, arguments=short_arguments(call))
            try:
                answer = (await self.reader.ask(self.screen.style(question, "note"))).strip().lower()
            except KeyboardInterrupt:  # Ctrl-C at the question aborts the turn, as it does anywhere else in it
                self.on_interrupt()
                return Block("the user aborted the turn")
        if answer in ("a", "always"):
            self.allowed_for_session.add(call.name)
            return None
        if answer in ("y", "yes"):
            return None
        return Block(f"the user did not allow this call of {call.name}")

    def _asking(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()  # each turn runs on a loop of its own; a lock belongs to one
        if self._lock is None or self._lock_loop is not loop:
            self._lock, self._lock_loop = asyncio.Lock(), loop
        return self._lock
