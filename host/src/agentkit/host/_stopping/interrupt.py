"""Running a coroutine from sync code, where Ctrl-C asks the work to stop instead of tearing through it.

``asyncio.run`` turns the first Ctrl-C into a cancellation of the main task
and the second into a ``KeyboardInterrupt`` raised wherever the interpreter
happens to be, in the middle of a tool batch or of asyncio itself; it then
cancels every task and waits for all of them, a task that never ends
included. :func:`run_interruptibly` instead calls ``on_interrupt`` (an abort)
on the loop for the first two presses, so the run ends through its own path
within a second, with a well-formed history. A third press raises
``KeyboardInterrupt``: the way out when something still does not end. Tasks
left over when the coroutine returns get a bounded time to finish, then are
left behind.

Given a ``loop`` that another thread runs (a tool's ``home_loop``: the loop a
plugin's connections live on), the coroutine runs there instead of on a new
loop, and this thread waits: the tool's handler is then awaited without a
hand-off between threads. Leftover tasks on that loop are its owner's.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import signal
import threading
from collections.abc import Callable, Coroutine, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from agentkit.plugin_api import Tool

T = TypeVar("T")

#: Seconds leftover tasks get to finish after the main coroutine returned.
LEFTOVER_BUDGET = 0.5
#: Presses of Ctrl-C that ask the work to stop; the next one raises.
GENTLE_PRESSES = 2


def home_loop(tools: Iterable[Tool]) -> asyncio.AbstractEventLoop | None:
    """The running loop the first of ``tools`` that names one lives on (``Tool.home_loop``), else ``None``."""
    for tool in tools:
        loop = tool.home_loop
        if loop is not None and loop.is_running():
            return loop
    return None


def run_interruptibly(
    main: Coroutine[Any, Any, T], on_interrupt: Callable[[], None], *, exiting: bool = False,
    loop: asyncio.AbstractEventLoop | None = None,
) -> tuple[T, bool]:
    """Run ``main`` on a new loop (or on ``loop``); return its value and whether Ctrl-C was pressed.

    Ctrl-C is only caught in the main thread (where Python delivers signals);
    elsewhere this is a plain run on a new loop.

    :param exiting: the process ends once this returns (a command): after a
        press, further presses are ignored rather than raising
        ``KeyboardInterrupt`` wherever the interpreter is on its way out.
    :param loop: a loop another thread runs (see :func:`home_loop`): ``main``
        runs there, in this thread's context, and this thread waits for it.
        One that is not running is ignored.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        main.close()
        raise RuntimeError("run_sync() cannot be called from a running event loop; await run() instead")
    home = loop if loop is not None and loop.is_running() else None
    loop = home or asyncio.new_event_loop()
    presses = 0

    def on_sigint(signum: int, frame: Any) -> None:
        nonlocal presses
        presses += 1
        if presses > GENTLE_PRESSES:
            raise KeyboardInterrupt
        with contextlib.suppress(RuntimeError):  # the loop is closing: the work is over anyway
            loop.call_soon_threadsafe(on_interrupt)

    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, on_sigint) if in_main else None
    try:
        if home is not None:
            return _run_on(home, main), presses > 0
        try:
            asyncio.set_event_loop(loop)
            value = loop.run_until_complete(main)
            return value, presses > 0
        finally:
            try:
                _finish_leftovers(loop)
            finally:
                asyncio.set_event_loop(None)
                loop.close()
    finally:
        if in_main:
            signal.signal(signal.SIGINT, signal.SIG_IGN if exiting and presses else previous)


def _run_on(loop: asyncio.AbstractEventLoop, main: Coroutine[Any, Any, T]) -> T:
    """``main`` on ``loop``, which another thread runs; waits here (a signal handler still runs meanwhile)."""
    # Scheduled from this thread, the task starts in a copy of this thread's context, as run_until_complete's would.
    future = asyncio.run_coroutine_threadsafe(main, loop)
    try:
        while True:
            done, _ = concurrent.futures.wait([future], timeout=1.0)
            if done:
                return future.result()
            if not loop.is_running():  # closed under the run (its owner ended): nothing will finish it
                raise RuntimeError("the event loop the run was on stopped before the run ended")
    except BaseException:  # a third Ctrl-C, or the loop gone: the run must not go on unwatched
        future.cancel()
        raise


def _finish_leftovers(loop: asyncio.AbstractEventLoop) -> None:
    leftovers = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in leftovers:
        task.cancel()
    if leftovers:
        loop.run_until_complete(asyncio.wait(leftovers, timeout=LEFTOVER_BUDGET))
    for task in leftovers:
        if task.done() and not task.cancelled():
            task.exception()  # retrieved, so that it is not logged at garbage collection
    with contextlib.suppress(Exception):
        loop.run_until_complete(asyncio.wait_for(loop.shutdown_asyncgens(), LEFTOVER_BUDGET))
