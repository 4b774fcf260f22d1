"""``agentkit mcp serve``: the installed tools, served over MCP (stdio by default, or streamable HTTP)."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._limits import (
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_HEADER_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_FRAME_BYTES,
    DEFAULT_PAGE_SIZE,
    LOOPBACK_HOSTS,
    MIN_API_KEY_CHARS,
    HttpLimits,
)

API_KEY_ENV = "AGENTKIT_MCP_API_KEY"

DESCRIPTION = """Serve the installed tool plugins over MCP, answering both protocol eras
(2026-07-28 and the 2025-11-25 handshake). Every tools/call is authorized as in an agent: the
--policy decision first, then the hook plugins. Tools that run arbitrary commands (the shell
tools) are served only with a --policy."""


def parser() -> argparse.ArgumentParser:
    """The options of ``agentkit mcp serve``."""
    p = argparse.ArgumentParser(prog="agentkit mcp serve", description=DESCRIPTION)
    p.add_argument("--http", action="store_true", help="serve streamable HTTP at /mcp instead of stdio")
    p.add_argument("--host", default="127.0.0.1", help="the address to bind with --http (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="the port to bind with --http (0: any free port)")
    p.add_argument("--api-key-env", default=API_KEY_ENV, metavar="VAR",
                   help=f"the environment variable holding the API key for --http (default: {API_KEY_ENV})")
    p.add_argument("--no-auth", action="store_true",
                   help="serve --http without an API key (loopback addresses only; logged loudly)")
    p.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                   help="an Origin allowed besides loopback ones, as scheme://host[:port] (repeatable)")
    p.add_argument("--tool", action="append", dest="tools", metavar="NAME",
                   help="serve only this tool (repeatable; default: every tool enabled by default)")
    p.add_argument("--policy", metavar="MODULE:FUNCTION",
                   help="the before_tool_call that authorizes each call (required to serve shell tools)")
    p.add_argument("--root", type=Path, default=None, help="the workspace root the tools work in (default: .)")
    p.add_argument("--tool-timeout", type=float, default=None, metavar="SECONDS",
                   help="seconds one call may run (default: the agent's default)")
    p.add_argument("--watch", type=float, default=2.0, metavar="SECONDS",
                   help="how often to look for installed or removed plugins (0: never)")
    p.add_argument("--header-timeout", type=float, default=DEFAULT_HEADER_TIMEOUT, metavar="SECONDS",
                   help="with --http: seconds a connection has to send a request's headers, then 408 and closed "
                        f"(default: {DEFAULT_HEADER_TIMEOUT:g})")
    p.add_argument("--body-timeout", type=float, default=DEFAULT_BODY_TIMEOUT, metavar="SECONDS",
                   help="with --http: seconds a request's body may stall, then 408 and closed "
                        f"(default: {DEFAULT_BODY_TIMEOUT:g})")
    p.add_argument("--max-connections", type=int, default=DEFAULT_MAX_CONNECTIONS, metavar="N",
                   help="with --http: connections open at once, kept under the open-file limit; past it the one "
                        "waiting longest for its headers is closed, or 503 when all are served "
                        f"(default: {DEFAULT_MAX_CONNECTIONS})")
    p.add_argument("--page-size", type=int, default=DEFAULT_PAGE_SIZE, metavar="N",
                   help="the most tools (resources, prompts) one list answer holds; the rest follow by cursor "
                        f"(default: {DEFAULT_PAGE_SIZE})")
    p.add_argument("--max-message-bytes", type=int, default=DEFAULT_MAX_FRAME_BYTES, help=argparse.SUPPRESS)
    return p


def main(argv: Sequence[str]) -> int:
    """Run ``agentkit mcp serve ARGV``; the exit code (2: bad usage, 1: could not serve)."""
    args = parser().parse_args(list(argv))
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="agentkit mcp serve: %(message)s")
    try:
        api_key = _api_key(args)
        limits = _limits(args)
        policy = _load_policy(args.policy) if args.policy else None
        server = _build(args, policy)
    except UsageError as exc:
        print(f"agentkit mcp serve: error: {exc}", file=sys.stderr)
        return 2
    try:
        asyncio.run(_serve(server, args, api_key, limits))
    except KeyboardInterrupt:
        pass
    except OSError as exc:  # the port is taken, the address is not ours...
        print(f"agentkit mcp serve: error: {exc}", file=sys.stderr)
        return 1
    return 0


class UsageError(Exception):
    """Options that cannot work together; the message names the fix."""


def _api_key(args: argparse.Namespace) -> str | None:
    if not args.http:
        if args.no_auth:
            raise UsageError("--no-auth is an --http option: stdio is reached only by the process that started it")
        return None
    if args.no_auth:
        if args.host not in LOOPBACK_HOSTS:
            raise UsageError(f"--no-auth is refused on {args.host}: it is for loopback addresses only "
                             f"({', '.join(sorted(LOOPBACK_HOSTS))}); set {args.api_key_env} instead")
        logging.getLogger("agentkit_mcp_server").warning(
            "WARNING: serving WITHOUT AUTHENTICATION (--no-auth): any local process can call the tools")
        return None
    key = os.environ.get(args.api_key_env, "").strip()
    if not key:
        raise UsageError(f"--http needs an API key: set {args.api_key_env} to a long random value "
                         "(clients send it as 'Authorization: Bearer KEY'), or pass --no-auth on a loopback address")
    if len(key) < MIN_API_KEY_CHARS:  # a short key falls to guessing over a fast local connection
        raise UsageError(f"the API key in {args.api_key_env} has {len(key)} characters: use at least "
                         f"{MIN_API_KEY_CHARS} random ones (for example: python -c 'import secrets; "
                         "print(secrets.token_urlsafe(32))')")
    return key


def _limits(args: argparse.Namespace) -> HttpLimits:
    try:
        return HttpLimits(header_timeout=args.header_timeout, body_timeout=args.body_timeout,
                          max_connections=args.max_connections)
    except ValueError as exc:  # the message names the field; the option is what the user typed
        option = "--" + str(exc).split(" ", 1)[0].replace("_", "-")
        raise UsageError(f"{option}: {str(exc).split(' ', 1)[1]}") from None


def _load_policy(spec: str) -> Any:
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise UsageError(f"--policy {spec!r} is not MODULE:FUNCTION (for example mypolicies:before_tool_call)")
    try:
        policy = getattr(importlib.import_module(module_name), attribute)
    except ImportError as exc:
        raise UsageError(f"--policy {spec!r}: cannot import {module_name!r} ({exc})") from None
    except AttributeError:
        raise UsageError(f"--policy {spec!r}: module {module_name!r} has no {attribute!r}") from None
    if not callable(policy):
        raise UsageError(f"--policy {spec!r} is not callable: it must be before_tool_call(call, arguments)")
    return policy


def _build(args: argparse.Namespace, policy: Any) -> Any:
    from ._protocol import MCPToolServer
    from ._tools import ToolServer, ToolServerError

    if args.page_size < 1:
        raise UsageError(f"--page-size must be at least 1, not {args.page_size}")
    options: dict[str, Any] = {}
    if args.tool_timeout is not None:
        options["tool_timeout"] = args.tool_timeout
    try:
        tools = ToolServer(tools=args.tools, before_tool_call=policy, root=args.root, **options)
    except ToolServerError as exc:
        raise UsageError(str(exc)) from None
    return MCPToolServer(tools, page_size=args.page_size)


async def _serve(server: Any, args: argparse.Namespace, api_key: str | None, limits: HttpLimits) -> None:
    from ._watch import watch_plugins

    watcher = asyncio.ensure_future(watch_plugins(server, args.watch)) if args.watch > 0 else None
    try:
        if args.http:
            from ._serve import serve_http

            def ready(url: str) -> None:
                print(f"agentkit mcp serve: listening on {url}", file=sys.stderr, flush=True)

            await serve_http(server, host=args.host, port=args.port, api_key=api_key,
                             allowed_origins=args.allow_origin, on_ready=ready, limits=limits)
        else:
            from ._stdio import serve_stdio

            await serve_stdio(server, max_frame_bytes=args.max_message_bytes, max_depth=DEFAULT_MAX_DEPTH)
    finally:
        if watcher is not None:
            watcher.cancel()
