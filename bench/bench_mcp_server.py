"""MCP server: connect time per era, and tools/call round trips, of ``agentkit mcp serve`` beside the SDK's own server.

Both servers serve one ``echo`` tool over stdio, spawned as a client's
configuration spawns them, and are driven by the ``mcp`` SDK's client: in
``auto`` mode (the 2026-07-28 ``server/discover`` probe) and pinned ``legacy``
mode (the 2025-11-25 ``initialize`` handshake). Connect time is from spawning
the process to a connected client, the median of the rounds; the rounds take
turns between the servers, so a machine that slows down weighs on both alike.
Beside it, the CPU time the server process had spent (user and system, from
``/proc/<pid>/stat``) at the moment the client is connected: the goal is judged
on that figure. A loaded machine stretches wall time by whatever the scheduler
gives the other processes (two runs of the same code measured 1.06x and 1.63x);
the CPU a server spends to start and answer the handshake is its own, as the
MCP client's benchmark reads its rate per CPU second.
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


TICKS = os.sysconf("SC_CLK_TCK")


def server_cpu() -> float:
    """CPU seconds (user + system) of this process's newest live child: the server the client just spawned."""
    spent = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as file:
                fields = file.read().rpartition(")")[2].split()  # after the command name, which may hold spaces
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and fields[0] != "Z":  # the parent's pid; not a finished process
            spent.append((int(fields[19]), (int(fields[11]) + int(fields[12])) / TICKS))  # start, utime + stime
    if not spent:
        raise RuntimeError("the server process was not found among this process's children")
    return max(spent)[1]


async def connect_time(params: StdioServerParameters, mode: str) -> tuple[float, float]:
    """Wall time from spawning to a connected client, and the server's CPU time at that moment."""
    started = time.perf_counter()
    async with Client(params, mode=mode) as client:
        elapsed = time.perf_counter() - started
        cpu = server_cpu()
        await client.list_tools()
    return elapsed, cpu


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
            cpus: dict[str, list[float]] = {name: [] for name in params}
            for _ in range(ROUNDS):
                for name, server in params.items():
                    wall, cpu = anyio.run(connect_time, server, mode)
                    times[name].append(wall)
                    cpus[name].append(cpu)
            rates = {name: anyio.run(round_trips, server, mode) for name, server in params.items()}
            ours, sdk = (statistics.median(times[name]) for name in params)
            ours_cpu, sdk_cpu = (statistics.median(cpus[name]) for name in params)
            ours_rate, sdk_rate = rates.values()
            print(f"   {era} ({mode}): connect {ours * 1000:.0f} ms wall, {ours_cpu * 1000:.0f} ms server CPU "
                  f"(SDK server {sdk * 1000:.0f} ms wall, {sdk_cpu * 1000:.0f} ms CPU; ratio {ours / sdk:.2f} wall, "
                  f"{ours_cpu / sdk_cpu:.2f} CPU); tools/call {ours_rate:.0f}/s (SDK server {sdk_rate:.0f}/s, "
                  f"ratio {ours_rate / sdk_rate:.2f})")
            lines.append(goal_line(f"MCP server connect, {era} ({mode}), agentkit/SDK server CPU until connected",
                                   ours_cpu / sdk_cpu, f"<= {GOAL_CONNECT:g}", ours_cpu / sdk_cpu <= GOAL_CONNECT))
        print("\n".join(lines))


if __name__ == "__main__":
    main()
