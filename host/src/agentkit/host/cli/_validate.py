"""``agentkit validate-plugins``: is each installed plugin well-formed?

Each plugin is loaded through the same loader the agent uses; one line per
plugin, a summary, then what failed and how to fix it.
"""

from __future__ import annotations

import argparse
import json

from packaging.utils import canonicalize_name

from agentkit.plugin_api.errors import UsageError

from .._plugins import PluginHost, PluginRecord


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("validate-plugins", help="check installed plugins; exit 1 if any fails")
    parser.add_argument("names", nargs="*", help="plugins to check (entry-point or distribution names); default: all")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(handler=run)


def _selected(host: PluginHost, names: list[str]) -> list[PluginRecord]:
    records = sorted(host.records.values(), key=lambda record: record.name)
    if not names:
        return [record for record in records if record.status != "disabled"]
    wanted = {canonicalize_name(name) for name in names}
    chosen = [
        record
        for record in records
        if {canonicalize_name(record.name), canonicalize_name(record.distribution or "")} & wanted
    ]
    found = {canonicalize_name(n) for r in chosen for n in (r.name, r.distribution or "")}
    missing = sorted(wanted - found)
    if missing:
        raise UsageError(f"no installed plugin named {', '.join(missing)} (see 'agentkit plugins')")
    return chosen


def run(args: argparse.Namespace) -> int:
    host = PluginHost.discover()
    records = _selected(host, args.names)
    failed = [record for record in records if record.status == "failed"]
    if args.json:
        report = {
            "plugins": [
                {**record.to_dict(), "result": "FAIL" if record.status == "failed" else "PASS"} for record in records
            ],
            "passed": len(records) - len(failed),
            "failed": len(failed),
        }
        print(json.dumps(report, indent=2))
        return 1 if failed else 0
    for record in records:
        verdict = "FAIL" if record.status == "failed" else "PASS"
        where = f"{record.distribution or record.name} {record.version or ''}".strip()
        print(f"{where} [{', '.join(record.categories)}] {verdict} ({len(record.warnings)} warnings)")
    print(f"Plugins: {len(records) - len(failed)} passed, {len(failed)} failed.")
    for record in failed:
        print(f"\n{record.distribution or record.name} ({record.name}):\n  {record.reason}")
    return 1 if failed else 0
