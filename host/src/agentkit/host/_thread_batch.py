"""A batch's sync handlers in worker threads: one hand-off for the batch, more only when a call blocks.

A sync handler never runs on the loop's thread (unless it says it is
``INLINE``): one that blocks would freeze the loop and every agent on it.
Waking a worker thread costs about 90 µs of CPU and several context switches
per call, more than a cheap handler itself. So the calls of a batch go into
one queue, and a single worker drains it, one call after another, handing
each outcome back as it finishes (:class:`~._guard._Handback` folds a burst of
them into one wake-up of the loop).

A call that blocks (a sleep, I/O, a lock) must not hold up the calls queued
behind it. While calls are waiting, the loop looks every :data:`SPREAD_TICK`
seconds: when no call finished during a whole tick, each waiting call gets a
worker of its own, as every call had before. Calls that block therefore still
run side by side; they start at most about two ticks later than a call with a
thread to itself would (decision 0051). Each call keeps its own deadline and
the run's stop (:func:`~._guard.settle_all`): a call given up on before it
started never starts.

bench_loop, 50 sync calls per turn: 4.8x the floor's instructions per turn
with a worker woken per call; see decision 0051 for the figures this buys.
"""

from __future__ import annotations

import asyncio
import collections
import threading
from collections.abc import Callable
from typing import Any

from agentkit.plugin_api import Tool

from ._guard import _WORKERS, Launched, _handback

__all__ = ["HANDLER_GRACE", "SPREAD_TICK", "ThreadBatch", "tool_timeout_of"]

#: Seconds a running handler gets, after an abort, to notice ``context.cancel`` and return.
HANDLER_GRACE = 0.5
#: Seconds without any call of the batch finishing before each waiting call gets a worker of its own.
SPREAD_TICK = 0.005

_Job = tuple["asyncio.Future[Any]", Callable[..., Any], tuple[Any, ...], str]


class ThreadBatch:
    """Sync calls started together on one worker; :attr:`launched` holds one :class:`Launched` per call."""

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._handback = _handback(self._loop)
        self._waiting: collections.deque[_Job] = collections.deque()
        self._finished = 0  # calls finished so far (written by the workers; read by the loop's tick)
        self._seen = 0  # ``_finished`` at the last tick
        self._timer: asyncio.TimerHandle | None = None
        #: The calls added, in order, for :func:`~._guard.settle_all`.
        self.launched: list[Launched] = []

    def add(self, function: Callable[..., Any], *args: Any, timeout: float | None, name: str) -> None:
        """Queue ``function(*args)``, with its own deadline; :meth:`start` starts the batch."""
        loop = self._loop
        future: asyncio.Future[tuple[bool, Any]] = loop.create_future()
        self._waiting.append((future, function, args, f"agentkit-{name}"))
        self.launched.append(Launched(future, None if timeout is None else loop.time() + timeout))

    def start(self) -> None:
        """Hand the queued calls to one worker, and look in on them every tick while some wait."""
        if self._waiting:
            _WORKERS.submit(self._drain, "agentkit-tools")
            self._timer = self._loop.call_later(SPREAD_TICK, self._tick)

    def close(self) -> None:
        """Stop looking in; a call still waiting now was given up on, and never starts."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._waiting.clear()

    def _drain(self) -> None:
        waiting, current = self._waiting, threading.current_thread()
        while True:
            try:
                future, function, args, name = waiting.popleft()
            except IndexError:
                return
            if future.done():  # given up on (deadline, stop) before it started
                continue
            if current.name != name:
                current.name = name  # what a thread dump shows is the call it serves
            try:
                outcome: tuple[bool, Any] = (True, function(*args))
            except BaseException as exc:  # everything is handed back to the loop
                outcome = (False, exc)
            self._finished += 1  # a lost update only makes one tick spread early
            self._handback.put(future, outcome)

    def _tick(self) -> None:
        self._timer = None
        if not self._waiting:
            return
        if self._finished == self._seen:  # the running call took a whole tick: it may block the rest
            for _ in range(len(self._waiting)):
                _WORKERS.submit(self._drain, "agentkit-tools")
            return
        self._seen = self._finished
        self._timer = self._loop.call_later(SPREAD_TICK, self._tick)


def tool_timeout_of(tool: Tool, default: float | None) -> float | None:
    """The tool's own deadline when it sets one, else the agent's."""
    return tool.timeout if tool.timeout is not None else default
