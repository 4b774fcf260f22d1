"""A batch's sync handlers in worker threads: one hand-off for the batch, more only when a call blocks.

A sync handler never runs on the loop's thread (unless it says it is
``INLINE``): one that blocks would freeze the loop and every agent on it.
Waking a worker thread, and settling a future per call, cost more than a
cheap handler itself. So the calls of a batch go into one queue that a single
worker drains, one call after another; the last call to finish wakes the loop
once, for the whole batch (through :class:`~._guard._Handback`).

A call that blocks (a sleep, I/O, a lock) must not hold up the calls queued
behind it. While calls are waiting, the loop looks in on them: when one call
has been running for a whole :data:`SPREAD_TICK` and none began or finished
meanwhile, each waiting call gets a worker of its own, as every call had
before. The worker notes when each call begins, so the loop first looks in two
ticks after the batch started (a batch of cheap calls is over by then, and
nothing was looked at for it), then when the running call will have run a
whole tick. Calls that block therefore still run side by side; they start at
most two ticks after the batch, or one after the call that blocks them began,
whichever is later (decisions 0051, 0057). Each call keeps its own
deadline, and the run's stop its grace, as :func:`~._guard.settle_all` gives
them: the loop looks in at the nearest deadline and as soon as the stop
reaches it, gives up on the calls past their limit, and a call given up on
before it started never starts.

bench_loop, callgrind, instructions per turn against its floor (PYTHONHASHSEED=0):
a plain sync tool 2.05x -> 1.57x (JSON), 1.71x -> 1.42x (SSE); 50 sync calls a
turn 2.94x -> 1.79x the floor gathering 50 async calls (decision 0051).
"""

from __future__ import annotations

import asyncio
import collections
import threading
from collections.abc import Callable
from typing import Any

from agentkit.plugin_api import Tool, ToolResult

from ._guard import _WORKERS, Abandoned, Escaped, TimedOut, _unwrap
from ._guard import _handback as handback_of
from ._stopping.run_stop import STOP_BUDGET, RunStop

__all__ = ["HANDLER_GRACE", "SPREAD_TICK", "ThreadBatch", "ThreadCall", "given_up", "tool_timeout_of"]

#: Seconds a running handler gets, after an abort, to notice ``context.cancel`` and return.
HANDLER_GRACE = 0.5
#: Seconds a call may run, with others waiting behind it, before each waiting call gets a worker of its own.
SPREAD_TICK = 0.005


class ThreadCall:
    """One sync call of a :class:`ThreadBatch`: its deadline, then its outcome or the verdict on it."""

    __slots__ = ("deadline", "done", "verdict")

    def __init__(self, deadline: float | None) -> None:
        self.deadline = deadline
        self.done: tuple[bool, Any] | None = None  # set by its worker: (returned, value or exception)
        self.verdict: Exception | None = None  # TimedOut or Abandoned once given up on

    def outcome(self) -> Any:
        """The call's value; what it raised (as :func:`~._guard.guarded_call` would), or the verdict, is raised."""
        if self.verdict is not None:
            raise self.verdict
        assert self.done is not None  # settled: finished, or given a verdict
        return _unwrap(*self.done)


_Job = tuple[ThreadCall, Callable[..., Any], tuple[Any, ...], str]


