"""``agentkit plugins``: what is installed; with ``--check``, what loaded, what failed and why.

The listing reads distribution metadata only and imports no plugin, so it
answers as fast as ``--help`` however many plugins are installed. ``--check``
loads and registers every plugin, as an agent would, to show each one's
hooks, what it provides and whether it loaded (docs/decisions/0014).
"""

from __future__ import annotations

import argparse
import json
import os

# Kept out of `agentkit --help` and `agentkit plugins`, as in agentkit.host.cli (typing: 2.2-2.4 ms
# more after the CLI's 9 ms, by `python -X importtime`); type checkers honour the flag.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CHECK_HINT = "Run 'agentkit plugins --check' to load them: their hooks, what they provide, and whether they load."


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("plugins")
    parser.add_argument("--check", action="store_true",
                        help="load and register every plugin: show its hooks, what it provides, and why it failed")
    parser.add_argument("--json", action="store_true", help="print the list as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    return _check(args.json) if args.check else _list(args.json)


def installed() -> list[dict[str, Any]]:
    """Every installed plugin as metadata describes it, without importing any: the default ``--json`` rows.

    Keys: ``name``, ``status`` (``enabled``, or ``disabled`` by the env
    switches), ``categories``, ``distribution``, ``version``, ``module`` (the
    entry point's object), ``reason`` (why it is disabled) and
    ``entry_points`` (``group``, ``name``, ``value`` of each).
    """
    from .._entry_points import listed_entry_points, switched_on

    rows = []
    for name, entries in sorted(listed_entry_points().items()):
        kept, why_off = switched_on(name, entries, os.environ)
        first = min(kept or entries, key=lambda entry: (entry[1].value, entry[0]))[1]  # the one the loader loads
        dist = first.dist
        rows.append({
            "name": name,
            "status": "enabled" if kept else "disabled",
            "categories": sorted({category for category, _ in entries}),
            "distribution": dist.name if dist else None,
            "version": dist.version if dist else None,
            "module": first.value,
            "reason": why_off,
            "entry_points": [{"group": ep.group, "name": ep.name, "value": ep.value} for _, ep in entries],
        })
    return rows


def _list(as_json: bool) -> int:
    rows = installed()
    if as_json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print("No agentkit plugins are installed.")
        return 0
    from .._terminal import visible_line as shown  # names and values from metadata anyone can write

    for row in rows:
        print(shown(f"{row['name']}  {row['distribution']} {row['version']}  [{', '.join(row['categories'])}]  "
                    f"{row['status']}"))
        for ep in row["entry_points"]:
            print(f"    entry point: {shown(ep['group'])}: {shown(ep['name'])} = {shown(ep['value'])}")
        if row["reason"]:
            print(f"    reason: {shown(row['reason'])}")
    print(CHECK_HINT)
    return 0


def _check(as_json: bool) -> int:
    from .._plugins import PluginHost
    from .._terminal import (
        visible_line as shown,  # names and messages from plugins anyone can publish
    )
    from . import COMMANDS
    from ._contributed import refused_commands

    host = PluginHost.discover()
    refused = refused_commands(list(COMMANDS))
    records = sorted(host.records.values(), key=lambda record: record.name)
    if as_json:
        print(json.dumps([record.to_dict() for record in records], indent=2))
        return 0
    if not records and not refused:
        print("No agentkit plugins are installed.")
        return 0
    for record in records:
        where = f"{record.distribution} {record.version}" if record.distribution else "(registered in code)"
        print(shown(f"{record.name}  {where}  [{', '.join(record.categories)}]  {record.status}"))
        if record.hooks:
            print(f"    hooks: {shown(', '.join(record.hooks))}")
        if record.contributions:
            print(f"    provides: {shown(', '.join(record.contributions))}")
        if record.reason:
            print(f"    reason: {shown(record.reason)}")
        for collision in record.collisions:
            print(f"    collision: {shown(collision)}")
        for warning in record.warnings:
            print(f"    warning: {shown(warning)}")
    for problem in refused:
        print(f"command refused: {shown(problem)}")
    return 0
