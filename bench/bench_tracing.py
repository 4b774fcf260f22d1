"""Tracing's cost: the same run with and without ``agentkit-hooks-tracing``, measured in the same process run.

One scripted conversation (``TURNS`` turns of one tool call each, then a final
answer) is played by the scripted provider three ways, taking turns so that a
machine that speeds up or slows down weighs on all of them alike:

* bare: no tracing plugin;
* installed, idle: the plugin registered, no tracer provider configured (the
  default for an application that never set one up): it should cost nothing
  beyond the host passing it the run's events;
* recording: the plugin with an OpenTelemetry SDK provider and an in-memory
  exporter, for scale.

Figures are the fastest run of each (noise only ever adds time) and their ratios
to bare. ``--quick`` (or ``BENCH_QUICK=1``) runs fewer repeats.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable

from agentkit_hooks_tracing import Tracing
from agentkit_provider_faux import FauxProvider, Script, Turn, text, tool_call
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agentkit.host import Agent, AgentConfig, Connection, Limits, PluginHost, Trust, allow_all
from agentkit.plugin_api import Tool, hookimpl

TURNS = 30
REPEATS = 3 if "--quick" in sys.argv or os.environ.get("BENCH_QUICK") == "1" else 15


def work(n: int) -> int:
    """Return n."""
    return n


class Faux:
    @hookimpl
    def agentkit_register_providers(self, register: Callable[[FauxProvider], None]) -> None:
        register(FauxProvider())


def _host(tracing: Tracing | None) -> PluginHost:
    host = PluginHost()  # not discover(): the installed plugin would be in every variant
    host.register(Faux(), name="faux")
    if tracing is not None:
        host.register(tracing, name="tracing")
    return host


def _script() -> Script:
    turns = [Turn([text("Working."), tool_call("work", {"n": turn})]) for turn in range(TURNS)]
    return Script([*turns, Turn([text("Done.")])])


def _run(host: PluginHost) -> float:
    config = AgentConfig(model="faux/scripted", tools=["work"], extra_tools=[Tool.from_function(work)],
                         limits=Limits(max_turns=TURNS + 5), trust=Trust(before_tool_call=allow_all),
                         connection=Connection(transport=_script()))
    agent = Agent(config, host=host)
    started = time.perf_counter()
    result = agent.run_sync("Work.")
    elapsed = time.perf_counter() - started
    assert result.outcome == "completed", result.error
    return elapsed


def main() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    variants = {
        "bare": _host(None),
        "installed, no tracer provider": _host(Tracing()),
        "recording (SDK, in-memory exporter)": _host(Tracing(tracer_provider=provider)),
    }
    best = dict.fromkeys(variants, float("inf"))
    for _ in range(REPEATS):
        for name, host in variants.items():
            best[name] = min(best[name], _run(host))
            exporter.clear()
    floor = best["bare"]
    print(f"one run of {TURNS} turns with a tool call each, fastest of {REPEATS}:")
    for name, seconds in best.items():
        print(f"  {name:<38} {seconds * 1000:8.1f} ms   {seconds / floor:5.2f}x bare")


if __name__ == "__main__":
    main()