class ThreadBatch:
    """Sync calls run by worker threads, started together (:meth:`start`) and awaited together (:attr:`settled`).

    :param stop: the run's stop; once it reaches the loop, running calls have ``grace`` more seconds.
    """

    def __init__(self, stop: RunStop | None, grace: float) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop, self._grace = stop, grace
        #: The calls added, in order.
        self.calls: list[ThreadCall] = []
        self._waiting: collections.deque[_Job] = collections.deque()
        self._finished: list[ThreadCall] = []  # appended by the workers (one append is atomic)
        self._begun = 0  # calls begun, by the one worker there is until the calls spread
        # The calls neither finished nor given up on; the lock makes each call leave the count once.
        self._open = 0
        self._lock = threading.Lock()
        self._spread = False
        self._due: float | None = None  # the soonest deadline of the batch's calls
        self._timer: asyncio.TimerHandle | None = None
        #: Done once every call finished or was given up on; the loop is free while it is awaited.
        self.settled: asyncio.Future[None] = self._loop.create_future()
        self._handback = handback_of(self._loop)
        # The batch is made, filled and started in one step of the loop: one reading of its clock serves all.
        self._now = self._loop.time()
        self._moved = self._now  # when the last call began, by the loop's clock (the worker sets it)

    def add(self, function: Callable[..., Any], *args: Any, timeout: float | None, thread_name: str) -> None:
        """Queue ``function(*args)`` with its own deadline (``timeout`` seconds from the batch's making);
        ``thread_name`` names the worker while it serves the call, for whoever reads a thread dump."""
        deadline = None if timeout is None else self._now + timeout
        if deadline is not None and (self._due is None or deadline < self._due):
            self._due = deadline
        call = ThreadCall(deadline)
        self.calls.append(call)
        self._open += 1
        self._waiting.append((call, function, args, thread_name))

    def start(self) -> ThreadBatch:
        """Hand the queued calls to one worker; look in on them while some wait, at a deadline, at the stop."""
        if not self.calls:
            self.settled.set_result(None)
            return self
        _WORKERS.submit(self._drain, self._waiting[0][3])  # named for its first call: no renaming for that one
        # No call can have run a whole tick before two ticks have passed unless it began in the first one;
        # one that did is found then, as the ticks of decision 0051 found it.
        first = self._now + 2 * SPREAD_TICK
        self._timer = self._loop.call_at(first if self._due is None else min(first, self._due), self._look_in)
        if self._stop is not None:
            self._stop.reached().add_done_callback(self._look_in)
        return self

    def close(self) -> None:
        """Stop looking in; a call still waiting now was given up on, and never starts."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._stop is not None:
            self._stop.reached().remove_done_callback(self._look_in)
        self._waiting.clear()

    def _drain(self) -> None:
        waiting, finished, lock, clock = self._waiting, self._finished, self._lock, self._loop.time
        current = threading.current_thread()
        shown = current.name
        while True:
            try:
                call, function, args, name = waiting.popleft()
            except IndexError:
                return
            if call.verdict is not None:  # given up on (deadline, stop) before it started
                continue
            if shown != name:
                current.name = shown = name  # what a thread dump shows is the call it serves
            self._moved = clock()  # before the count: the loop reads the count first (see _look_in)
            self._begun += 1
            try:
                outcome: tuple[bool, Any] = (True, function(*args))
            except BaseException as exc:  # everything is handed back to the loop
                outcome = (False, exc)
            finished.append(call)
            with lock:
                call.done = outcome
                last = False
                if call.verdict is None:  # else the loop counted it out when it gave up on it
                    self._open -= 1
                    last = not self._open
            if last:  # the last one wakes the loop, once for the batch
                self._handback.put(self.settled, None)

    def _leave(self) -> bool:
        """Count a call out (holding the lock); whether it was the last one open."""
        self._open -= 1
        return not self._open

    def _look_in(self, *called_by: object) -> None:
        """Give up on the calls past their limit, spread the waiting ones if none finished; settle or look in later."""
        if self._timer is not None:
            if called_by:  # by the stop: the timer is still armed (called by the timer, it is spent)
                self._timer.cancel()
            self._timer = None
        if self.settled.done():
            return
        now = self._loop.time()
        stop = self._stop
        if (stop is None or not stop.event.is_set()) and (self._due is None or now < self._due):
            nearest = self._due  # nothing is due: no stop, no deadline passed (the common tick)
        else:
            nearest = self._give_up_due(now)
        if not self._open:  # every call finished or was given up on
            self.settled.set_result(None)
            return
        if self._waiting and not self._spread:
            # The count before the time: the worker writes the time first, so a count is never newer than it.
            running = self._begun > len(self._finished)
            moved = self._moved
            if running and now - moved >= SPREAD_TICK:
                # One call has run for a whole tick, nothing else moved: it may block the rest. (A worker
                # not yet scheduled is the system's matter; more of them would not run sooner.)
                self._spread = True
                for _ in range(len(self._waiting)):
                    _WORKERS.submit(self._drain, "agentkit-tools")
            else:  # when the running call will have run a whole tick; between calls, a tick from now
                tick = (moved if running else now) + SPREAD_TICK
                nearest = tick if nearest is None else min(nearest, tick)
        if nearest is not None:
            self._timer = self._loop.call_at(nearest, self._look_in)

    def _give_up_due(self, now: float) -> float | None:
        """Give up on the calls past their deadline or the stop's grace; the nearest limit of the others."""
        stop, stop_limit = self._stop, None
        if stop is not None and stop.at is not None and stop.event.is_set():
            stop_limit = min(stop.at + self._grace, stop.at + STOP_BUDGET)
        nearest = None
        for call in self.calls:
            if call.done is not None or call.verdict is not None:
                continue
            limit = call.deadline
            if stop_limit is not None:
                limit = stop_limit if limit is None else min(limit, stop_limit)
            if limit is not None and limit <= now:
                stopped = stop_limit is not None and (call.deadline is None or now < call.deadline)
                with self._lock:
                    if call.done is None:  # else it has just finished: its own outcome stands
                        call.verdict = (Abandoned("the run was stopped before the call returned") if stopped
                                        else TimedOut("the call did not return before its deadline"))
                        self._leave()
                continue
            if limit is not None and (nearest is None or limit < nearest):
                nearest = limit
        return nearest


def tool_timeout_of(tool: Tool, default: float | None) -> float | None:
    """The tool's own deadline when it sets one, else the agent's."""
    return tool.timeout if tool.timeout is not None else default


def given_up(tool: Tool, call_id: str, exc: Exception, timeout: float | None,
             report: Callable[[str], None]) -> ToolResult | None:
    """The result of a call the guard gave up on (its deadline, an abort, a ``BaseException`` that
    escaped the handler), with the reason reported; ``None`` when ``exc`` is the handler's own error."""
    if isinstance(exc, TimedOut):
        report(f"tool {tool.name!r} (call {call_id}) ran past its {timeout}s deadline and was abandoned")
        return ToolResult.failure("timeout", f"The tool did not finish within {timeout} seconds and was stopped.")
    if isinstance(exc, Abandoned):
        report(f"tool {tool.name!r} (call {call_id}) did not stop after the abort and was abandoned")
        return ToolResult.failure("aborted", "Operation aborted")
    if isinstance(exc, Escaped):
        return ToolResult.failure("tool_failed", str(exc))
    return None
