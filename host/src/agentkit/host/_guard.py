"""Calling code the host does not control: off the event loop, with a deadline, abandonable.

Tool handlers, plugin hooks, the embedder's ``before_tool_call`` and stop
policies may block, never return, or raise anything, ``BaseException``
included. :func:`guarded_call` runs one such call so that none of that can
reach the run:

* a sync callable runs in a *daemon* thread (reused, see :class:`_DaemonWorkers`), so a blocking one never
  freezes the event loop (and every other agent on it), and a stuck one is
  abandoned rather than joined when the interpreter exits (a
  ``ThreadPoolExecutor`` worker would be joined, and Ctrl-C would print a
  traceback from ``threading._shutdown``);
* an async callable runs as a task, cancelled when it is given up on;
* past its deadline the call raises :class:`TimedOut`; once the run is
  stopped (:class:`RunStop`) it gets ``grace`` seconds, then raises
  :class:`Abandoned`;
* whatever the callable raised is re-raised, a ``BaseException`` that is not
  an ``Exception`` wrapped in :class:`Escaped`, so that callers handle every
  failure with ``except Exception``. Only the cancellation of the *calling*
  task propagates as ``CancelledError``.
"""

from __future__ import annotations

import asyncio
import inspect
import queue
import threading
import weakref
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from agentkit.plugin_api._dataclass import dataclass

from ._stopping.run_stop import STOP_BUDGET, RunStop


class TimedOut(Exception):
    """The call did not finish before its deadline; it was abandoned."""


class Abandoned(Exception):
    """The run was stopped and the call did not finish within its grace."""


class Escaped(Exception):
    """The call raised a ``BaseException`` that is not an ``Exception`` (kept in ``original``)."""

    def __init__(self, original: BaseException) -> None:
        super().__init__(f"{type(original).__name__}: {original}" if str(original) else type(original).__name__)
        self.original = original


async def guarded_call(
    function: Callable[..., Any],
    *args: Any,
    timeout: float | None,
    stop: RunStop | None = None,
    grace: float = 0.0,
    name: str = "call",
) -> Any:
    """Call ``function(*args)`` as the module docstring says, and return its value.

    :param timeout: seconds before :class:`TimedOut`; ``None`` waits forever.
    :param stop: the run's stop; once requested, the call has ``grace`` more seconds.
    :param name: names the thread, for whoever reads a thread dump.
    """
    loop = asyncio.get_running_loop()
    deadline = None if timeout is None else loop.time() + timeout
    if _is_async(function):
        # Captured inside the task: a task that raises KeyboardInterrupt or
        # SystemExit would re-raise it out of the event loop itself.
        call = Launched(loop.create_task(_capture(function, args)), deadline)  # ensure_future's own step
        await settle_all((call,), stop, grace, just_launched=True)
        return call.outcome()
    future: asyncio.Future[tuple[bool, Any]] = loop.create_future()
    handback = _handback(loop)

    def work() -> None:
        try:
            outcome: tuple[bool, Any] = (True, function(*args))
        except BaseException as exc:  # everything is handed back to the loop
            outcome = (False, exc)
        handback.put(future, outcome)

    _WORKERS.submit(work, f"agentkit-{name}")
    ok, value = await _settle(future, deadline, stop, grace)
    value = _unwrap(ok, value)
    if inspect.isawaitable(value):  # a sync function that handed back a coroutine
        remaining = None if deadline is None else max(0.0, deadline - loop.time())
        return await guarded_call(awaiting(value), timeout=remaining, stop=stop, grace=grace, name=name)
    return value


class _DaemonWorkers:
    """Daemon threads reused from call to call: starting a thread per call costs milliseconds.

    A worker goes back to the idle list when its call returns; one whose call
    never returns is simply never back. Idle workers wait forever, and as
    daemons they never hold up the interpreter's exit.
    """

    def __init__(self, max_idle: int = 32) -> None:
        self.max_idle = max_idle
        self._idle: list[queue.SimpleQueue[Any]] = []
        self._lock = threading.Lock()

    def submit(self, job: Callable[[], None], name: str) -> None:
        with self._lock:
            jobs = self._idle.pop() if self._idle else None
        if jobs is None:
            jobs = queue.SimpleQueue()
            threading.Thread(target=self._serve, args=(jobs,), name=name, daemon=True).start()
        jobs.put((job, name))

    def _serve(self, jobs: queue.SimpleQueue[Any]) -> None:
        current = threading.current_thread()
        while True:
            job, name = jobs.get()
            if current.name != name:  # most jobs serve the tool the last one served
                current.name = name  # what a thread dump shows is the call it serves
            job()
            with self._lock:
                if len(self._idle) >= self.max_idle:
                    return
                self._idle.append(jobs)


_WORKERS = _DaemonWorkers()


