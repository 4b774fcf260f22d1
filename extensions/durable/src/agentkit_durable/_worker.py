"""A worker: a process that takes queued durable runs from a DBOS queue and executes them.

Any number of workers, on any machine that reaches the system database, take runs
from one queue (``agentkit runs submit`` puts them there). DBOS dequeues at most
the queue's per-worker limit into each worker and at most its global limit in
all (both are stored with the queue, in the database: every worker of a queue
runs under the same limits, the last one started sets them).

A worker's executor id is its own (``agentkit-worker:HOST:PID:RANDOM``, or
``--id``). While it lives it holds a liveness lock named after that id
(``_liveness``); every few seconds each worker looks for pending runs of
executors whose lock it can take, that is of dead workers, and hands them back
to the queue, where any worker picks them up and DBOS replays their checkpointed
steps. A worker restarted with the same ``--id`` gets its own runs back at once
(DBOS recovers an executor's pending workflows when it launches).

A worker stops cleanly on SIGTERM or SIGINT: it takes no more runs, lets the
running ones finish for a grace period, and leaves the rest pending for the
other workers (or its own restart) to recover. A second signal stops it at once.
"""

from __future__ import annotations

import os
import secrets
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ._liveness import Liveness, liveness_for
from ._queue import QUEUE

#: Executor ids of workers start with this: only their runs are recovered by other workers (a run an
#: ``agentkit run --durable`` process started is that process's, recovered by ``agentkit runs resume``).
WORKER_PREFIX = "agentkit-worker:"


def _default_concurrency() -> int:
    # As Celery's worker does: one run at a time per core by default (a run mostly waits on its model).
    return os.cpu_count() or 1


@dataclass(frozen=True)
class WorkerSettings:
    """How a worker runs; the ``agentkit worker`` options."""

    #: The system database URL (``postgresql://...`` to spread runs over machines).
    database: str
    #: Runs this worker executes at once at most (DBOS's per-worker limit of the queue).
    concurrency: int = field(default_factory=_default_concurrency)
    #: The queue to take runs from.
    queue: str = QUEUE
    #: Runs of the queue executing at once across all workers, ``None`` for no limit.
    queue_concurrency: int | None = None
    #: The executor id; ``None`` for a fresh one (``agentkit-worker:HOST:PID:RANDOM``).
    worker_id: str | None = None
    #: Seconds between two looks for dead workers' runs, and between two polls of the queue.
    interval: float = 1.0
    #: Seconds running runs get to finish after SIGTERM/SIGINT before the worker leaves them pending.
    grace: int = 30


def executor_id(settings: WorkerSettings) -> str:
    """This worker's executor id (with the worker prefix)."""
    if settings.worker_id:
        return settings.worker_id if settings.worker_id.startswith(WORKER_PREFIX) else WORKER_PREFIX + settings.worker_id
    return f"{WORKER_PREFIX}{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


def recover_dead_workers(dbos: Any, liveness: Liveness, own: str) -> list[str]:
    """Hand the pending runs of dead workers back to the queue; the ids of the workers found dead."""
    pending = dbos.list_workflows(status="PENDING", load_input=False, load_output=False)
    others = sorted({run.executor_id for run in pending
                     if run.executor_id and run.executor_id.startswith(WORKER_PREFIX) and run.executor_id != own})
    dead = []
    for other in others:
        with liveness.probe(other) as is_dead:
            if is_dead:
                # Under the dead worker's lock: its id cannot come back while its runs are re-queued. DBOS's
                # recovery re-queues a run only while it is still PENDING under that executor id, so a run
                # another worker already took back is left alone (the public resume_workflow has no such
                # guard); DBOS 3.4 names it with an underscore, still its recovery entry point.
                dbos._recover_pending_workflows([other])
                dead.append(other)
    return dead


def serve(settings: WorkerSettings, *, stop: threading.Event,
          started: Callable[[str], None] = lambda worker: None) -> None:
    """Execute queued runs until ``stop`` is set; ``started`` is told the worker's id once it takes runs.

    :raises WorkerIdInUse: a live worker already runs under ``settings.worker_id``.
    """
    from dbos import DBOS

    from ._launch import launch, shutdown

    worker = executor_id(settings)
    liveness = liveness_for(settings.database)
    try:
        if not _hold_own_lock(liveness, worker):
            raise WorkerIdInUse(worker)
        launch(settings.database, executor_id=worker, queues=[settings.queue])
        try:
            # DBOS refuses a per-worker limit above the queue's: no worker runs more than the queue anyway.
            per_worker = min(settings.concurrency, settings.queue_concurrency or settings.concurrency)
            DBOS.register_queue(settings.queue, worker_concurrency=per_worker,
                                global_concurrency=settings.queue_concurrency,
                                polling_interval_sec=settings.interval, on_conflict="always_update")
            started(worker)
            while True:
                recover_dead_workers(DBOS, liveness, worker)
                if stop.wait(settings.interval):
                    break
        finally:
            shutdown(grace=settings.grace)
    finally:
        liveness.close()


#: Seconds a worker waits for its own id's lock before calling the id taken. A process killed under that id a
#: moment ago holds its PostgreSQL lock until the server notices the connection closed, which a restart (a
#: supervisor's, say) can beat; a live holder keeps it, and the wait ends in ``WorkerIdInUse``.
OWN_LOCK_WAIT = 3.0


def _hold_own_lock(liveness: Liveness, worker: str) -> bool:
    deadline = time.monotonic() + OWN_LOCK_WAIT
    while not liveness.hold(worker):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)
    return True


class WorkerIdInUse(Exception):
    """A live worker already holds this executor id."""

    def __init__(self, worker: str) -> None:
        super().__init__(f"a worker with id {worker.removeprefix(WORKER_PREFIX)!r} is already running on this "
                         "database: give this one another --id (or none, for a fresh one)")
