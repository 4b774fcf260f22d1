"""The MCP client's cost: ``tools/call`` round trips over stdio through agentkit against the SDK's own client.

One server process (the SDK 2.x test server, from its own environment when it
can be built, see ``plugins/tools_mcp/tests/peers.py``) is called with
``echo`` in turns by:

* sdk: ``mcp.Client`` itself, on its own event loop;
* agentkit: the registered tool's handler, as an agent's ``run_sync`` (or
  ``agentkit run``) calls it: on the loop the tool names as its ``home_loop``,
  the connection pool's, where that run runs; the entry's deadline and
  limits, the audit record, the result mapped to a ``ToolResult``. A run on
  an embedder's own loop hops to the pool's loop and back on each call; that
  rate is printed too, without a goal.

Each round makes ``CALLS`` sequential calls with each client, one after the
other; the rates printed are each client's best round (noise only ever adds
time), and the goal's ratio is the median over the rounds of agentkit's CPU
rate over the SDK client's in the same round: on a machine others load, the
best rounds of the two can fall in different moments (the ratio of bests
moved between 0.75x and 1.2x in one hour), a round's pair cannot. Connect time per era is the median of ``CONNECTS`` fresh connections
(spawn, probe or handshake, first listing), taking turns with ``mcp.Client``
making the same connection: auto and pinned against the dual-era server, and
auto against a 1.x server (the fallback's cost). ``--quick`` (or
``BENCH_QUICK=1``) runs fewer rounds. The servers' stderr (their logging) is
sent to /dev/null while they run, so that only the figures are printed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import statistics
import sys
import time
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any

from agentkit.plugin_api import ToolContext

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "plugins" / "tools_mcp" / "tests"))

from peers import LEGACY_SDK, MODERN_SDK, PeerUnavailable, peer_python, server_script  # noqa: E402

QUICK = "--quick" in sys.argv or os.environ.get("BENCH_QUICK") == "1"
CALLS = 100 if QUICK else 300
ROUNDS = 3 if QUICK else 9
CONNECTS = 3 if QUICK else 7


def server_python(version: str) -> Path:
    try:
        return peer_python(version)
    except PeerUnavailable as exc:
        print(f"   note: {exc}; using this interpreter")
        return Path(sys.executable)


async def sdk_round(client: object) -> tuple[float, float]:
    """Wall and CPU seconds (this process, every thread) of ``CALLS`` calls."""
    started, cpu = time.perf_counter(), time.process_time()
    for n in range(CALLS):
        await client.call_tool("echo", {"text": f"call {n}"})  # type: ignore[attr-defined]
    return time.perf_counter() - started, time.process_time() - cpu


async def agentkit_round(handler: object, context: ToolContext, calls: int = CALLS) -> tuple[float, float]:
    started, cpu = time.perf_counter(), time.process_time()
    for n in range(calls):
        result = await handler({"text": f"call {n}"}, context)  # type: ignore[operator]
        assert result.ok, result
    return time.perf_counter() - started, time.process_time() - cpu


Rate = tuple[float, float]


async def round_trips(python: Path) -> tuple[list[Rate], list[Rate], list[Rate]]:
    """Each round's (wall seconds, CPU seconds) of the SDK's client, of agentkit's tool as ``run_sync``
    calls it (on its home loop), and of the same tool called from another loop (an embedder's own)."""
    from agentkit_tools_mcp._config import ServerConfig
    from agentkit_tools_mcp.client._pool import ServerPool
    from agentkit_tools_mcp.client._tools import agent_tools
    from mcp import Client, StdioServerParameters

    from agentkit.host._stopping.interrupt import home_loop

    script = str(server_script(MODERN_SDK))
    pool = ServerPool([ServerConfig(name="bench", command=str(python), args=(script,),
                                    per_session_call_limit=10**9)])
    try:
        # The test server's tool named 'dotted.name' is left out, as it should be; that line is not a figure.
        tools = {tool.name: tool for tool in agent_tools(pool, pool.list_all(), problems=lambda line: None)}
        tool = tools["bench__echo"]
        # Where Agent.run_sync runs a run that has this tool: the loop it names, which a thread of the pool runs.
        home = home_loop([tool])
        assert home is not None, "the MCP tool names no running home loop"
        # An agent hands every handler its add_tools, which is what lets an expired tool list be read again,
        # and its audit trail, which gets the call's record (the trail's own cost is the host's: none here).
        handler, context = tool.handler, ToolContext(root=REPO, add_tools=lambda *added: None,
                                                     audit=lambda kind, **fields: None)

        async def at_home(work: Coroutine[Any, Any, Rate]) -> Rate:
            # This loop waits for the whole round, as run_sync's thread waits for the run: one hop a round.
            return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, home))

        async with Client(StdioServerParameters(command=str(python), args=[script])) as client:
            await client.call_tool("echo", {"text": "warm"})
            await at_home(agentkit_round(handler, context, calls=1))
            await handler({"text": "warm"}, context)
            sdk, ours, hopping = [], [], []
            for _ in range(ROUNDS):  # in turns, so a machine that slows down weighs on both alike
                sdk.append(await sdk_round(client))
                ours.append(await at_home(agentkit_round(handler, context)))
                hopping.append(await agentkit_round(handler, context))
    finally:
        pool.close()
    return sdk, ours, hopping


