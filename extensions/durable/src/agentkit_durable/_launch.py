"""The process's DBOS: configured once, on the database durable runs are kept in, and launched.

DBOS is a library with one instance per process. :func:`launch` makes it with
the system database (``--db``, ``$AGENTKIT_DURABLE_DB``, else the SQLite file
under the data directory) and launches it. Launching also recovers: every run
its executor left pending is executed again from its start, in the background.

An application's process keeps DBOS's executor ``local``, and so recovers its
own runs when it starts again. The commands each take an executor of their
own (:func:`process_executor`, ``agentkit:HOST:PID:NONCE``), so that a command
never takes over a run another live command is running; ``agentkit runs
resume`` recovers the runs of the executors whose process is gone
(:func:`executor_alive`).
"""

from __future__ import annotations

import contextlib
import os
import socket
import uuid
from collections.abc import Mapping, Sequence

from dbos import DBOS, DBOSConfig

from ._database import default_database_url, private_sqlite, use_write_ahead_log
from .errors import DatabaseUnavailable

__all__ = ["APP", "executor_alive", "launch", "launched_url", "process_executor", "shutdown"]

#: The DBOS application durable runs belong to (its queues are this application's).
APP = "agentkit"
_COMMAND_EXECUTOR = APP

_launched: list[str] = []  # the URL DBOS was launched with in this process, if it was


def process_executor() -> str:
    """An executor id of this process alone: ``agentkit:HOST:PID:NONCE``."""
    return f"{_COMMAND_EXECUTOR}:{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def executor_alive(executor_id: str | None) -> bool | None:
    """Whether the process of a command's executor still runs: ``None`` when this machine cannot tell
    (another machine's, or an application's ``local`` executor)."""
    parts = (executor_id or "").split(":")
    if len(parts) != 4 or parts[0] != _COMMAND_EXECUTOR or parts[1] != socket.gethostname() or not parts[2].isdigit():
        return None
    try:
        os.kill(int(parts[2]), 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process, alive
        return True
    return True


def launch(database_url: str | None = None, *, environ: Mapping[str, str] | None = None,
           executor_id: str | None = None, queues: Sequence[str] | None = None) -> str:
    """Configure and launch DBOS on ``database_url`` (default: :func:`default_database_url`); returns the URL.

    Register every :class:`~agentkit_durable.DurableAgent` first: the runs
    recovered at launch need theirs. Launching again on the same URL does nothing.

    :param executor_id: DBOS's executor id; by default ``local``, whose pending runs launching recovers.
    :param queues: the only queues this process takes runs from (a worker's); ``None``: DBOS's default.

    :raises ValueError: DBOS already runs on another database in this process.
    :raises DatabaseUnavailable: the database cannot be reached or created.
    """
    url = database_url or default_database_url(os.environ if environ is None else environ)
    if _launched:
        if _launched[0] != url:
            raise ValueError("durable runs already use another database in this process; "
                             "call agentkit_durable.shutdown() first")
        return url
    from . import _subagents, _workflow  # noqa: F401  # the workflows are registered before DBOS is made
    from ._runs_db import dbos_quiet, failure

    path = private_sqlite(url, create=True)  # DBOS creates the file, not its folder; both the user's alone
    if path is not None:
        use_write_ahead_log(path)  # before DBOS opens it: see the function
    config: DBOSConfig = {"name": APP, "system_database_url": url, "log_level": "WARNING",
                          "application_version": _workflow.APPLICATION_VERSION}
    if executor_id is not None:
        config["executor_id"] = executor_id
    try:
        with dbos_quiet():
            DBOS(config=config)
            if queues is not None:
                DBOS.listen_queues(queues)
            DBOS.launch()
    except Exception as exc:  # a database that cannot be reached: one line without its password, no traceback
        with contextlib.suppress(Exception):
            DBOS.destroy(destroy_registry=False)
        raise DatabaseUnavailable(failure(url, exc)) from None
    _launched.append(url)
    return url


def launched_url() -> str | None:
    """The database DBOS was launched on in this process, or ``None``."""
    return _launched[0] if _launched else None


def shutdown(grace: int = 0) -> None:
    """Stop DBOS in this process, giving its runs in flight ``grace`` seconds to end (the others stay pending,
    for a later launch to recover)."""
    if _launched:
        DBOS.destroy(destroy_registry=False, workflow_completion_timeout_sec=grace)
        _launched.clear()
