"""``agentkit mcp ...``: contributed to the ``agentkit`` command (docs/decisions/0017)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

USAGE = """usage: agentkit mcp {add,remove,list,serve} ...

  add      add a server to agentkit.toml
  remove   remove a server from agentkit.toml
  list     list the configured servers (--check connects to each)
  serve    serve the installed tools over MCP
"""


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``agentkit mcp ARGV``; the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, end="")
        return 0 if argv else 2
    if argv[0] == "serve":
        from .server.cli import main as serve

        return serve(argv[1:])
    print(f"agentkit mcp: error: unknown subcommand {argv[0]!r} (see 'agentkit mcp --help')", file=sys.stderr)
    return 2
