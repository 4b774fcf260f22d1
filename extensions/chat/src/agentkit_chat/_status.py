"""The live status of a turn: what it waits for (the model, a tool), and the tools' clocks.

The status line is drawn on the screen's current empty line and redrawn while
the turn runs (:meth:`Status.animate`, a task on the run's loop, so that it
never writes at the same time as the view); anything else written erases it
first, so it never stays in the scrollback. A plain screen shows none.

The clocks tell how long each tool call ran. The time the person took to
answer an authorization question is not the tool's: the question restarts
the call's clock (:meth:`Status.asked`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager

from agentkit.host.cli.support import visible_line

from ._screen import Screen

__all__ = ["Status"]

#: The spinner's frames, and how often it turns (seconds).
FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
TICK = 0.1


class Status:
    """What the turn waits for, shown on the screen's status line."""

    def __init__(self, screen: Screen) -> None:
        self.screen = screen
        self.waiting_since: float | None = None  # awaiting the model's response
        self.tools: dict[str, tuple[str, float]] = {}  # call id -> tool name, when its clock started
        self._asking = 0
        self._frame = 0

    # -- what the turn does ------------------------------------------------------------

    def waiting(self) -> None:
        """A request is on its way: until the response starts, the model is awaited."""
        self.waiting_since = time.monotonic()
        self.draw()

    def responding(self) -> None:
        """The response started: its text is shown, not the status."""
        self.waiting_since = None
        self.screen.status(None)

    def tool_started(self, call_id: str, name: str) -> None:
        self.tools[call_id] = (name, time.monotonic())
        self.draw()

    def asked(self, call_id: str) -> None:
        """The person answered the call's question: its clock starts now."""
        if call_id in self.tools:
            self.tools[call_id] = (self.tools[call_id][0], time.monotonic())

    def tool_ended(self, call_id: str) -> float | None:
        """The call ended: how long it ran (``None`` for a call never started)."""
        started = self.tools.pop(call_id, None)
        if not self.tools:
            self.waiting()  # the results go back to the model
        return None if started is None else time.monotonic() - started[1]

    def stop(self) -> None:
        """The turn ended: nothing is awaited."""
        self.waiting_since = None
        self.tools.clear()
        self.screen.status(None)

    @contextmanager
    def asking(self) -> Iterator[None]:
        """A question to the person is on the screen: no status until it is answered."""
        self._asking += 1
        self.screen.status(None)
        try:
            yield
        finally:
            self._asking -= 1

    # -- drawing -----------------------------------------------------------------------

    def text(self) -> str | None:
        """The status line's text, or ``None`` when nothing is awaited."""
        now = time.monotonic()
        if self.tools:
            names = sorted({name for name, _ in self.tools.values()})
            since = min(started for _, started in self.tools.values())
            what = f"running {visible_line(names[0])}" if len(self.tools) == 1 else f"running {len(self.tools)} tools"
        elif self.waiting_since is not None:
            what, since = "waiting for the model", self.waiting_since
        else:
            return None
        return f"{FRAMES[self._frame % len(FRAMES)]} {what} · {now - since:.0f}s"

    def draw(self) -> None:
        if not self._asking:
            self.screen.status(self.text())

    async def animate(self) -> None:
        """Redraw the status every :data:`TICK` seconds, until cancelled."""
        while True:
            await asyncio.sleep(TICK)
            self._frame += 1
            self.draw()
