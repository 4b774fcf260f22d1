"""``ToolContext.progress``: a running call's reports, as ``tool_call_progress`` events of its run.

Events are emitted on the run's loop only. A report made on another thread (a
sync handler's worker) is handed to that loop with ``call_soon_threadsafe``,
which keeps the order the handler made them in; the handler's own result
reaches the loop after its reports, so each arrives before its call's
``tool_call_end``. A report whose call already has its result (a handler given
up on, a run that ended) is dropped: it would tell of a call that is over.

Binding costs a call a ``functools.partial`` and two lookups, all in C: a tool
that never reports pays next to nothing (opcount.py, the loop's per-turn cost).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any, Protocol

# The event loads with the first report.
from agentkit import plugin_api
from agentkit.plugin_api import ToolUseBlock

_log = logging.getLogger("agentkit.host")


class _Batch(Protocol):
    """What a report needs of the batch running its call (:class:`~._batch.ToolBatch`), named, not imported."""

    @property
    def emit(self) -> Callable[[Any], None]: ...

    @property
    def settled(self) -> Mapping[str, Any]: ...


def progress_for(batch: _Batch, call: ToolUseBlock) -> Callable[[str], None]:
    """``ToolContext.progress`` for ``call`` of ``batch``; made on the run's loop."""
    return functools.partial(_report, batch.emit, batch.settled, call,
                             asyncio.get_running_loop(), threading.get_ident())


def _report(emit: Callable[[Any], None], settled: Mapping[str, Any], call: ToolUseBlock,
            loop: asyncio.AbstractEventLoop, thread: int, message: str) -> None:
    if not isinstance(message, str):
        raise TypeError(f"ToolContext.progress takes a str, not {type(message).__name__}: "
                        "give a short line such as 'step 2 of 5'")
    if threading.get_ident() == thread:
        _emit(emit, settled, call, message)
        return
    try:
        loop.call_soon_threadsafe(_emit, emit, settled, call, message)
    except RuntimeError:  # the loop is closed: the run is long over
        _log.debug("a progress report of %s came after its run ended and was dropped", call.name)


def _emit(emit: Callable[[Any], None], settled: Mapping[str, Any], call: ToolUseBlock, message: str) -> None:
    if call.id in settled:  # the call has its result: its tool_call_end is out already
        _log.debug("a progress report of %s came after its call ended and was dropped", call.name)
        return
    emit(plugin_api.ToolCallProgress(call.id, call.name, message))
