"""The ``agentkit`` command.

Exit codes: 0 success, 1 a failure of the work, 2 a usage or configuration
error. Bad input gets one line naming the fix, never a traceback. Plugins are
loaded only by the commands that need them, so ``--help`` always works.

Each command lives in a module of its own that is imported only when that
command is named: ``agentkit --help`` costs argparse and the table below, not
the loop's imports.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module

# typing is kept out of `agentkit --help` and `agentkit plugins`: `python -X importtime` puts
# `import typing` after agentkit.host.cli (9 ms) at 2.2-2.4 ms more. The flag is spelled out, as
# type checkers honour it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn

    _SubParsers = argparse._SubParsersAction[argparse.ArgumentParser]
else:
    _SubParsers = argparse._SubParsersAction

#: Each command: the module that defines it (its ``add_parser`` and handler), and its line in ``--help``.
COMMANDS: dict[str, tuple[str, str]] = {
    "plugins": ("_plugins_cmd", "list installed plugins; --check loads them and says what failed"),
    "tools": ("_tools_cmd", "list the tools installed plugins provide"),
    "tool": ("_tools_cmd", "work with one tool"),
    "models": ("_models_cmd", "list the models the installed providers know: prices, limits, capabilities"),
    "skills": ("_skills_cmd", "list and show the skills an agent would have"),
    "validate-plugins": ("_validate", "lint and conformance-check plugins; exit 1 if any fails"),
    "new-plugin": ("_new_plugin", "create a plugin distribution from the template"),
    "demo": ("_demo", "watch the agent loop work against a scripted model"),
    "run": ("_run", "run one task against a model with the installed tools"),
    "sessions": ("_sessions_cmd", "list, show, fork and export stored sessions"),
    "artifacts": ("_artifacts_cmd", "list and delete the artifacts kept; reap those of runs that died"),
    "rpc": ("_rpc_cmd", "drive agents from another program: NDJSON requests on stdin, events on stdout"),
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        from agentkit.plugin_api.errors import UsageError

        raise UsageError(f"{message} (see '{self.prog} --help')")


class _Commands(_SubParsers):
    """The subcommands, each taking its ``--help`` line from :data:`COMMANDS`."""

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        if "help" not in kwargs:
            kwargs["help"] = COMMANDS[name][1]
        return super().add_parser(name, **kwargs)


class _Version(argparse.Action):
    """``--version``: the installed version, read from the metadata only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: str = "show the version and exit") -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> NoReturn:
        from agentkit.host import __version__

        print(f"agentkit-host {__version__}")  # to stdout, as argparse's own version action does
        parser.exit()


def _named_command(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names, if any: the first word, unless an option that ends the parse comes first."""
    for arg in argv:
        if arg in ("-h", "--help", "--version"):
            return None
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser for ``argv``: the named command in full, the others by name and help line only.

    Without ``argv``, every command in full (as a reference, or for tests).
    """
    parser = _Parser(prog="agentkit", description="Run agents and inspect the plugins they use.")
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser, action=_Commands)
    named = _named_command(argv) if argv is not None else None
    modules = dict.fromkeys(module for module, _ in COMMANDS.values()) if argv is None else \
        ([COMMANDS[named][0]] if named else [])
    for module in modules:
        import_module(f".{module}", __name__).add_parser(commands)
    for name in COMMANDS:  # the others: listed in --help, never chosen by this argv, so never parsed
        if name not in commands.choices:
            commands.add_parser(name)
    if not named:  # a help screen: the commands plugins contribute, listed from their metadata
        from ._contributed import contributed_commands, help_line

        for name, ep in sorted(contributed_commands(list(COMMANDS)).items()):
            commands.add_parser(name, help=help_line(ep))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from agentkit.plugin_api.errors import UsageError

    from ..errors import SessionError

    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        if argv and argv[0] not in COMMANDS and not argv[0].startswith("-"):
            from ._contributed import contributed_commands, run

            contributed = contributed_commands(list(COMMANDS))
            if argv[0] in contributed:
                return run(argv[0], contributed[argv[0]], argv[1:])
        parser = build_parser(argv)
        args = parser.parse_args(argv)
        if not getattr(args, "handler", None):
            parser.print_help()
            return 2
        return int(args.handler(args) or 0)
    except UsageError as exc:
        print(f"agentkit: error: {_shown(str(exc))}", file=sys.stderr)
        return 2
    except SessionError as exc:  # a store that cannot be reached or read: the work failed, say why
        print(f"agentkit: error: {_shown(str(exc))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("agentkit: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1


def _shown(message: str) -> str:
    """An error message on one line with its controls shown: it may quote a plugin, a file or a model."""
    from .._terminal import visible_line

    return visible_line(message)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
