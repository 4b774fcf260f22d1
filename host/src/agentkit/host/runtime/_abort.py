"""Racing a stream's awaits against the caller's abort event and the request deadline."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

from .._stopping.run_stop import AbortEvent

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
    nothing that arrives moves it. Given a :class:`DeadlineClock` (a
    session's), the watch shares its timer instead of arming one.

    :param event: the caller's abort event, or ``None``.
    :param timeout: seconds from now until the deadline, or ``None`` for none.
    :param clock: the session's shared timer, or ``None`` for a timer of its own.
    """

    def __init__(
        self, event: asyncio.Event | None, timeout: float | None = None, clock: DeadlineClock | None = None
    ) -> None:
        self.event = event
        self.timeout = timeout
        self._waiter: asyncio.Future[Any] | None = None
        self._watching = False
        self._reader: asyncio.Task[Any] | None = None
        self._interrupted: type[Exception] | None = None
        self._deadline: float | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._clock: DeadlineClock | None = None
        self.expired = False
        if timeout is not None:
            loop = asyncio.get_running_loop()
            self._deadline = loop.time() + timeout
            if clock is not None and clock.loop is loop:
                self._clock = clock
                clock.add(self, self._deadline)
            else:
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
        event = self.event
        if event is None and self._deadline is None:
            return await awaitable
        if self.expired or (event is not None and event.is_set()):  # the usual no, without a call
            self._check(awaitable)
        if event is not None and not self._watching:
            if isinstance(event, AbortEvent):
                event.add_set_callback(self._aborted)
            else:
                self._waiter = asyncio.ensure_future(event.wait())
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
        if self._clock is not None:
            self._clock.remove(self)


class DeadlineClock:
    """One timer for the deadlines of the watches of a session, instead of a timer per request.

    A timer per request is scheduled and cancelled every turn, and each
    cancelled one stays in the loop's heap until its far-off time. Here the
    timer stays armed for the soonest deadline it has seen; a request whose
    deadline is no sooner adds none. When it fires, every watch whose
    deadline has come expires and the timer is armed again for the soonest
    left, if any. :meth:`close` (the session's end, however it ends) cancels
    it, so nothing is left behind on the loop.

    :param loop: the loop whose watches it times; a watch made on another
        loop keeps a timer of its own.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._watches: dict[AbortWatch, float] = {}
        self._timer: asyncio.TimerHandle | None = None

    def add(self, watch: AbortWatch, deadline: float) -> None:
        """Time ``watch`` out at ``deadline`` (loop time) unless it is removed first."""
        self._watches[watch] = deadline
        timer = self._timer
        if timer is None or timer.when() > deadline:
            if timer is not None:
                timer.cancel()
            self._timer = self.loop.call_at(deadline, self._fire, deadline)

    def remove(self, watch: AbortWatch) -> None:
        """Stop timing ``watch``: its request is over."""
        self._watches.pop(watch, None)

    def _fire(self, when: float) -> None:
        self._timer = None
        # The loop may run a timer a clock tick early: its own time counts as come.
        now = max(when, self.loop.time())
        due = [watch for watch, deadline in self._watches.items() if deadline <= now]
        for watch in due:
            del self._watches[watch]
        if self._watches:
            soonest = min(self._watches.values())
            self._timer = self.loop.call_at(soonest, self._fire, soonest)
        for watch in due:
            watch._expire()

    def close(self) -> None:
        """Cancel the timer; a watch still open (a stream read past its session) gets its own."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        for watch, deadline in self._watches.items():
            watch._clock = None
            watch._timer = self.loop.call_at(deadline, watch._expire)
        self._watches.clear()
