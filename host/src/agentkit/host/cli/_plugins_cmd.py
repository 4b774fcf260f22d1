"""``agentkit plugins``: what is installed, what loaded, what failed and why."""

from __future__ import annotations

import argparse
import json


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("plugins")
    parser.add_argument("--json", action="store_true", help="print the list as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from .._plugins import PluginHost

    host = PluginHost.discover()
    records = sorted(host.records.values(), key=lambda record: record.name)
    if args.json:
        print(json.dumps([record.to_dict() for record in records], indent=2))
        return 0
    if not records:
        print("No agentkit plugins are installed.")
        return 0
    for record in records:
        where = f"{record.distribution} {record.version}" if record.distribution else "(registered in code)"
        print(f"{record.name}  {where}  [{', '.join(record.categories)}]  {record.status}")
        if record.hooks:
            print(f"    hooks: {', '.join(record.hooks)}")
        if record.contributions:
            print(f"    provides: {', '.join(record.contributions)}")
        if record.reason:
            print(f"    reason: {record.reason}")
        for collision in record.collisions:
            print(f"    collision: {collision}")
        for warning in record.warnings:
            print(f"    warning: {warning}")
    return 0
