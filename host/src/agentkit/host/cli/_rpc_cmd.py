"""``agentkit rpc``: drive agents from another program, NDJSON over stdin and stdout.

Requests come one JSON object per line on stdin; responses and events go one
per line to stdout (see ``docs/rpc.md`` and :mod:`agentkit.host.rpc`); notes
go to stderr. The options are ``agentkit run``'s: they make the agent of each
session, and ``--model`` is the model of a session that names none.

EOF on stdin ends the server: running turns are aborted, their ``agent_end``
is written, the sessions are closed, and it exits 0. Ctrl-C does the same and
exits 130; a client that closes the server's stdout ends it too, with exit 1.
``--schemas DIR`` writes the contracts' JSON Schemas under DIR and exits.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentkit.plugin_api.errors import UsageError

from .support import add_agent_options

if TYPE_CHECKING:
    from ..sessions import Session


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "rpc",
        description="Serve agentkit.rpc.request/v1 lines on stdin; write responses and events to stdout. "
        "See docs/rpc.md. Exit codes: 0 stdin ended, 1 the client closed stdout, 2 usage or configuration "
        "error, 130 Ctrl-C.",
    )
    parser.add_argument("--model", default=None,
                        help="vendor/model for sessions whose request names none (continued sessions: their own)")
    add_agent_options(parser)
    parser.add_argument("--schemas", default=None, metavar="DIR",
                        help="write the JSON Schemas of the contracts under DIR and exit")
    parser.set_defaults(handler=serve)


def serve(args: argparse.Namespace) -> int:
    if args.schemas is not None:
        from ..rpc import write_schemas

        for path in write_schemas(args.schemas):
            print(path)
        return 0
    # The loop's machinery, imported only when the server runs: 'agentkit --help' stays light.
    import asyncio

    from .._plugins import PluginHost
    from ..rpc import RpcServer
    from ..sessions import open_store
    from ._run import make_agent
    from .support import open_project, run_interruptibly

    root = Path(args.root).expanduser()
    if not root.is_dir():
        raise UsageError(f"--root {args.root!r} is not a directory")
    if args.max_turns < 1:
        raise UsageError("--max-turns must be at least 1")
    host = PluginHost.discover(project=open_project(root, args.trust_project))
    if args.model is not None:
        host.resolve_model(args.model)  # an unknown default model is a usage error now, not at each session

    def agent_for(session: Session | None, model: str | None) -> Any:
        model = model or args.model
        if model is None:
            raise UsageError("say which model: pass 'model' to session.start, or start agentkit rpc with --model")
        return make_agent(args, host, model, session)

    out = sys.stdout.buffer
    stop = asyncio.Event()
    client_gone = False

    def write(data: dict[str, Any]) -> None:
        nonlocal client_gone
        if client_gone:
            return
        try:
            # ASCII: a line is valid UTF-8 whatever strings the model or a tool produced (lone surrogates included).
            out.write(json.dumps(data).encode("ascii") + b"\n")
            out.flush()
        except (BrokenPipeError, ValueError):  # the client closed our stdout: end as on EOF, writing nothing more
            client_gone = True
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nor when the interpreter flushes it
            stop.set()

    server = RpcServer(agent_for, write, store=open_store(args.store), cwd=root)
    # A reader of its own on stdin: after Ctrl-C the reading thread may still be blocked in it, and the
    # interpreter's shutdown would then wait for sys.stdin's lock forever (it aborts the process instead).
    stdin = open(os.dup(sys.stdin.fileno()), "rb")  # noqa: SIM115 - held until the process ends
    _, interrupted = run_interruptibly(server.serve(stdin, stop), stop.set, exiting=True)
    if interrupted:
        print("agentkit: interrupted", file=sys.stderr)
        return 130
    if client_gone:
        print("agentkit: the client closed stdout; the server ended", file=sys.stderr)
        return 1
    return 0
