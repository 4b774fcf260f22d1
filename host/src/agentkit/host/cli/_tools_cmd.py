"""``agentkit tools`` and ``agentkit tool run``: see and try tools without a model."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentkit.plugin_api import Outcome, Project, SessionInfo, ToolResultMessage, ToolUseBlock
from agentkit.plugin_api.errors import UsageError

from .._terminal import visible_line

if TYPE_CHECKING:
    from .._plugins import PluginHost


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    listing = commands.add_parser("tools")
    listing.add_argument("--json", action="store_true", help="print the list as JSON")
    listing.add_argument("--root", default=".", help="the project whose tools to list (default: .)")
    listing.add_argument("--trust-project", action="store_true",
                         help="trust the project: list the tools of the MCP servers of its agentkit.toml too")
    listing.set_defaults(handler=list_tools)

    tool = commands.add_parser("tool")
    actions = tool.add_subparsers(dest="action", metavar="ACTION", parser_class=type(tool))
    run = actions.add_parser("run", help="run a tool once, through the same path the agent uses")
    run.add_argument("name", help="the tool's name (see 'agentkit tools')")
    run.add_argument("--args", default="{}", help="the arguments as a JSON object (default: {})")
    run.add_argument("--root", default=".", help="the workspace root the tool must stay inside (default: .)")
    run.set_defaults(handler=run_tool)
    tool.set_defaults(handler=lambda args: tool.error("say what to do: 'agentkit tool run NAME'"))


def list_tools(args: argparse.Namespace) -> int:
    from .._plugins import PluginHost
    from .support import open_project

    root = Path(args.root).expanduser()
    if not root.is_dir():
        raise UsageError(f"--root {args.root!r} is not a directory")
    host = PluginHost.discover(project=open_project(root, args.trust_project))
    rows: list[dict[str, Any]] = [
        {
            "name": tool.name,
            "plugin": host.plugin_of("tool", tool.name),
            "claimed_by": [host.plugin_of("tool", tool.name)],
            "execution_mode": tool.execution_mode.value,
            "default_enabled": tool.default_enabled,
            "description": tool.description,
            "input_schema": tool.input_schema,
        }
        for tool in host.tools.values()
    ]
    contested = host.registry.contested("tool")
    rows += [{"name": name, "plugin": None, "claimed_by": plugins} for name, plugins in contested.items()]
    rows.sort(key=lambda row: row["name"])
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print("No tools: install a tool plugin (see 'agentkit plugins').")
    for row in rows:
        if row["plugin"] is None:
            print(visible_line(f"{row['name']}  (not served: {_collision(row['name'], row['claimed_by'])})"))
            continue
        flags = [row["execution_mode"]] + ([] if row["default_enabled"] else ["opt-in"])
        summary = row["description"].strip().splitlines()[0] if row["description"].strip() else ""
        print(visible_line(f"{row['name']}  ({row['plugin']}; {', '.join(flags)})  {summary}"))
    return 0


def _collision(name: str, plugins: list[str]) -> str:
    return (f"plugins {', '.join(map(repr, plugins))} each register a tool {name!r}, so neither serves it; "
            "disable one with AGENTKIT_DISABLE_PLUGINS or uninstall it")


def _missing(host: PluginHost, name: str) -> str:
    """Why there is no tool ``name``, naming the plugin to blame when there is one."""
    contested = host.registry.contested("tool").get(name)
    if contested:
        return _collision(name, contested)
    for record in sorted(host.records.values(), key=lambda record: record.name):
        if record.status == "failed" and f"tool:{name}" in record.withdrawn:
            return f"tool {name!r} is provided by plugin {record.name!r}, which failed: {record.reason}"
    known = ", ".join(sorted(host.tools)) or "none installed"
    failed = sorted(record.name for record in host.records.values() if record.status == "failed")
    hint = f"; plugins that failed to load: {', '.join(failed)} (see 'agentkit plugins --check')" if failed else ""
    return f"no tool named {name!r} (tools: {known}){hint}"


def run_tool(args: argparse.Namespace) -> int:
    # The loop's machinery, imported only when a tool runs: 'agentkit --help' stays light.
    import asyncio

    from .._batch import ToolBatch
    from .._batch_inputs import BatchServices, CallPolicy
    from .._hooks import HookRunner
    from .._plugins import PluginHost
    from .._stopping.interrupt import run_interruptibly
    from .._stopping.run_stop import RunStop
    from ..wire import json as strict_json
    from ..wire.errors import WireDecodeError

    try:  # the decoder the loop uses: deep nesting is an error here, never a RecursionError
        strict_json.loads(args.args)
    except WireDecodeError as exc:
        raise UsageError(f"--args is not valid JSON ({exc}): pass a JSON object") from exc
    root = Path(args.root).expanduser()
    if not root.is_dir():
        raise UsageError(f"--root {args.root!r} is not a directory")
    host = PluginHost.discover(project=Project.open(root, trust=False))  # the project's own servers: not here
    if args.name not in host.tools:
        raise UsageError(_missing(host, args.name))
    hooks = HookRunner(host.hook_callers)
    stop = RunStop()  # Ctrl-C stops the call through the batch's own abort path: exit 130, no traceback
    batch = ToolBatch(
        tools=host.tools,
        session=SessionInfo("cli", "none", root.resolve()),
        cancel=stop.cancel,
        emit=lambda event: None,
        stop=stop,
        # The host's defaults, with no before_tool_call: the person at the terminal is the embedder,
        # and asked for this call.
        policy=CallPolicy(before_tool_call=None),
        services=BatchServices(hooks=hooks),
    )
    call = ToolUseBlock("cli-1", args.name, args.args)  # checked like the model's: schema, depth, NaN

    async def run_call() -> list[ToolResultMessage]:
        stop.bind(asyncio.get_running_loop())
        return (await batch.run([call]))[0]

    [result], interrupted = run_interruptibly(run_call(), lambda: stop.request(Outcome.ABORTED, "Ctrl-C", on_loop=True),
                                              exiting=True)
    if interrupted:
        print("agentkit: aborted", file=sys.stderr)
        return 130
    print(json.dumps({"tool": args.name, "is_error": result.is_error, "result": json.loads(result.text)}, indent=2))
    for problem in hooks.problems:
        print(f"warning: {visible_line(problem)}")
    return 1 if result.is_error else 0
