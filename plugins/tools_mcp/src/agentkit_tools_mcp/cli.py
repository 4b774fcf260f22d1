"""``agentkit mcp ...``: contributed to the ``agentkit`` command (docs/decisions/0017).

``add``, ``remove`` and ``list`` edit and show the ``[[mcp.servers]]`` of
``agentkit.toml`` (the project's, or the user's with ``--user``); ``serve`` is
the server's own command line, loaded only when asked for. Errors are one
line; usage errors exit 2, failures 1.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from ._config import (
    ERAS,
    SERVER_NAME,
    McpConfigError,
    ServerConfig,
    project_config_file,
    read_servers,
    untrusted_note,
    untrusted_servers,
    user_config_file,
)

PROG = "agentkit mcp"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message} (see '{self.prog} --help')", file=sys.stderr)
        raise SystemExit(2)


class _UsageError(Exception):
    """A command line that cannot mean anything; exit 2."""


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="MCP servers' tools for agentkit agents, and agentkit's tools over MCP.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser, metavar="COMMAND")

    add = commands.add_parser("add", help="add a server to agentkit.toml",
                              usage=f"{PROG} add NAME (--url URL | -- COMMAND [ARGS...]) [options]",
                              description="Add a server. Values may name ${VARIABLES}, resolved when it starts.")
    add.add_argument("name", help="the server's name; its tools become NAME__tool")
    add.add_argument("--url", help="a streamable HTTP endpoint")
    add.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                     help="a variable a stdio server gets, beyond the reduced environment (repeatable)")
    add.add_argument("--header", action="append", default=[], metavar="KEY=VALUE",
                     help="a header each HTTP request carries (repeatable)")
    add.add_argument("--era", choices=ERAS, help="auto (the default) probes, the others pin")
    add.add_argument("--timeout", type=float, metavar="SECONDS", help="per-call deadline (default 30)")
    add.add_argument("--allow-sampling", action="store_true", help="let the server ask the embedder's model")
    add.add_argument("--user", action="store_true", help="write the user's agentkit.toml, not the project's")

    remove = commands.add_parser("remove", help="remove a server from agentkit.toml")
    remove.add_argument("name")
    remove.add_argument("--user", action="store_true", help="edit the user's agentkit.toml")

    listing = commands.add_parser("list", help="list the configured servers, their tier and trust "
                                  "(--check connects to each)")
    listing.add_argument("--check", action="store_true",
                         help="connect to each server in use: the era and version it negotiates, or why it failed")
    listing.add_argument("--trust-project", action="store_true",
                         help="trust the project: its agentkit.toml's servers are used (and checked)")

    commands.add_parser("serve", help="serve the installed tools over MCP", add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``agentkit mcp ARGV``; the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["serve"]:
        return _serve(argv[1:])
    options, server_command = _split_command(argv)
    try:
        args = _parser().parse_args(options)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    args.server_command = server_command
    try:
        return {"add": _add, "remove": _remove, "list": _list}[args.command](args)
    except _UsageError as exc:
        print(f"{PROG} {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except McpConfigError as exc:
        print(f"{PROG} {args.command}: error: {exc}", file=sys.stderr)
        return 1


def _split_command(argv: list[str]) -> tuple[list[str], list[str]]:
    """The options, and everything after ``--``: the server's command line, whatever it looks like."""
    if "--" not in argv:
        return argv, []
    split = argv.index("--")
    return argv[:split], argv[split + 1:]


def _target(args: argparse.Namespace) -> Path:
    return user_config_file() if args.user else project_config_file()


def _pairs(values: list[str], option: str) -> dict[str, str]:
    pairs = {}
    for value in values:
        key, equals, rest = value.partition("=")
        if not equals or not key:
            raise _UsageError(f"{option} {value!r}: write KEY=VALUE")
        pairs[key] = rest
    return pairs


def _add(args: argparse.Namespace) -> int:
    from ._edit import add_server

    if not re.fullmatch(SERVER_NAME, args.name):
        raise _UsageError(f"server name {args.name!r} must be letters, digits, '-' and single '_' "
                          "(it prefixes its tools as NAME__tool)")
    if args.url is None and not args.server_command:
        raise _UsageError("give --url URL, or -- COMMAND [ARGS...] after the options")
    if args.url is not None and args.server_command:
        raise _UsageError("give --url URL or -- COMMAND, not both")
    entry: dict[str, Any] = {"name": args.name}
    if args.url is not None:
        entry["url"] = args.url
    else:
        entry["command"], entry["args"] = args.server_command[0], args.server_command[1:]
    if env := _pairs(args.env, "--env"):
        entry["env"] = env
    if headers := _pairs(args.header, "--header"):
        entry["headers"] = headers
    if args.era is not None:
        entry["era"] = args.era
    if args.timeout is not None:
        entry["timeout_s"] = args.timeout
    if args.allow_sampling:
        entry["allow_sampling"] = True
    path = _target(args)
    add_server(path, entry)
    print(f"added MCP server {args.name!r} to {path}")
    if not args.user:
        print("note: a project's servers are used only with --trust-project; add it with --user to use it "
              "everywhere without", file=sys.stderr)
    return 0


def _remove(args: argparse.Namespace) -> int:
    from ._edit import remove_server

    path = _target(args)
    remove_server(path, args.name)
    print(f"removed MCP server {args.name!r} from {path}")
    return 0


def _list(args: argparse.Namespace) -> int:
    from agentkit.plugin_api import Project

    project = Project.open(Path.cwd(), trust=args.trust_project)
    for problem in project.problems:
        print(f"note: {problem}", file=sys.stderr)
    every = read_servers(project.root)  # a broken file is an error here: this command shows the configuration
    if not every:
        print(f"no MCP servers configured (add one with '{PROG} add')", file=sys.stderr)
        return 0
    in_use = {server.name: server for server in every if project.trusted or server.tier == "user"}
    if not args.check:
        for server in sorted(every, key=lambda server: (server.name, server.tier != "user")):
            print(f"{server.name}  {server.transport}  {server.era}  {_target_text(server)}  "
                  f"({_standing(server, in_use, project.trusted)})")
        return 0
    from .client._check import check_servers

    for server in untrusted_servers(every) if not project.trusted else []:
        print(untrusted_note(server), file=sys.stderr)
    failed = False
    for server, outcome in check_servers([in_use[name] for name in sorted(in_use)]):
        if isinstance(outcome, str):
            failed = True
            print(f"{server.name}  FAILED  {outcome}")
        else:
            era, version, tools = outcome
            print(f"{server.name}  ok  {era} {version}  {tools} tool(s)")
    return 1 if failed else 0


def _standing(server: ServerConfig, in_use: dict[str, ServerConfig], trusted: bool) -> str:
    """``user``, ``project, trusted``, or why the entry is not used."""
    if server.tier == "user":
        return "user" if in_use.get(server.name) is server else "user, replaced by the trusted project's entry"
    if trusted:
        return "project, trusted"
    return "project, not trusted: not used; pass --trust-project to use it"


def _target_text(server: ServerConfig) -> str:
    return server.url if server.url is not None else " ".join([server.command or "", *server.args])


def _serve(argv: list[str]) -> int:
    try:  # the server embeds the host, so it is a distribution of its own (agentkit-tools-mcp installs it)
        from agentkit_mcp_server import cli as server_cli
    except ImportError as exc:
        print(f"{PROG} serve: error: the MCP server is not installed ({exc}); "
              "install it: pip install agentkit-mcp-server", file=sys.stderr)
        return 2

    return int(server_cli.main(argv))
