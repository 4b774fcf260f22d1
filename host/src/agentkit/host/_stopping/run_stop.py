"""How one run is asked to end early: its :class:`RunStop`, the time it then has (:data:`STOP_BUDGET`), and
the event it sets (:class:`AbortEvent`), which provider streams watch without a task of their own.

The event lives here, beside the stop that sets it, rather than in a module of its own: every run loads
both, and one module fewer to find and load is 0.24 M instructions of a first use
(``bench/_first_use.py`` under callgrind).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable

from agentkit.plugin_api import CancelToken, Outcome

__all__ = ["STOP_BUDGET", "AbortEvent", "RunStop"]

#: Seconds a run may go on after it was stopped: handlers get this long to
#: notice ``context.cancel`` and return, hooks and bookkeeping share it.
STOP_BUDGET = 0.7



class AbortEvent(asyncio.Event):
    """An ``asyncio.Event`` that also calls back when it is set, so that a stream watches it without a task.

    Watching a plain event takes a task waiting on it for every request, and
    one more turn of the loop to cancel that task when the response ends; an
    agent's run passes one of these instead, and each request's watch adds and
    removes a callback.
    """

    def __init__(self) -> None:
        super().__init__()
        self._callbacks: list[Callable[[], object]] = []

    def set(self) -> None:
        if self.is_set():
            return
        super().set()
        for callback in list(self._callbacks):
            callback()

    def add_set_callback(self, callback: Callable[[], object]) -> None:
        """Call ``callback()`` when the event is set (not now, if it is set already)."""
        self._callbacks.append(callback)

    def remove_set_callback(self, callback: Callable[[], object]) -> None:
        """Stop calling ``callback``; one that is not there is ignored."""
        try:  # noqa: SIM105 - contextlib.suppress costs three Python calls more, on every request
            self._callbacks.remove(callback)
        except ValueError:
            pass


class RunStop:
    """How one run is asked to end early: abort, cancellation of its caller, or its deadline.

    The first request wins and names the outcome. :meth:`request` is safe from
    any thread (and from a signal handler); the asyncio side is set on the loop.
    """

    def __init__(self, cancel: CancelToken | None = None) -> None:
        self.cancel = cancel if cancel is not None else CancelToken()
        self.event = AbortEvent()  # streams watch it without a task each
        self.reason: Outcome | None = None
        self.detail: str | None = None
        self.at: float | None = None  # loop time when the stop reached the loop
        self._lock = threading.RLock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._reached: asyncio.Future[None] | None = None
        self._linked: list[Callable[[], None]] = []

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def request(self, reason: Outcome, detail: str, *, on_loop: bool = False) -> None:
        """Ask the run to end as ``reason``; the first reason wins.

        Safe from any thread and from a signal handler; ``on_loop=True`` (only
        from a coroutine or callback of the run's loop) sets the event at once.
        """
        with self._lock:
            if self.reason is None:
                self.reason, self.detail = reason, detail
            self.cancel.cancel()
            loop = self._loop
            linked, self._linked = self._linked, []
        for callback in linked:
            callback()
        if on_loop:
            self._set()
        elif loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop already closed: the run is over
                loop.call_soon_threadsafe(self._set)

    def link(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` when this stop is requested (at once if it was); returns a function that unlinks it.

        Called in the requesting thread, so a subagent's run stops with its parent's
        before either loop turns again; it must be quick and thread-safe.
        """
        with self._lock:
            if self.reason is None:
                self._linked.append(callback)
                return lambda: self._unlink(callback)
        callback()
        return lambda: None

    def _unlink(self, callback: Callable[[], None]) -> None:
        with self._lock, contextlib.suppress(ValueError):
            self._linked.remove(callback)

    def _set(self) -> None:
        if self.at is None:
            self.at = asyncio.get_running_loop().time()
        self.event.set()
        if self._reached is not None and not self._reached.done():
            self._reached.set_result(None)

    def reached(self) -> asyncio.Future[None]:
        """A future done once the stop reached the loop: one for every call that waits, no task each."""
        if self._reached is None:
            self._reached = asyncio.get_running_loop().create_future()
            if self.event.is_set():
                self._reached.set_result(None)
        return self._reached

    @property
    def requested(self) -> bool:
        return self.cancel.cancelled

    def budget_end(self) -> float | None:
        """The loop time by which the run must be over, once stopped."""
        return None if self.at is None else self.at + STOP_BUDGET
