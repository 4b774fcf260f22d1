"""``agentkit runs cancel``: stop a durable run, and the runs it started, at their next step."""

from __future__ import annotations

import sys

from agentkit.host.cli.support import visible_line
from agentkit.plugin_api.errors import UsageError

from ._options import open_database, parser
from ._runs_db import FINISHED, STATUSES


def main(argv: list[str]) -> int:
    """Cancel the run ``RUN_ID`` names (its full id: cancelling takes no guess) and its subagents' runs."""
    options = parser("cancel", "cancel a durable run and the runs it started; a step in progress finishes first")
    options.add_argument("run_id", metavar="RUN_ID", help="the run's full id (a prefix is not enough to cancel)")
    args = options.parse_args(argv)
    database = open_database(args)
    try:
        status = database.find(args.run_id)
        if status.workflow_id != args.run_id:  # as 'agentkit sessions delete': no guessing for what cannot be undone
            raise UsageError(f"{args.run_id!r} is only the start of a run id; to cancel that run, give all of it: "
                             f"agentkit runs cancel {status.workflow_id}")
        if status.status in FINISHED:
            print(f"run {visible_line(status.workflow_id)} has already {_ended(str(status.status))}: nothing to cancel",
                  file=sys.stderr)
            return 0
        children = database.cancel(status.workflow_id)
    finally:
        database.close()
    also = f" and {children} run{'s' if children != 1 else ''} it started" if children else ""
    print(f"cancelled run {visible_line(status.workflow_id)}{also}")
    return 0


def _ended(state: str) -> str:
    return {"succeeded": "succeeded", "failed": "failed", "cancelled": "been cancelled"}[STATUSES[state]]
