"""Racing a stream's awaits against the caller's abort event."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

import httpx

T = TypeVar("T")


class Aborted(Exception):
    """The caller's abort came before the awaited thing finished."""


class AbortWatch:
    """Races awaits against the caller's abort event, with one waiter per stream.

    A waiter per await would cost two tasks per received chunk; one waiter
    shared by every await of a stream costs one.
    """

    def __init__(self, event: asyncio.Event | None) -> None:
        self.event = event
        self._waiter: asyncio.Future[Any] | None = None
        self._watching = False
        self._reader: asyncio.Task[Any] | None = None
        self._interrupted = False

    async def race(self, awaitable: Awaitable[T]) -> T:
        """Await ``awaitable`` unless the abort comes first (then raise ``Aborted``)."""
        if self.event is None:
            return await awaitable
        if self.event.is_set():
            if asyncio.iscoroutine(awaitable):
                awaitable.close()
            raise Aborted
        if self._waiter is None:
            self._waiter = asyncio.ensure_future(self.event.wait())
        task = asyncio.ensure_future(awaitable)
        try:
            await asyncio.wait({task, self._waiter}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not task.done():
                task.cancel()
                await asyncio.wait({task})
        if not self.event.is_set():
            return task.result()
        if task.done() and not task.cancelled() and task.exception() is None:
            result = task.result()
            if isinstance(result, httpx.Response):
                await result.aclose()
        raise Aborted

    async def read(self, awaitable: Awaitable[T]) -> T:
        """Like :meth:`race`, for the many small awaits of reading a body.

        Instead of a task per await, the waiter's callback cancels this task
        if the abort comes while it waits here; the cancellation is turned
        back into ``Aborted``.
        """
        if self.event is None:
            return await awaitable
        if self.event.is_set():
            if asyncio.iscoroutine(awaitable):
                awaitable.close()
            raise Aborted
        if self._waiter is None:
            self._waiter = asyncio.ensure_future(self.event.wait())
        if not self._watching:
            self._waiter.add_done_callback(self._interrupt)
            self._watching = True
        self._reader = asyncio.current_task()
        try:
            return await awaitable
        except asyncio.CancelledError:
            if not self._interrupted:
                raise
            self._interrupted = False
            if self._reader is not None:
                self._reader.uncancel()
            raise Aborted from None
        finally:
            self._reader = None

    def _interrupt(self, waiter: asyncio.Future[Any]) -> None:
        if not waiter.cancelled() and self._reader is not None and not self._interrupted:
            self._interrupted = True
            self._reader.cancel()

    def close(self) -> None:
        if self._waiter is not None:
            self._waiter.cancel()
