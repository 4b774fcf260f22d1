"""``python -m agentkit.lint DIST_OR_PATH ...``: lint plugins and print the report.

Exit status: 0 every plugin kept, 1 any plugin broken, 2 a usage error (one line on
stderr, never a traceback).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from ._errors import LintUsageError
from ._findings import LintReport
from ._lint import lint_distribution, lint_path
from ._report import format_report

EXIT_KEPT, EXIT_BROKEN, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One line naming the fix, instead of argparse's usage block.
        raise LintUsageError(f"{message}; see python -m agentkit.lint --help")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m agentkit.lint",
        description="Import lint for agentkit plugins: reads source, never imports it.",
    )
    parser.add_argument(
        "targets",
        nargs="+",
        metavar="DIST_OR_PATH",
        help="an installed distribution name, or a source/package directory "
        "(anything containing a path separator or naming an existing directory)",
    )
    parser.add_argument(
        "--allow",
        action="append",
        default=[],
        metavar="MODULE",
        help="a module the plugins may import regardless of the rules (repeatable); "
        "an allowance that excuses nothing is an error",
    )
    parser.add_argument("--json", action="store_true", help="print the reports as JSON")
    return parser


def _is_path(target: str) -> bool:
    return "/" in target or "\\" in target or target.startswith(".") or Path(target).is_dir()


def lint_target(target: str, allow: Sequence[str] = ()) -> LintReport:
    """Lint ``target`` as a path when it looks like one, else as a distribution name."""
    if _is_path(target):
        return lint_path(target, allow=allow)
    return lint_distribution(target, allow=allow)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    try:
        args = _parser().parse_args(argv)
        reports = [lint_target(target, args.allow) for target in args.targets]
    except LintUsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        payload = {
            "kept": sum(r.ok for r in reports),
            "broken": sum(not r.ok for r in reports),
            "plugins": [r.to_dict() for r in reports],
        }
        print(json.dumps(payload, indent=2))
    else:
        sys.stdout.write(format_report(reports))
    return EXIT_KEPT if all(r.ok for r in reports) else EXIT_BROKEN


if __name__ == "__main__":
    sys.exit(main())
