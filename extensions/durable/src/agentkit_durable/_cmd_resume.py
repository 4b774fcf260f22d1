"""``agentkit runs resume [RUN_ID]``: recover the durable runs a dead process left pending, and wait for them.

Launching DBOS on the database recovers every run this executor left
``PENDING`` (its process died): each is executed again from its start, its
completed steps answered from their checkpoints (see ``docs/durable.md``).
The command waits for them (or for ``RUN_ID`` alone) and prints each one's
answer on stdout and ``run ID: OUTCOME`` on stderr; ``--json``: one JSON line per
run instead (its result). Exit code 0 when every run completed, 1 otherwise,
2 for a usage error (a run id that names no durable run).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agentkit.plugin_api.errors import UsageError

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{message} (see 'agentkit runs resume --help')")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="agentkit runs resume",
                     description="Recover the durable runs a dead process left pending, wait for them, and print "
                                 "each one's result.")
    parser.add_argument("run_id", nargs="?", default=None, metavar="RUN_ID", help="wait for this run only")
    parser.add_argument("--db", default=None, metavar="URL",
                        help="the database runs are kept in (default: $AGENTKIT_DURABLE_DB, else durable.sqlite "
                             "in the data directory)")
    parser.add_argument("--json", action="store_true", help="one JSON line per run: its result")
    return parser


def main(argv: Sequence[str]) -> int:
    """Run ``agentkit runs resume ARGV``; the exit code."""
    args = _parser().parse_args(list(argv))
    from dbos import DBOSClient

    from ._database import default_database_url
    from ._launch import launch, shutdown
    from ._workflow import APPLICATION_VERSION, WORKFLOW_NAME

    url = default_database_url(os.environ) if args.db is None else args.db
    if url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).exists():
        # No durable run was ever started on this database.
        if args.run_id is not None:
            raise UsageError(f"no durable run has the id {args.run_id!r}; 'agentkit runs list' shows them")
        print("no durable run is pending", file=sys.stderr)
        return 0
    # Which runs are pending is read before launching: launching recovers them, and a short one may
    # have ended before a question asked afterwards.
    client = DBOSClient(system_database_url=url)
    try:
        if args.run_id is not None:
            found = client.list_workflows(workflow_ids=[args.run_id], name=WORKFLOW_NAME)
            if not found:
                raise UsageError(f"no durable run has the id {args.run_id!r}; 'agentkit runs list' shows them")
        else:
            found = client.list_workflows(status="PENDING", name=WORKFLOW_NAME)
    finally:
        client.destroy()
    if not found:
        print("no durable run is pending", file=sys.stderr)
        return 0
    launch(url)  # recovers this executor's pending runs, in the background
    try:
        codes = [_wait(status.workflow_id, status.app_version, APPLICATION_VERSION, as_json=args.json)
                 for status in found]
    finally:
        shutdown()
    return max(codes)


def _wait(run_id: str, version: str | None, ours: str, *, as_json: bool) -> int:
    """Wait for run ``run_id`` and print its result; the exit code it means."""
    from dbos import DBOS

    from ._run_cmd import print_result

    if version is not None and version != ours:
        raise UsageError(f"run {run_id} was started by {version}, this is {ours}: resume it with that version")
    try:
        result: dict[str, Any] = DBOS.retrieve_workflow(run_id).get_result()
    except Exception as exc:  # the run's workflow itself failed (its agent could not be built...)
        result = {"run_id": run_id, "outcome": "error", "error": f"{type(exc).__name__}: {exc}"}
    if as_json:
        print(json.dumps(result, ensure_ascii=False))
        return 0 if result.get("outcome") == "completed" else 1
    print(f"run {run_id}: {result.get('outcome')}", file=sys.stderr)
    return print_result(result)
