"""``agentkit validate-plugins``: the import lint and the conformance suite, per plugin.

The work is done by ``agentkit-conformance`` (which runs ``agentkit-lint``),
imported only when this command runs: the host never needs either to run an
agent. Each plugin is checked in its own process; one line per plugin, the
summary, then every failure with its fix.
"""

from __future__ import annotations

import argparse
import json

from agentkit.plugin_api.errors import UsageError


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
    targets = conformance.path_targets(args.path) if args.path else conformance.installed_targets(args.names)
    reports = conformance.validate(targets, timeout=args.timeout)
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
        print(conformance.format_reports(reports), end="")
    return 1 if failed else 0
