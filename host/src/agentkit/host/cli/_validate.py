"""``agentkit validate-plugins``: the import lint and the conformance suite, per plugin.

The work is done by ``agentkit-conformance`` (which runs ``agentkit-lint``),
imported only when this command runs: the host never needs either to run an
agent. Each plugin is checked in its own process, several at once; its line is
printed as soon as it is done (so in the order the plugins finish), then the
summary and every failure with its fix. On a terminal a status line below the
plugins' lines counts them down.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, TextIO

from agentkit.plugin_api.errors import UsageError

if TYPE_CHECKING:
    from agentkit.conformance import PluginReport


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "validate-plugins",
        description="Run the import lint and the conformance suite over every installed plugin (or the "
        "ones named, or the project in --path), each in its own process.",
    )
    parser.add_argument("names", nargs="*", help="plugins to check (entry-point or distribution names); default: all")
    parser.add_argument("--path", metavar="DIR", help="check the plugin project in DIR (its pyproject.toml) instead")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--timeout", type=float, default=120.0, metavar="SECONDS",
                        help="give up on a plugin whose checks take longer (default: 120)")
    parser.add_argument("--jobs", "-j", type=int, metavar="N",
                        help="check N plugins at once (default: one per CPU)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        import agentkit.conformance as conformance
    except ImportError as exc:
        raise UsageError(
            f"validate-plugins needs the conformance suite, which is not installed ({exc.name}): "
            "pip install agentkit-conformance"
        ) from exc
    if args.path and args.names:
        raise UsageError("pass plugin names or --path DIR, not both")
    if args.timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    targets = conformance.path_targets(args.path) if args.path else conformance.installed_targets(args.names)
    # With --json stdout carries the document alone; the countdown, if any, goes to stderr.
    progress = Progress(len(targets), sys.stderr if args.json else sys.stdout, lines=not args.json)
    try:
        reports = conformance.validate(targets, timeout=args.timeout, jobs=args.jobs, on_report=progress.done)
    finally:
        progress.close()
    failed = [report for report in reports if not report.ok]
    if args.json:
        print(json.dumps({
            "plugins": [report.to_dict() for report in reports],
            "passed": len(reports) - len(failed),
            "failed": len(failed),
        }, indent=2))
    else:
        if not reports:
            print("No plugins installed: nothing to validate (see 'agentkit plugins').")
        print(conformance.format_summary(reports), end="")
    return 1 if failed else 0


class Progress:
    """Each plugin's line as soon as it is done and, on a terminal, a status line counting them."""

    def __init__(self, total: int, stream: TextIO, *, lines: bool = True) -> None:
        self.total, self.finished = total, 0
        self.stream, self.lines = stream, lines
        self.terminal = total > 0 and stream.isatty()
        self._shown = False
        self._status()

    def done(self, report: PluginReport) -> None:
        from agentkit.conformance import summary_line

        self._clear()
        self.finished += 1
        if self.lines:
            self.stream.write(summary_line(report) + "\n")
        self._status()

    def close(self) -> None:
        self._clear()
        self.stream.flush()

    def _status(self) -> None:
        if self.terminal and self.finished < self.total:
            self.stream.write(f"[{self.finished}/{self.total}] checking plugins...")
            self._shown = True
        self.stream.flush()

    def _clear(self) -> None:
        if self._shown:
            self.stream.write("\r\x1b[K")
            self._shown = False