def paired_cpu_ratio(ours: list[Rate], sdk: list[Rate]) -> float:
    """The median over rounds of agentkit's calls per CPU second over the SDK client's, in the same round."""
    return statistics.median(sdk_cpu / our_cpu for (_, our_cpu), (_, sdk_cpu) in zip(ours, sdk, strict=True))


def best(rounds: list[Rate]) -> Rate:
    """Calls per wall second and per CPU second of the fastest round of each (noise only ever adds time)."""
    return CALLS / min(wall for wall, _ in rounds), CALLS / min(cpu for _, cpu in rounds)


async def connect_seconds(python: Path, version: str, era: str) -> tuple[float, float]:
    """Median seconds to connect and list, agentkit's connection and the SDK's client taking turns."""
    from agentkit_tools_mcp._config import ServerConfig
    from agentkit_tools_mcp.client._connection import ServerConnection
    from mcp import Client, StdioServerParameters

    script, env = str(server_script(version)), {"FASTMCP_LOG_LEVEL": "ERROR"}
    ours, sdk = [], []
    for _ in range(CONNECTS):
        connection = ServerConnection(ServerConfig(name="bench", command=str(python), args=(script,), era=era,
                                                   env=env))
        started = time.perf_counter()
        try:
            await connection.list_tools()
            ours.append(time.perf_counter() - started)
        finally:
            await connection.close()
        # The SDK's own client, as its documentation starts one: its default environment, the same mode.
        started = time.perf_counter()
        async with Client(StdioServerParameters(command=str(python), args=[script], env=env), mode=era) as client:
            await client.list_tools()
            sdk.append(time.perf_counter() - started)
    return statistics.median(ours), statistics.median(sdk)


def goal_line(what: str, ratio: float, goal: str) -> str:
    met = ratio >= float(goal[2:]) if goal.startswith(">=") else ratio <= float(goal[2:])
    return (f"  {what}: {ratio:.2f}x (goal {goal}x): {'met' if met else 'not met'}   "
            f"[load {os.getloadavg()[0]:.1f}]")


@contextlib.contextmanager
def servers_quiet() -> Iterator[None]:
    """The servers' stderr (their logging, inherited from this process's) to /dev/null while the block runs."""
    sys.stderr.flush()
    saved, null = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def main() -> None:
    modern = server_python(MODERN_SDK)
    with servers_quiet():
        sdk_rounds, our_rounds, hop_rounds = asyncio.run(round_trips(modern))
    (sdk, sdk_cpu), (ours, ours_cpu), (hop, hop_cpu) = best(sdk_rounds), best(our_rounds), best(hop_rounds)
    print(f"   tools/call over stdio, {CALLS} sequential calls, best of {ROUNDS} rounds "
          "(per CPU second: this process's, every thread; the server's is the same for both;")
    print("   the ratio: the median over rounds of each round's CPU rates):")
    print(f"     mcp SDK Client      {sdk:8.0f} calls/s  {sdk_cpu:8.0f} calls/CPU-s")
    print(f"     agentkit tool       {ours:8.0f} calls/s  {ours_cpu:8.0f} calls/CPU-s   "
          f"ratio agentkit/sdk {paired_cpu_ratio(our_rounds, sdk_rounds):.2f} (CPU)   (run_sync: its home loop)")
    print(f"     agentkit, hopping   {hop:8.0f} calls/s  {hop_cpu:8.0f} calls/CPU-s   "
          f"ratio agentkit/sdk {paired_cpu_ratio(hop_rounds, sdk_rounds):.2f} (CPU)   (a run on another loop)")
    # The goal is read on CPU: on a machine others load, wall time is mostly the scheduler's.
    lines = [goal_line("MCP client tools/call rate per CPU second, agentkit/SDK client",
                       paired_cpu_ratio(our_rounds, sdk_rounds), ">= 1")]
    print(f"   connect (spawn + era + first tools/list), median of {CONNECTS}, agentkit beside mcp.Client:")
    for label, version, python, era in [
        ("2.x server, auto -> modern", MODERN_SDK, modern, "auto"),
        ("2.x server, pinned 2026-07-28", MODERN_SDK, modern, "2026-07-28"),
        ("2.x server, pinned legacy", MODERN_SDK, modern, "legacy"),
        ("1.x server, auto -> legacy", LEGACY_SDK, server_python(LEGACY_SDK), "auto"),
    ]:
        with servers_quiet():
            ours_s, sdk_s = asyncio.run(connect_seconds(python, version, era))
        print(f"     {label:32s} {ours_s * 1000:7.0f} ms   (mcp.Client {sdk_s * 1000:7.0f} ms, "
              f"ratio {ours_s / sdk_s:.2f})")
        if era == "auto":
            lines.append(goal_line(f"MCP client connect, {label}, agentkit/SDK client", ours_s / sdk_s, "<= 1.1"))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
