"""The ``agentkit`` command.

Exit codes: 0 success, 1 a failure of the work, 2 a usage or configuration
error. Bad input gets one line naming the fix, never a traceback. Plugins are
loaded only by the commands that need them, so ``--help`` always works.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from agentkit.plugin_api.errors import UsageError

from . import (
    _demo,
    _new_plugin,
    _plugins_cmd,
    _run,
    _sessions_cmd,
    _skills_cmd,
    _tools_cmd,
    _validate,
)

COMMANDS = (_plugins_cmd, _tools_cmd, _skills_cmd, _validate, _new_plugin, _demo, _run, _sessions_cmd)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="agentkit", description="Run agents and inspect the plugins they use.")
    from agentkit.host import __version__

    parser.add_argument("--version", action="version", version=f"agentkit-host {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for module in COMMANDS:
        module.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "handler", None):
            parser.print_help()
            return 2
        return int(args.handler(args) or 0)
    except UsageError as exc:
        print(f"agentkit: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("agentkit: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
