"""``agentkit runs list``: the durable runs of a system database, the most recent first."""

from __future__ import annotations

import json
import sys
from typing import Any

from agentkit.host.cli.support import visible_line

from ._options import open_database, parser, positive, when
from ._runs_db import CHOICES, Run, shown

_COLUMNS = ("RUN", "STATUS", "STARTED", "MODEL", "SESSION", "WAITING ON")


def main(argv: list[str]) -> int:
    """List the runs; ``--status`` and ``--limit`` narrow the list, ``--json`` prints it as JSON."""
    options = parser("list", "list the durable runs, the most recent first")
    options.add_argument("--status", choices=sorted(CHOICES), default=None, help="only the runs in this state")
    options.add_argument("--limit", type=positive, default=None, metavar="N", help="at most N runs")
    options.add_argument("--json", action="store_true", help="print the list as JSON")
    args = options.parse_args(argv)
    database = open_database(args)
    # running and waiting are one DBOS state, told apart by the waiting event: cut the list after that
    told_apart = args.status in ("running", "waiting")
    try:
        runs = database.list_runs(CHOICES[args.status] if args.status else None, None if told_apart else args.limit)
    finally:
        database.close()
    if told_apart:
        runs = [run for run in runs if run.status == args.status][:args.limit]
    if args.json:
        print(json.dumps([as_json(run) for run in runs], indent=2, ensure_ascii=False))
        return 0
    if not runs:
        which = f"{args.status} " if args.status else ""
        print(f"no {which}durable runs in {shown(database.url)}; start one with 'agentkit run --durable ...'",
              file=sys.stderr)
        return 0
    _note_other_versions(runs)
    rows = [_COLUMNS, *(_cells(run) for run in runs)]
    widths = [max(len(row[column]) for row in rows) for column in range(len(_COLUMNS))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
    return 0


def as_json(run: Run) -> dict[str, Any]:
    """A run as ``--json`` prints it (``runs list`` and ``runs show`` alike)."""
    return {"id": run.id, "status": run.status, "started": when(run.started), "updated": when(run.updated),
            "model": run.model, "session_id": run.session_id, "waiting": run.waiting, "version": run.version,
            "parent": run.parent, "queue": run.queue}


def _note_other_versions(runs: list[Run]) -> None:
    """Say on stderr which unfinished runs this installation cannot continue (DBOS leaves them pending)."""
    from ._versions import current_version

    ours = current_version()
    others = [run for run in runs if run.status not in ("succeeded", "failed", "cancelled")
              and run.version is not None and run.version != ours]
    for run in others:
        print(f"note: run {visible_line(run.id)} was started by {visible_line(str(run.version))} and this is "
              f"{ours}: see 'agentkit runs show {visible_line(run.id)}'", file=sys.stderr)


def _cells(run: Run) -> tuple[str, ...]:
    waiting = ""
    if run.waiting is not None:
        waiting = f"{run.waiting.get('call_id')} ({run.waiting.get('tool')})"
    return tuple(visible_line(cell) for cell in (run.id, run.status, when(run.started) or "-", run.model or "-",
                                                 run.session_id or "-", waiting))


