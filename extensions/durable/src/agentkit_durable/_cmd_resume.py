"""``agentkit runs resume [RUN_ID]``: recover the durable runs a dead process left pending, and wait for them.

Every run left ``PENDING`` by an ``agentkit`` command whose process is gone
(on this machine) is executed again from its start, its completed steps
answered from their checkpoints (see ``docs/durable.md``); a run whose process
still runs is left to it, and one this machine cannot check (another
machine's, an application's ``local`` executor) is resumed only with
``--force``. The command waits for them (or for ``RUN_ID`` alone) and prints each one's
answer on stdout and ``run ID: OUTCOME`` on stderr; ``--json``: one JSON line per
run instead (its result). Exit code 0 when every run completed, 1 otherwise,
2 for a usage error (a run id that names no durable run, or a run another
version of agentkit-durable started: only that version continues it).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from ._options import Parser

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog="agentkit runs resume",
                     description="Recover the durable runs a dead process left pending, wait for them, and print "
                                 "each one's result.")
    parser.add_argument("run_id", nargs="?", default=None, metavar="RUN_ID", help="wait for this run only")
    parser.add_argument("--db", default=None, metavar="URL",
                        help="the database runs are kept in (default: $AGENTKIT_DURABLE_DB, else durable.sqlite "
                             "in the data directory)")
    parser.add_argument("--json", action="store_true", help="one JSON line per run: its result")
    parser.add_argument("--force", action="store_true",
                        help="also resume the runs of executors this machine cannot check (another machine's, an "
                             "application's): only once their process is gone")
    return parser


def main(argv: Sequence[str]) -> int:
    """Run ``agentkit runs resume ARGV``; the exit code."""
    args = _parser().parse_args(list(argv))
    from dbos import DBOS

    from ._approval import print_when_waiting
    from ._launch import launch, process_executor, shutdown
    from ._runs_db import chosen_url, open_runs

    url, named = chosen_url(args.db)
    # Read without launching: a process of DBOS (this one, once launched) may take a run over. Read through
    # the client: one line for a database that cannot be reached, an unknown id or an ambiguous prefix.
    database = open_runs(url, named=named)
    try:
        found = [database.find(args.run_id)] if args.run_id is not None else database.pending()
    finally:
        database.close()
    if not found:
        print("no durable run is pending", file=sys.stderr)
        return 0
    recover, wait, skipped = _choose(found, named=args.run_id is not None, force=args.force)
    if not wait and not skipped:  # only runs another version must continue
        print("no durable run is pending", file=sys.stderr)
    if wait:
        print_when_waiting()  # before launching: a recovered run may park at once
        launch(url, executor_id=process_executor())  # its own executor: launching takes over no run
        try:
            for run_id in recover:  # back on DBOS's queue: a live process (this one) executes it again
                DBOS.resume_workflow(run_id)
            codes = [_wait(run_id, as_json=args.json) for run_id in wait]
        finally:
            shutdown()
    else:
        codes = []
    return max([*codes, 1 if skipped and args.run_id is not None else 0])


def _choose(found: list[Any], *, named: bool, force: bool) -> tuple[list[str], list[str], list[str]]:
    """The runs to recover, the runs to wait for, and those left alone (each said on stderr).

    A run another version started is only noted: DBOS leaves it pending for that version.

    :raises IncompatibleRun: the run named was started by another version (DBOS would leave it pending).
    """
    from ._launch import executor_alive
    from ._runs_db import FINISHED
    from ._versions import incompatible

    recover, wait, skipped = [], [], []
    for status in found:
        run_id = status.workflow_id
        if status.status in FINISHED:  # only read back: any version may do that
            wait.append(run_id)
            continue
        problem = incompatible(run_id, status.app_version)
        if problem is not None:
            if named:
                raise problem
            print(f"note: {problem}", file=sys.stderr)  # left pending by DBOS: said, and the others resumed
            continue
        if status.status != "PENDING":  # queued: a worker's, its result once it has one
            wait.append(run_id)
            continue
        alive = executor_alive(status.executor_id)
        if alive is False or (alive is None and force):
            recover.append(run_id)
            wait.append(run_id)
        elif alive and named:  # its process runs it: wait for the result
            wait.append(run_id)
        else:
            where = ("its process is still running" if alive else
                     f"it runs on executor {status.executor_id} (another machine, or an application that "
                     "recovers its runs when it starts again); once that process is gone, pass --force")
            print(f"run {run_id} was not resumed: {where}", file=sys.stderr)
            skipped.append(run_id)
    return recover, wait, skipped


def _wait(run_id: str, *, as_json: bool) -> int:
    """Wait for run ``run_id`` and print its result; the exit code it means."""
    from dbos import DBOS

    from ._run_cmd import print_result

    try:
        result: dict[str, Any] = DBOS.retrieve_workflow(run_id).get_result()
    except Exception as exc:  # the run's workflow itself failed (its agent could not be built...)
        result = {"run_id": run_id, "outcome": "error", "error": f"{type(exc).__name__}: {exc}"}
    if as_json:
        print(json.dumps(result, ensure_ascii=False))
        return 0 if result.get("outcome") == "completed" else 1
    print(f"run {run_id}: {result.get('outcome')}", file=sys.stderr)
    return print_result(result)
