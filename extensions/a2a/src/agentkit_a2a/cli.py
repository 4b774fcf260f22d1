"""``agentkit a2a serve``: the agent ``agentkit run`` builds, served over A2A (contributed through ``agentkit.commands``).

Exit codes: 0 stopped (Ctrl-C, SIGTERM), 1 could not serve (the port is
taken), 2 a usage or configuration error (no key off loopback, an unknown model).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentkit.host.cli.support import add_agent_options
from agentkit.plugin_api.errors import UsageError

if TYPE_CHECKING:
    from agentkit.host.sessions import Session

API_KEY_ENV = "AGENTKIT_A2A_API_KEY"
DEFAULT_ADDRESS = "127.0.0.1:8766"

DESCRIPTION = """Serve an agent over A2A (protocol 1.0, JSON-RPC; 0.3 clients too): its Agent Card at
/.well-known/agent-card.json, each message a run, each context a session in the store (a conversation
continues across requests and restarts). The agent is the one 'agentkit run' builds from the same options."""


def parser() -> argparse.ArgumentParser:
    """The options of ``agentkit a2a serve``."""
    top = argparse.ArgumentParser(prog="agentkit a2a", description="Agents over A2A (Agent2Agent).")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = commands.add_parser("serve", prog="agentkit a2a serve", description=DESCRIPTION,
                            help="serve an agent over A2A")
    p.add_argument("--http", default=DEFAULT_ADDRESS, metavar="HOST:PORT",
                   help=f"the address to listen on (default: {DEFAULT_ADDRESS}; port 0: any free port)")
    p.add_argument("--url", default=None, metavar="URL",
                   help="the base URL callers reach the server at, written on the card (default: http://HOST:PORT)")
    p.add_argument("--model", default=None, help="vendor/model the agent runs (a continued context: its own)")
    p.add_argument("--name", default="agentkit agent", help="the agent's name on its card")
    p.add_argument("--description", default=None, help="what the agent does, on its card")
    p.add_argument("--api-key-env", default=API_KEY_ENV, metavar="VAR",
                   help=f"the environment variable holding the API key callers send (default: {API_KEY_ENV})")
    p.add_argument("--no-auth", action="store_true",
                   help="serve without an API key (loopback addresses only; logged loudly)")
    add_agent_options(p)
    return top


def main(argv: Sequence[str]) -> int:
    """Run ``agentkit a2a ARGV``; the exit code."""
    args = parser().parse_args(list(argv))
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="agentkit a2a serve: %(message)s")
    try:
        host, port = _address(args.http)
        if args.url is not None and not args.url.startswith(("http://", "https://")):
            raise UsageError(f"--url {args.url!r} is not an http:// or https:// URL")
        api_key = _api_key(args, host)
        make_agent, store, root = _agents(args)
    except UsageError as exc:
        print(f"agentkit a2a serve: error: {exc}", file=sys.stderr)
        return 2
    from ._serve import serve

    def ready(served: Any) -> None:
        print(f"agentkit a2a serve: listening on {served.url} (card: {served.card_url})", file=sys.stderr,
              flush=True)

    description = args.description or f"An agentkit agent running {args.model}."
    # uvicorn stops on SIGTERM and then raises it again: here it ends the process as Ctrl-C does, exit 0.
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        asyncio.run(serve(make_agent, host=host, port=port, store=store, cwd=root, name=args.name,
                          description=description, api_key=api_key, on_ready=ready,
                          public_url=args.url))
    except KeyboardInterrupt:
        pass
    except OSError as exc:  # the port is taken, the address is not ours...
        print(f"agentkit a2a serve: error: cannot listen on {args.http}: {exc}", file=sys.stderr)
        return 1
    return 0


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise UsageError(f"--http {text!r} is not HOST:PORT (for example 127.0.0.1:8766, or [::1]:0)")
    return host, int(port)


def _api_key(args: argparse.Namespace, host: str) -> str | None:
    from ._gate import check_key_rule

    key = os.environ.get(args.api_key_env, "").strip() or None
    try:
        check_key_rule(host, None if args.no_auth else key, no_auth=args.no_auth, env=args.api_key_env)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.no_auth:
        logging.getLogger("agentkit_a2a").warning(
            "WARNING: serving WITHOUT AUTHENTICATION (--no-auth): any local process can run the agent")
        return None
    return key


def _agents(args: argparse.Namespace) -> tuple[Any, Any, Path]:
    """The agent factory (``agentkit run``'s agent for a session), the session store and the root."""
    from agentkit.host import PluginHost
    from agentkit.host.cli._run import make_agent
    from agentkit.host.cli.support import open_project
    from agentkit.host.sessions import open_store

    root = Path(args.root).expanduser()
    if not root.is_dir():
        raise UsageError(f"--root {args.root!r} is not a directory")
    if args.max_turns < 1:
        raise UsageError("--max-turns must be at least 1")
    if args.model is None:
        raise UsageError("say which model the agent runs: --model vendor/model (e.g. anthropic/claude-sonnet-4-6)")
    host = PluginHost.discover(project=open_project(root, args.trust_project))
    make_agent(args, host, args.model, None)  # an unknown model, a missing key, a bad script: refused now

    def agent_for(session: Session | None) -> Any:
        model = (session.model if session is not None else None) or args.model
        return make_agent(args, host, model, session)

    return agent_for, open_store(args.store), root.resolve()
