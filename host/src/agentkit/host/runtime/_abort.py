"""Racing a stream's awaits against the caller's abort event and the request deadline."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

from .._abort_event import AbortEvent

T = TypeVar("T")


class Aborted(Exception):
    """The caller's abort came before the awaited thing finished."""


class Expired(Exception):
    """The request deadline passed before the awaited thing finished."""


class AbortWatch:
    """Races awaits against the caller's abort event and a deadline, with one waiter per stream.

    A waiter per await would cost two tasks per received chunk; one waiter
    shared by every await of a stream costs one (an :class:`AbortEvent`, as an
    agent's run passes, costs none: it calls back when set), and one timer
    handles the deadline: each interrupts the awaiting task by cancelling it.
    The deadline is a total: it is set once, when the watch is made, and
    nothing that arrives moves it.

    :param event: the caller's abort event, or ``None``.
    :param timeout: seconds from now until the deadline, or ``None`` for none.
    """

    def __init__(self, event: asyncio.Event | None, timeout: float | None = None) -> None:
        self.event = event
        self.timeout = timeout
        self._waiter: asyncio.Future[Any] | None = None
        self._watching = False
        self._reader: asyncio.Task[Any] | None = None
        self._interrupted: type[Exception] | None = None
        self._deadline: float | None = None
        self._timer: asyncio.TimerHandle | None = None
        self.expired = False
        if timeout is not None:
            loop = asyncio.get_running_loop()
            self._deadline = loop.time() + timeout
            self._timer = loop.call_at(self._deadline, self._expire)

    def _check(self, awaitable: Awaitable[Any]) -> None:
        stop: type[Exception] | None = None
        if self.expired:
            stop = Expired
        elif self.event is not None and self.event.is_set():
            stop = Aborted
        if stop is not None:
            if asyncio.iscoroutine(awaitable):
                awaitable.close()
            raise stop

    def _remaining(self) -> float | None:
        if self._deadline is None:
            return None
        return max(0.0, self._deadline - asyncio.get_running_loop().time())

    async def read(self, awaitable: Awaitable[T]) -> T:
        """Await ``awaitable`` unless the abort or the deadline comes first.

        Awaited in the calling task rather than in a task of its own: instead
        of a task per await, the waiter's callback (or the deadline's timer)
        cancels this task if it comes while the task waits here, and the
        cancellation is turned back into ``Aborted`` or ``Expired``; the
        awaitable is cancelled where it waits (httpx closes a response it was
        receiving).

        :raises Aborted: the abort came first.
        :raises Expired: the deadline came first.
        """
        if self.event is None and self._deadline is None:
            return await awaitable
        self._check(awaitable)
        if self.event is not None and not self._watching:
            if isinstance(self.event, AbortEvent):
                self.event.add_set_callback(self._aborted)
            else:
                self._waiter = asyncio.ensure_future(self.event.wait())
                self._waiter.add_done_callback(self._interrupt)
            self._watching = True
        self._reader = asyncio.current_task()
        try:
            return await awaitable
        except asyncio.CancelledError:
            reason = self._interrupted
            if reason is None:
                raise
            self._interrupted = None
            if self._reader is not None:
                self._reader.uncancel()
            raise reason from None
        finally:
            self._reader = None

    def _interrupt(self, waiter: asyncio.Future[Any]) -> None:
        if not waiter.cancelled():
            self._cancel_reader(Aborted)

    #: The same: one name for sending and building, one for the many small awaits of reading a body.
    race = read

    def _aborted(self) -> None:
        self._cancel_reader(Aborted)

    def _expire(self) -> None:
        self.expired = True
        self._cancel_reader(Expired)

    def _cancel_reader(self, reason: type[Exception]) -> None:
        if self._reader is not None and self._interrupted is None:
            self._interrupted = reason
            self._reader.cancel()

    def close(self) -> None:
        if self._watching and isinstance(self.event, AbortEvent):
            self.event.remove_set_callback(self._aborted)
        if self._waiter is not None:
            self._waiter.cancel()
        if self._timer is not None:
            self._timer.cancel()
