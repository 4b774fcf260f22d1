"""``agentkit run --durable``: the host's ``run`` command hands the run here (entry point ``agentkit.durable``).

The run is written to a session (``--session ID``, ``--resume``, or a new one),
so that the history is kept as every run's is and a recovering process
rebuilds the agent from it. Its id is printed to stderr before the run starts
(``run: ID``), so that whoever sees the process die knows what to resume; the
answer goes to stdout once the run has ended; the session's id to stderr.
Exit codes as ``agentkit run``'s: 0 completed, 1 another outcome, 2 a usage error.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import uuid
from pathlib import Path

from agentkit.plugin_api.errors import UsageError

__all__ = ["run_durable"]


def run_durable(args: argparse.Namespace) -> int:
    """Run ``agentkit run``'s ``args`` durably; the exit code."""
    from agentkit.host.cli.support import select_session

    from ._agent import start_run
    from ._launch import launch, shutdown
    from ._spec import RunSpec

    root = Path(args.root).expanduser()
    if not root.is_dir():
        raise UsageError(f"--root {args.root!r} is not a directory")
    if args.max_turns is not None and args.max_turns < 1:
        raise UsageError("--max-turns must be at least 1")
    session = select_session(args.session or (None if args.resume else "new"), resume=args.resume,
                             store=args.store, root=root)
    assert session is not None  # a durable run always keeps its session
    try:
        if args.model is None:
            args.model = session.model
        if args.model is None:
            raise UsageError("say which model: --model vendor/model (e.g. anthropic/claude-sonnet-4-6)")
        spec = RunSpec.from_args(args, session_id=session.id)
    finally:
        session.close()  # the run opens it again, as a recovering process would
    spec.build_agent().session.close()  # type: ignore[union-attr]  # refuse a bad model or script before starting
    launch(args.db, environ=os.environ)
    run_id = uuid.uuid4().hex
    print(f"run: {run_id} (if this process ends first: agentkit runs resume {run_id})", file=sys.stderr, flush=True)
    try:
        result = asyncio.run(start_run(spec, run_id=run_id))
    finally:
        shutdown()
    return print_result(result)


def print_result(result: dict[str, object]) -> int:
    """Print a run's answer (stdout) and its end (stderr); the exit code its outcome means."""
    text = result.get("text")
    if text:
        print(text)
    outcome = result.get("outcome")
    if outcome != "completed":
        error = result.get("error")
        print(f"agentkit: the run ended {outcome}" + (f": {error}" if error else ""), file=sys.stderr)
    session_id = result.get("session_id")
    if session_id:
        print(f"session: {session_id} (continue it with --session {session_id})", file=sys.stderr)
    return 0 if outcome == "completed" else 1
