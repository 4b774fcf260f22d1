"""Asking the person before a tool that needs authorization runs: allow once, for the session, or deny.

What the person approves is what runs (docs/decisions/0028). The question
shows the whole call, built from the arguments the host runs the tool with:
every argument, nothing cut, each control character shown (a newline as ``␊``,
an escape as ``␛``). A call too long for the screen is shown as a head with
what is left out counted, and the question then takes only ``s`` (show it
all) or a refusal: ``y`` or ``a`` to a call not shown whole is not an approval.
"""

from __future__ import annotations

import asyncio
import unicodedata
from collections.abc import Callable
from typing import Any

from agentkit.host.cli.support import visible_line
from agentkit.plugin_api import Block, ToolUseBlock

from ._input import Reader
from ._screen import Screen
from ._status import Status
from ._view import whole_call

QUESTION = "allow {name}? [y]es once, [a]lways (this session), [n]o: "
LONG_QUESTION = "allow {name}? it is longer than the screen: [s]how the whole call, [n]o: "
NOT_SHOWN = "not an approval: the call was not shown whole; answer s to see all of it first"
#: Screen lines kept free below a call's head: the count of what is left out, the question, the answer.
_BELOW_HEAD = 4


class Authorizer:
    """The chat's ``before_tool_call``: tools that need authorization are asked about, the others run.

    Ctrl-C at the question aborts the turn. Asking is serialized (the calls of one batch run concurrently, and the
    person answers one question at a time); an answer of ``a`` allows that
    tool for the rest of the chat.
    """

    def __init__(self, reader: Reader, screen: Screen, needs_asking: set[str],
                 on_interrupt: Callable[[], None], status: Status | None = None) -> None:
        self.reader = reader
        self.status = status if status is not None else Status(screen)
        self.on_interrupt = on_interrupt
        self.screen = screen
        self.needs_asking = needs_asking
        self.allowed_for_session: set[str] = set()
        self._lock: asyncio.Lock | None = None
        self._lock_loop: asyncio.AbstractEventLoop | None = None

    async def __call__(self, call: ToolUseBlock, arguments: dict[str, Any]) -> Block | None:
        if call.name not in self.needs_asking:
            return None
        try:
            with self.status.asking():
                async with self._asking():
                    if call.name in self.allowed_for_session:  # allowed while this call waited its turn
                        return None
                    self.screen.end_line()
                    try:
                        answer = await self._answer(call.name, arguments)
                    except KeyboardInterrupt:  # Ctrl-C at the question aborts the turn, as anywhere else in it
                        self.on_interrupt()
                        return Block("the user aborted the turn")
        finally:
            self.status.asked(call.id)  # the time spent waiting for the person is not the tool's
        if answer in ("a", "always"):
            self.allowed_for_session.add(call.name)
            return None
        if answer in ("y", "yes"):
            return None
        return Block(f"the user did not allow this call of {call.name}")

    async def _answer(self, name: str, arguments: dict[str, Any]) -> str:
        """The person's answer about the call, once they have seen all of it; anything else refuses."""
        shown_name = visible_line(name)
        lines = [f"{shown_name} asks to run with:", *whole_call(arguments)]
        head = _head(lines, self.screen.size())
        self._show(head)
        shown_whole = head is lines
        while not shown_whole:  # only 's' or a refusal is taken
            answer = await self._ask(LONG_QUESTION.format(name=shown_name))
            if answer in ("s", "show"):
                self._show(lines)
                shown_whole = True
            elif answer in ("y", "yes", "a", "always"):
                self.screen.line(NOT_SHOWN, "note")
            else:
                return answer
        return await self._ask(QUESTION.format(name=shown_name))

    async def _ask(self, question: str) -> str:
        return (await self.reader.ask(self.screen.style(question, "note"))).strip().lower()

    def _show(self, lines: list[str]) -> None:
        for line in lines:
            self.screen.line(line, "tool")

    def _asking(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()  # each turn runs on a loop of its own; a lock belongs to one
        if self._lock is None or self._lock_loop is not loop:
            self._lock, self._lock_loop = asyncio.Lock(), loop
        return self._lock


def _head(lines: list[str], size: tuple[int, int] | None) -> list[str]:
    """``lines`` themselves when they fit the screen (or there is no screen), else as many as fit and a count."""
    if size is None:
        return lines
    columns, rows = size
    budget = rows - _BELOW_HEAD
    heights = [_height(line, columns) for line in lines]
    if sum(heights) <= budget:
        return lines
    head: list[str] = []
    for line, height in zip(lines, heights, strict=True):
        if height > budget:  # the line that does not fit: as much of it as fills the screen
            head.append(_cut_to_width(line, max(budget, 1) * columns - 1))
            break
        head.append(line)
        budget -= height
    left_out = sum(map(len, lines)) - sum(map(len, head))
    head.append(f"… {left_out:,} more characters not shown")
    return head


def _width(text: str) -> int:
    """Terminal cells ``text`` takes: wide and full-width characters take two."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def _height(line: str, columns: int) -> int:
    """Screen lines ``line`` takes once the terminal wraps it."""
    return max(1, -(-_width(line) // columns))


def _cut_to_width(line: str, cells: int) -> str:
    used = 0
    for index, char in enumerate(line):
        used += 2 if unicodedata.east_asian_width(char) in "WF" else 1
        if used > cells:
            return line[:index]
    return line
