"""One agent's run slot: at most one run at a time, the stop of the run in it, and the wait for a stopped run.

A run claims the slot before it starts and releases it when its bookkeeping
is done. A consumer that ``break``s out of a stream leaves the stream to be
closed by the event loop a few turns later, and that close stops the run: a
run started meanwhile waits those turns, then for the stopped run to end,
instead of failing with :class:`~agentkit.host.errors.AgentBusy`.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator

from agentkit.plugin_api import Outcome

from ._stopping.ending import SESSION_END_FLOOR
from ._stopping.run_stop import STOP_BUDGET, RunStop
from .errors import AgentBusy

__all__ = ["RunSlot"]

#: Loop turns the loop takes to close an async generator its consumer dropped.
_CLOSE_TURNS = 5


class RunSlot:
    """Holds one run at a time; see the module docstring."""

    def __init__(self) -> None:
        self.busy = threading.Lock()
        #: The stop of the run in the slot (or of the last one): aborting between runs changes nothing.
        self.stop = RunStop()
        #: A subagent's: its runs stop with its parent's run (linked when a run claims the slot).
        self.parent_stop: RunStop | None = None
        self._ended: asyncio.Future[None] | None = None  # done when the current run's stream let go

    @contextlib.asynccontextmanager
    async def claim(self) -> AsyncIterator[RunStop]:
        """Take the slot for one run, with a new stop; released when the run has ended.

        :raises AgentBusy: another run holds the slot and was not stopped.
        """
        if not self.busy.acquire(blocking=False) and not await self._previous_run_stopped():
            raise AgentBusy("this agent is already running; wait for the run to end or call abort()")
        ended = self._ended = asyncio.get_running_loop().create_future()
        unlink = None
        try:
            stop = RunStop()
            stop.bind(asyncio.get_running_loop())
            self.stop = stop
            if self.parent_stop is not None:
                unlink = self.parent_stop.link(lambda: stop.request(Outcome.ABORTED, "the parent's run was stopped"))
            yield stop
        finally:
            if unlink is not None:
                unlink()
            self.busy.release()
            ended.set_result(None)

    async def _previous_run_stopped(self) -> bool:
        """Wait for the running run to end if it was stopped, and take the slot; ``False`` if it goes on.

        A consumer's bare ``break`` leaves its stream to be closed by the loop a
        few turns later, and that close stops the run: those turns are given
        first. A run still going then is another caller's, and is left alone.
        """
        for _ in range(_CLOSE_TURNS):
            if self.stop.requested:
                break
            await asyncio.sleep(0)
        ended = self._ended
        if not self.stop.requested or ended is None or ended.get_loop() is not asyncio.get_running_loop():
            return False
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(ended), STOP_BUDGET + SESSION_END_FLOOR + 1.0)
        return self.busy.acquire(blocking=False)
