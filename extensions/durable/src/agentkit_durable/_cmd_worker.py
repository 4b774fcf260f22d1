"""``agentkit worker``: execute queued durable runs until stopped (docs/durable.md, "Workers and queues")."""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
from collections.abc import Sequence
from typing import Any

from agentkit.plugin_api.errors import UsageError

from . import DATABASE_ENV, default_database_url
from ._options import Parser, positive
from ._queue import QUEUE
from ._runs_db import driver_failure
from ._worker import WorkerIdInUse, WorkerSettings, serve


def parser() -> argparse.ArgumentParser:
    """The command line of ``agentkit worker``."""
    parser = Parser(
        prog="agentkit worker",
        description="Execute durable runs queued with 'agentkit runs submit', until SIGTERM or Ctrl-C. Start any "
        "number of workers, on any machine that reaches the database; a worker that dies leaves its runs to "
        "the others, which pick them up where their checkpoints end.",
    )
    parser.add_argument("--db", default=None, metavar="URL",
                        help=f"the system database: postgresql://user@host/db to share runs between machines "
                             f"(default: ${DATABASE_ENV}, else a SQLite file under the data directory)")
    parser.add_argument("--concurrency", type=positive, default=None, metavar="N",
                        help="runs this worker executes at once at most (default: the number of cores); stored "
                             "with the queue, so it holds for every worker of the queue")
    parser.add_argument("--queue-concurrency", type=positive, default=None, metavar="N",
                        help="runs of the queue executing at once across all workers (default: no limit)")
    parser.add_argument("--queue", default=QUEUE, help=f"the queue to take runs from (default: {QUEUE})")
    parser.add_argument("--id", default=None, metavar="NAME",
                        help="this worker's id: restarted with the same id, a worker takes its unfinished runs "
                             "back at once (default: a fresh one; other workers recover a dead worker's runs "
                             "either way)")
    parser.add_argument("--import", dest="imports", action="append", default=[], metavar="MODULE",
                        help="import this module (from the working directory or the environment) before taking "
                             "runs: the one that makes the DurableAgents of runs submitted by agent name; "
                             "repeat for several")
    parser.add_argument("--grace", type=positive, default=30, metavar="SECONDS",
                        help="on SIGTERM or Ctrl-C, how long running runs get to finish before the worker "
                             "leaves them to the others (default: 30)")
    return parser


def _stop_on_signals(stop: threading.Event) -> None:
    """The first SIGTERM/SIGINT asks the worker to stop; a second one ends the process at once."""

    def handle(signum: int, frame: Any) -> None:
        if stop.is_set():
            # Runs left mid-step are recovered by the other workers from their last checkpoint.
            os._exit(128 + signum)
        stop.set()
        print("agentkit worker: stopping: no new runs; running ones get the grace period "
              "(signal again to stop at once)", file=sys.stderr, flush=True)

    signal.signal(signal.SIGTERM, handle)
    signal.signal(signal.SIGINT, handle)


def _import(modules: list[str]) -> None:
    """Import the ``--import`` modules, the working directory first on the path (as ``python -m`` has it)."""
    if not modules:
        return
    sys.path.insert(0, os.getcwd())
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise UsageError(f"--import {name}: {exc}; run the worker where the module can be imported") from None


def describe(url: str) -> str:
    """A database URL fit to print: its password is never shown."""
    from agentkit.host.sessions import without_password

    return without_password(url, url)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``agentkit worker ARGV``; the exit code."""
    args = parser().parse_args(argv)
    database = args.db or default_database_url(os.environ)
    settings = WorkerSettings(database=database, queue=args.queue, queue_concurrency=args.queue_concurrency,
                              worker_id=args.id, grace=args.grace,
                              **({"concurrency": args.concurrency} if args.concurrency else {}))
    _import(args.imports)
    stop = threading.Event()
    _stop_on_signals(stop)

    def started(worker: str) -> None:
        print(f"agentkit worker {worker}: taking runs from queue {settings.queue!r} of {describe(database)}, "
              f"{settings.concurrency} at once", file=sys.stderr, flush=True)

    try:
        serve(settings, stop=stop, started=started)
    except WorkerIdInUse as exc:
        raise UsageError(str(exc)) from None
    except Exception as exc:
        error = driver_failure(database, exc)
        if error is None:
            raise
        raise error from None
    print("agentkit worker: stopped", file=sys.stderr, flush=True)
    return 0
