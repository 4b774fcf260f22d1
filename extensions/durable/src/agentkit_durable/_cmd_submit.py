"""``agentkit runs submit``: put a durable run on a queue for ``agentkit worker`` to execute; print its id.

The options are ``agentkit run``'s that shape the agent; they become the run's
:class:`~agentkit_durable.RunSpec`, checked here as a worker will build it (an
unknown model or a bad script is refused now, not in a worker's log). The run is
written to a session, new unless ``--session`` names one, in the store
``--store`` (else ``$AGENTKIT_SESSION_STORE``) names, else in the executing
worker's default store. The command returns as soon as the run is queued.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence

from ._database import DATABASE_ENV, default_database_url
from ._options import Parser
from ._queue import QUEUE, submit
from ._runs_db import driver_failure

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    from agentkit.host.cli.support import add_agent_options

    parser = Parser(prog="agentkit runs submit",
                     description="Queue a durable run for 'agentkit worker' to execute and print its run id. "
                                 "Takes agentkit run's options.")
    parser.add_argument("task", help="what the agent should do")
    parser.add_argument("--model", default=None, help="vendor/model, e.g. anthropic/claude-sonnet-4-6")
    parser.add_argument("--session", default=None, metavar="ID|new",
                        help="write the run to a new session ('new', the default), or continue the stored session ID")
    parser.add_argument("--resume", action="store_true", help="continue the session written to last")
    add_agent_options(parser)
    parser.add_argument("--db", default=None, metavar="URL",
                        help=f"the system database the workers take runs from (default: ${DATABASE_ENV}, "
                             "else a SQLite file under the data directory)")
    parser.add_argument("--queue", default=QUEUE, help=f"the queue (default: {QUEUE})")
    parser.add_argument("--json", action="store_true", help='print {"run_id": ..., "session_id": ...} as JSON')
    return parser


def main(argv: Sequence[str]) -> int:
    """Run ``agentkit runs submit ARGV``; the exit code."""
    from agentkit.host.sessions._selection import STORE_ENV

    from ._spec import RunSpec

    args = _parser().parse_args(list(argv))
    # The store is named in the spec, so that the worker writes where this command would look.
    args.store = args.store or os.environ.get(STORE_ENV) or None
    spec = RunSpec.from_command_line(args)
    agent = spec.build_agent()  # refuse a bad model or script now, as a worker would
    if agent.session is not None:
        agent.session.close()
    database = args.db or default_database_url(os.environ)
    try:
        [run_id] = submit([spec], database, queue=args.queue)
    except Exception as exc:
        error = driver_failure(database, exc)
        if error is None:
            raise
        raise error from None
    if args.json:
        print(json.dumps({"run_id": run_id, "session_id": spec.session_id}))
    else:
        print(run_id)
    return 0
