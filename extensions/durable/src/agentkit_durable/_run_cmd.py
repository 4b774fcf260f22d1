"""``agentkit run --durable``: the host's ``run`` command hands the run here (entry point ``agentkit.durable``).

The run is written to a session (``--session ID``, ``--resume``, or a new one),
so that the history is kept as every run's is and a recovering process
rebuilds the agent from it. Its id is printed to stderr before the run starts
(``run: ID``), so that whoever sees the process die knows what to resume; the
answer goes to stdout once the run has ended; the session's id to stderr.
``--json`` writes every event of the run as one JSON line instead (those of
this process: a recovering one delivers none of what it replays).
Exit codes as ``agentkit run``'s: 0 completed, 1 another outcome, 2 a usage error.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import uuid

from agentkit.plugin_api import Event, event_to_dict

__all__ = ["run_durable"]


def run_durable(args: argparse.Namespace) -> int:
    """Run ``agentkit run``'s ``args`` durably; the exit code."""
    from agentkit.host.cli.support import run_interruptibly

    from ._agent import start_run
    from ._launch import launch, shutdown
    from ._spec import RunSpec
    from ._workflow import abort

    spec = RunSpec.from_command_line(args)
    agent = spec.build_agent()  # a bad model or script is refused before the run starts
    if agent.session is not None:
        agent.session.close()
    on_event = _json_lines if args.json else None
    launch(args.db, environ=os.environ)
    run_id = uuid.uuid4().hex
    print(f"run: {run_id} (if this process ends first: agentkit runs resume {run_id})", file=sys.stderr, flush=True)
    try:
        # Ctrl-C aborts the run as 'agentkit run' does: it ends, recorded as aborted (a killed
        # process leaves it pending instead, for 'agentkit runs resume').
        result, interrupted = run_interruptibly(start_run(spec, run_id=run_id, on_event=on_event),
                                                functools.partial(abort, run_id), exiting=True)
    except Exception as exc:  # the workflow itself failed: its agent could not be built, the database went away
        print(f"agentkit: the durable run {run_id} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    finally:
        shutdown()
    code = 0 if result.get("outcome") == "completed" else 1
    if not args.json:
        code = print_result(result)
    if interrupted:
        print("agentkit: aborted", file=sys.stderr)
        return 130
    return code


def _json_lines(event: Event) -> None:
    print(json.dumps(event_to_dict(event), ensure_ascii=False), flush=True)


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