class _Handback:
    """Outcomes that worker threads hand back to one loop: one wake-up per burst, not one per call.

    The calls of a batch tend to finish together; the first to finish wakes
    the loop, and those finishing before it runs ride on that wake-up.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._lock = threading.Lock()
        self._pending: list[tuple[asyncio.Future[Any], Any]] = []

    def put(self, future: asyncio.Future[Any], outcome: Any) -> None:
        with self._lock:
            self._pending.append((future, outcome))
            if len(self._pending) > 1:
                return  # a wake-up is already on its way
        try:  # noqa: SIM105 - contextlib.suppress costs three Python calls more, on every batch of sync calls
            self.loop.call_soon_threadsafe(self._deliver)
        except RuntimeError:  # the loop closed: nobody waits any more
            pass

    def _deliver(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, []
        for future, outcome in pending:
            _resolve(future, outcome)


_HANDBACKS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Handback] = weakref.WeakKeyDictionary()


def _handback(loop: asyncio.AbstractEventLoop) -> _Handback:
    handback = _HANDBACKS.get(loop)
    if handback is None:
        handback = _HANDBACKS[loop] = _Handback(loop)
    return handback


def _is_async(function: Callable[..., Any]) -> bool:
    # An object whose __call__ is async counts too.
    return inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(type(function).__call__)


def awaiting(awaitable: Awaitable[Any]) -> Callable[[], Any]:
    async def wait() -> Any:
        return await awaitable

    return wait


async def _capture(function: Callable[..., Any], args: tuple[Any, ...]) -> tuple[bool, Any]:
    try:
        return True, await function(*args)
    except BaseException as exc:  # a CancelledError the callable raised itself included
        return False, exc


def _unwrap(ok: bool, value: Any) -> Any:
    if ok:
        return value
    if isinstance(value, Exception):
        raise value
    raise Escaped(value)


def _resolve(future: asyncio.Future[Any], outcome: Any) -> None:
    if not future.done():
        future.set_result(outcome)


@dataclass(slots=True)
class Launched:
    """One call started in its own task, to be settled with others by :func:`settle_all`."""

    future: asyncio.Future[Any]
    deadline: float | None
    verdict: Exception | None = None  # TimedOut or Abandoned once given up on

    def outcome(self) -> Any:
        """The call's value; what it raised (see :func:`guarded_call`), or the verdict, is raised."""
        if self.verdict is not None:
            raise self.verdict
        ok, value = self.future.result()
        return _unwrap(ok, value)


def launch(function: Callable[..., Any], *args: Any, timeout: float | None) -> Launched:
    """Start the async ``function(*args)`` in a task of its own; :func:`settle_all` waits for it.

    The calls of a batch each need a task to run side by side, and one is all
    they need: the caller settles them together instead of each in a task that
    waits for it (which a handler ignoring its cancellation could hold forever).
    """
    loop = asyncio.get_running_loop()
    deadline = None if timeout is None else loop.time() + timeout
    return Launched(loop.create_task(_capture(function, args)), deadline)  # ensure_future's own step


async def settle_all(
    calls: Sequence[Launched], stop: RunStop | None, grace: float, *, just_launched: bool = False
) -> None:
    """Wait for each call until its deadline or the stop's grace; give up the ones still running then.

    A call given up on is cancelled (a task) or forgotten (a thread's future),
    and its :meth:`Launched.outcome` raises :class:`TimedOut` or :class:`Abandoned`.

    :param just_launched: the calls are tasks that have not run yet. Most
        handlers finish in their first step (they await nothing slow): one
        pass of the loop lets them, before any wait arms a timer and a callback
        per call to learn the same. Every deadline and the stop are then
        checked as on any pass.
    """
    loop = asyncio.get_running_loop()
    try:
        while True:
            stopping = stop is not None and stop.event.is_set()
            stop_limit = None
            if stopping:
                assert stop is not None and stop.at is not None
                stop_limit = min(stop.at + grace, stop.at + STOP_BUDGET)
            now = loop.time()
            waits: set[asyncio.Future[Any]] = set()
            nearest: float | None = None
            for call in calls:
                if call.verdict is not None or call.future.done():
                    continue
                limit = call.deadline
                if stop_limit is not None:
                    limit = stop_limit if limit is None else min(limit, stop_limit)
                if limit is not None and limit <= now:
                    if stopping and (call.deadline is None or now < call.deadline):
                        call.verdict = Abandoned("the run was stopped before the call returned")
                    else:
                        call.verdict = TimedOut("the call did not return before its deadline")
                    call.future.cancel()  # a task is cancelled; a thread's future is only forgotten
                    continue
                waits.add(call.future)
                if limit is not None and (nearest is None or limit < nearest):
                    nearest = limit
            if not waits:
                return
            if just_launched:
                just_launched = False
                await asyncio.sleep(0)
                continue
            if stop is not None and not stopping:
                waits.add(stop.reached())
            timeout = None if nearest is None else nearest - now
            await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for call in calls:
            if not call.future.done():
                call.future.cancel()


async def _settle(
    future: asyncio.Future[Any], deadline: float | None, stop: RunStop | None, grace: float
) -> Any:
    """Wait for ``future`` until the deadline or the stop's grace; give it up then."""
    call = Launched(future, deadline)
    await settle_all((call,), stop, grace)
    if call.verdict is not None:
        raise call.verdict
    return future.result()
