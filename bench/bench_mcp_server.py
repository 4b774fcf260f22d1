"""MCP server: connect time per era, and tools/call round trips, of ``agentkit mcp serve`` beside the SDK's own server.

Both servers serve one ``echo`` tool over stdio, spawned as a client's
configuration spawns them, and are driven by the ``mcp`` SDK's client: in
``auto`` mode (the 2026-07-28 ``server/discover`` probe) and pinned ``legacy``
mode (the 2025-11-25 ``initialize`` handshake). Connect time is from spawning
the process to a connected client, the median of the rounds; the rounds take
turns between the servers, so a machine that slows down weighs on both alike.
Round trips are sequential ``tools/call`` per second on one connection. Each
figure of ours is also given as a ratio to the SDK server's in the same run.
Both servers start once, unmeasured, before the rounds, without
``PYTHONDONTWRITEBYTECODE``: a server's first start after installing compiles
its modules, every later one reads them, and the later one is what a client
meets (with the variable set, each start would compile everything again, a
cost no installed server pays).

Run: ``.venv/bin/python bench/bench_mcp_server.py`` (``BENCH_QUICK=1``: fewer rounds).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

AGENTKIT = str(Path(sys.executable).parent / "agentkit")
QUICK = os.environ.get("BENCH_QUICK") == "1"
ROUNDS = 3 if QUICK else 7
CALLS = 100 if QUICK else 500

PLUGIN = '''
from agentkit.plugin_api import ExecutionMode, Tool, hookimpl


@hookimpl
def agentkit_register_tools(register):
    register(Tool(name="echo", description="Echo the text.", execution_mode=ExecutionMode.INLINE,
                  input_schema={"type": "object", "properties": {"text": {"type": "string"}}},
                  handler=lambda arguments, context: arguments["text"]))
'''

SDK_SERVER = '''
from mcp.server.mcpserver import MCPServer

server = MCPServer("sdk")


@server.tool()
def echo(text: str) -> str:
    """Echo the text."""
    return text


server.run()
'''


def servers(site: Path) -> dict[str, StdioServerParameters]:
    (site / "bench_echo.py").write_text(PLUGIN)
    info = site / "bench_echo-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: bench-echo\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[agentkit.tools]\nbench_echo = bench_echo\n")
    env = {**os.environ, "PYTHONPATH": str(site), "AGENTKIT_LOAD_PLUGINS": "bench_echo,agentkit-tools-mcp"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    (site / "sdk_server.py").write_text(SDK_SERVER)
    return {
        "agentkit mcp serve": StdioServerParameters(command=AGENTKIT, args=["mcp", "serve", "--watch", "0"], env=env),
        "mcp SDK MCPServer": StdioServerParameters(command=sys.executable, args=[str(site / "sdk_server.py")], env=env),
    }


async def connect_time(params: StdioServerParameters, mode: str) -> float:
    started = time.perf_counter()
    async with Client(params, mode=mode) as client:
        elapsed = time.perf_counter() - started
        await client.list_tools()
    return elapsed


async def round_trips(params: StdioServerParameters, mode: str) -> float:
    async with Client(params, mode=mode) as client:
        await client.call_tool("echo", {"text": "warm"})
        started = time.perf_counter()
        for index in range(CALLS):
            await client.call_tool("echo", {"text": str(index)})
        return CALLS / (time.perf_counter() - started)


GOAL_CONNECT = 1.1


def goal_line(what: str, ratio: float, goal: str, met: bool) -> str:
    return (f"  {what}: {ratio:.2f}x (goal {goal}x): {'met' if met else 'not met'}   "
            f"[load {os.getloadavg()[0]:.1f}]")


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        params = servers(Path(scratch))
        for server in params.values():  # compiles and caches each server's modules: see the docstring
            anyio.run(connect_time, server, "auto")
        lines = []
        for mode, era in (("auto", "2026-07-28"), ("legacy", "2025-11-25")):
            times: dict[str, list[float]] = {name: [] for name in params}
            for _ in range(ROUNDS):
                for name, server in params.items():
                    times[name].append(anyio.run(connect_time, server, mode))
            rates = {name: anyio.run(round_trips, server, mode) for name, server in params.items()}
            ours, sdk = (statistics.median(times[name]) for name in params)
            ours_rate, sdk_rate = rates.values()
            print(f"   {era} ({mode}): connect {ours * 1000:.0f} ms (SDK server {sdk * 1000:.0f} ms, "
                  f"ratio {ours / sdk:.2f}); tools/call {ours_rate:.0f}/s (SDK server {sdk_rate:.0f}/s, "
                  f"ratio {ours_rate / sdk_rate:.2f})")
            lines.append(goal_line(f"MCP server connect, {era} ({mode}), agentkit/SDK server", ours / sdk,
                                   f"<= {GOAL_CONNECT:g}", ours / sdk <= GOAL_CONNECT))
        print("\n".join(lines))


if __name__ == "__main__":
    main()
