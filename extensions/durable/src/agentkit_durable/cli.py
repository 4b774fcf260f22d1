"""``agentkit runs``: the durable runs' command, contributed through ``agentkit.commands`` (decision 0017).

``agentkit runs SUBCOMMAND ...`` imports the subcommand's module only when it is
named: :data:`SUBCOMMANDS` maps each name to ``module:function``, the function
taking the subcommand's arguments and returning the exit code.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib import import_module

from agentkit.plugin_api.errors import UsageError

__all__ = ["SUBCOMMANDS", "report_failure", "runs_main", "worker_main"]

#: ``agentkit runs NAME`` -> ``module:function`` (relative to this package), called with the rest of the arguments.
SUBCOMMANDS: dict[str, str] = {
    "resume": "._cmd_resume:main",
    "list": "._cmd_list:main",
    "show": "._cmd_show:main",
    "cancel": "._cmd_cancel:main",
    "approve": "._cmd_approve:approve",
    "deny": "._cmd_approve:deny",
    "submit": "._cmd_submit:main",
}

_USAGE = "usage: agentkit runs {" + ",".join(SUBCOMMANDS) + "} ..."


def runs_main(argv: Sequence[str] | None = None) -> int:
    """Run ``agentkit runs ARGV``; the exit code (2 for a usage error, said in one line)."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if not arguments or arguments[0] in ("-h", "--help"):
        print(_USAGE + "\n\nsubcommands: " + ", ".join(sorted(SUBCOMMANDS)) + " (see 'agentkit runs NAME --help')")
        return 0 if arguments else 2
    name, rest = arguments[0], arguments[1:]
    target = SUBCOMMANDS.get(name)
    if target is None:
        raise UsageError(f"'agentkit runs' has no subcommand {name!r}; choose one of {', '.join(sorted(SUBCOMMANDS))}")
    module_name, _, function = target.partition(":")
    from .errors import DurableError

    try:
        return int(getattr(import_module(module_name, __package__), function)(rest) or 0)
    except DurableError as exc:
        return report_failure(exc)


def report_failure(exc: Exception) -> int:
    """Say in one line that the durable runs' database failed us (the work failed: exit 1; a usage error exits 2)."""
    from agentkit.host.cli.support import visible_line

    print(f"agentkit: error: {visible_line(str(exc))}", file=sys.stderr)
    return 1


def worker_main(argv: Sequence[str] | None = None) -> int:
    """Run ``agentkit worker ARGV``; the exit code."""
    from ._cmd_worker import main
    from .errors import DurableError

    try:
        return main(list(sys.argv[1:] if argv is None else argv))
    except DurableError as exc:
        return report_failure(exc)
