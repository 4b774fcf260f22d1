"""The event a run's stop sets, which a provider stream watches without a task of its own."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

__all__ = ["AbortEvent"]


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
