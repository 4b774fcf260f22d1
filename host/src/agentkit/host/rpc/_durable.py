"""What the RPC asks of the durable-run extension, found through its entry point (the host imports none of it).

``agentkit-durable`` declares ``answer`` in the ``agentkit.durable`` entry-point
group: ``answer(run_id, call_id, *, approved, reason, arguments_sha256)``
answers a parked run's call and returns what it answered (``run_id``,
``call_id``, ``tool``, ``approved``), raising a ``UsageError`` when the run
does not wait for that call.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib import import_module
from typing import Any

from .._entry_points import contributed_entry_points
from ._contracts import ErrorCode, RpcError

#: The entry-point group the durable-run extension declares its parts in.
DURABLE_GROUP = "agentkit.durable"


def durable_answer() -> Callable[..., Any]:
    """The extension's ``answer``; :class:`RpcError` when it is not installed or fails to load."""
    entry = contributed_entry_points(DURABLE_GROUP, "durable", os.environ).get("answer")
    if entry is None:
        raise RpcError(ErrorCode.DURABLE_NOT_INSTALLED,
                       "durable runs need the agentkit-durable extension: pip install agentkit-durable")
    module_name, _, attribute = entry.value.partition(":")
    try:
        found: Any = import_module(module_name.strip())
        for part in attribute.strip().split(".") if attribute.strip() else ():
            found = getattr(found, part)
    except Exception as exc:  # a broken installation: the client is told, the server goes on
        raise RpcError(ErrorCode.DURABLE_NOT_INSTALLED,
                       f"the agentkit-durable extension failed to load ({type(exc).__name__}: {exc}); "
                       "reinstall it: pip install agentkit-durable") from None
    if not callable(found):
        raise RpcError(ErrorCode.DURABLE_NOT_INSTALLED, f"agentkit.durable's answer ({entry.value}) is not callable")
    return found  # type: ignore[no-any-return]
