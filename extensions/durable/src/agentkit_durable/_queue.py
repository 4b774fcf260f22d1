"""The queue durable runs wait on for a worker: :func:`submit` puts runs there (``agentkit runs submit``)."""

from __future__ import annotations

import contextlib
import logging
import uuid
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._spec import RunSpec

__all__ = ["QUEUE", "submit"]

#: The queue runs are submitted to and workers take them from, unless another is named.
QUEUE = "agentkit.runs"


@contextlib.contextmanager
def _quiet(logger: logging.Logger) -> Iterator[None]:
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


def submit(specs: Iterable[RunSpec], database: str, *, queue: str = QUEUE) -> list[str]:
    """Queue one durable run per spec on ``queue`` of the system database ``database``; their run ids.

    ``agentkit worker`` processes on that database execute them (only workers of this
    version of agentkit-durable: they rebuild each agent from its spec). The
    database's tables are created first if no worker made them yet. Returns at once.
    """
    from dbos import DBOS, DBOSClient

    from ._database import private_sqlite
    from ._launch import APP
    from ._workflow import APPLICATION_VERSION, WORKFLOW_NAME

    private_sqlite(database, create=True)  # DBOS creates the file, not its folder
    with _quiet(logging.getLogger("dbos")):  # DBOS logs its attempts; the caller gets the error itself
        DBOS.migrate(database)
    client = DBOSClient(system_database_url=database, application_name=APP)
    run_ids = []
    try:
        for spec in specs:
            run_id = uuid.uuid4().hex
            client.enqueue({"queue_name": queue, "workflow_name": WORKFLOW_NAME, "workflow_id": run_id,
                            "app_version": APPLICATION_VERSION}, spec.to_dict())
            run_ids.append(run_id)
    finally:
        client.destroy()
    return run_ids
