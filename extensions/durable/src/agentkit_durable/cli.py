"""``agentkit runs ACTION``: the durable runs' command, contributed through the ``agentkit.commands`` entry points.

Each action lives in a module of its own, imported only when it is named
(``SUBCOMMANDS``), so ``agentkit runs --help`` imports no DBOS. An action
takes its arguments and returns the exit code: a
:class:`~agentkit.plugin_api.errors.UsageError` is the ``agentkit`` command's
(one line, exit 2); a :class:`~agentkit_durable.errors.DurableError` (the
database failed us) is printed here, one line, exit 1.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from importlib import import_module

from agentkit.plugin_api.errors import UsageError

#: Each action of ``agentkit runs``: ``"module:function"``, the module relative to this package.
SUBCOMMANDS: dict[str, str] = {
    "list": "_cmd_list:main",
    "show": "_cmd_show:main",
    "cancel": "_cmd_cancel:main",
}


def runs_main(argv: Sequence[str]) -> int:
    """``agentkit runs ACTION ARGS``: run the action's module, or say which actions there are."""
    argv = list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(_usage(), file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    action, rest = argv[0], argv[1:]
    if action not in SUBCOMMANDS:
        raise UsageError(f"'agentkit runs' has no action {action!r}: use one of {', '.join(SUBCOMMANDS)}")
    return _run(_load(action), rest)


def _load(action: str) -> Callable[[list[str]], int]:
    module, _, function = SUBCOMMANDS[action].partition(":")
    return getattr(import_module(f"{__package__}.{module}"), function)  # type: ignore[no-any-return]


def _run(action: Callable[[list[str]], int], argv: list[str]) -> int:
    from .errors import DurableError

    try:
        return int(action(argv) or 0)
    except DurableError as exc:  # the database failed us: the work failed, say why in one line
        from agentkit.host.cli.support import visible_line

        print(f"agentkit: error: {visible_line(str(exc))}", file=sys.stderr)
        return 1


def _usage() -> str:
    return (f"usage: agentkit runs {{{','.join(SUBCOMMANDS)}}} [--db URL] ...\n\n"
            "durable runs (docs/durable.md); 'agentkit runs ACTION --help' tells an action's options")
