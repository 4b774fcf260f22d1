"""One thread that wakes at given times and calls back on the given event loops: the calls' deadlines.

A ``tools/call`` is bounded by its entry's ``timeout_s``. A timer per call on
the connection's loop (the SDK's ``read_timeout_seconds``) cost about 300
bytecodes a call: the timer made and cancelled, and the loop's bookkeeping on
every turn while it is scheduled. A connection instead notes each call's
deadline and asks this watchdog to look at its calls when the earliest falls
due (``ServerConnection._check_deadlines``): a thread that sleeps until then,
so a call costs a clock reading, and the loop is woken only when a call may
be late (decision 0064).
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import os
import threading
import time
from collections.abc import Callable


class Watchdog:
    """Calls ``callback`` on ``loop`` once ``time.monotonic()`` reaches ``when``; one daemon thread, started
    when first needed. A callback whose loop has closed is dropped."""

    def __init__(self) -> None:
        self._start()

    def _start(self) -> None:
        """Empty, with no thread: at first, and in a forked child (which has neither its parent's thread nor
        its parent's loops)."""
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._due: list[tuple[float, int, asyncio.AbstractEventLoop, Callable[[], None]]] = []
        self._order = itertools.count()  # equal times never compare loops
        self._thread: threading.Thread | None = None

    def at(self, when: float, loop: asyncio.AbstractEventLoop, callback: Callable[[], None]) -> None:
        with self._lock:
            heapq.heappush(self._due, (when, next(self._order), loop, callback))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="agentkit-mcp-deadlines", daemon=True)
                self._thread.start()
            elif self._due[0][0] == when:  # sooner than the thread sleeps until
                self._changed.notify()

    def _run(self) -> None:
        with self._lock:
            while True:
                if not self._due:
                    self._changed.wait()
                    continue
                wait = self._due[0][0] - time.monotonic()
                if wait > 0:
                    self._changed.wait(wait)
                    continue
                _, _, loop, callback = heapq.heappop(self._due)
                with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits on it any more
                    loop.call_soon_threadsafe(callback)


#: The process's watchdog, shared by every connection.
WATCHDOG = Watchdog()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=WATCHDOG._start)
