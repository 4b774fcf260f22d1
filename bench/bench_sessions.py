"""Sessions: appending an entry, resuming a 10,000-entry session, and what persistence adds to a turn.

Each figure is a ratio against a baseline measured in the same run:

* append: ``Session.append_message`` against the least a log can do (``json.dumps``
  of the same message and one ``os.write``);
* resume: ``Session.open`` of a 10,000-entry log (read, repair check, tree, fold)
  against reading the same file and ``json.loads`` per line, in CPU time (goal: 2x at most);
* per turn: an agent run written to a session against the same run without one;
* PostgreSQL append (when ``AGENTKIT_BENCH_POSTGRES`` names a database URL, say
  ``postgresql://user@127.0.0.1:5432/bench``): ``Session.append_message``
  through ``PostgresSessionStore`` (one transaction each) against the file
  store's append of the same messages. Its tables are created there if missing.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from agentkit_provider_faux import FauxProvider, Script, Turn, text, tool_call

from agentkit.host import Agent, AgentConfig, Connection, Limits, PluginHost, Trust, allow_all
from agentkit.host.sessions import JsonlSessionStore, Session
from agentkit.plugin_api import (
    AssistantMessage,
    StopReason,
    TextBlock,
    Tool,
    ToolUseBlock,
    UserMessage,
    hookimpl,
)

ENTRIES = 10_000
APPENDS = 2_000
TURNS = 20
REPEATS = 5
PG_APPENDS = 500
#: Resuming a session costs at most this many times reading its lines with ``json.loads``.
RESUME_GOAL = 2.0
#: A database URL to measure the PostgreSQL store's append against; unset, that figure is skipped.
PG_ENV = "AGENTKIT_BENCH_POSTGRES"


def _message(n: int) -> Any:
    if n % 2:
        return UserMessage.text(f"request {n}: " + "some words of the user " * 8)
    return AssistantMessage([TextBlock("an answer " * 20), ToolUseBlock(f"call_{n}", "read", '{"path": "a/b.py"}')],
                            StopReason.TOOL_USE, provider="faux", api="faux", model="scripted")


def best(function: Any, repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def append_figures(directory: Path) -> tuple[float, float]:
    messages = [_message(n) for n in range(APPENDS)]

    def session_appends() -> None:
        with Session.new(JsonlSessionStore(directory), cwd=".") as session:
            for message in messages:
                session.append_message(message)

    def bare_appends() -> None:
        fd = os.open(directory / f"bare-{time.perf_counter_ns()}.jsonl", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            for message in messages:
                os.write(fd, json.dumps(message.to_dict()).encode() + b"\n")
        finally:
            os.close(fd)

    return best(session_appends) / APPENDS, best(bare_appends) / APPENDS


def postgres_append(url: str) -> float:
    """Seconds per ``append_message`` through the PostgreSQL store, one transaction each."""
    # Imported only when asked: psycopg is the store's dependency, not the benchmark's.
    from agentkit_store_postgres import PostgresSessionStore

    messages = [_message(n) for n in range(PG_APPENDS)]
    with PostgresSessionStore(url) as store:
        def appends() -> None:
            session = Session.new(store, cwd=".")
            for message in messages:
                session.append_message(message)

        appends()  # connect, create the tables, warm the server's caches
        return best(appends, repeats=3) / PG_APPENDS


def best_cpu(function: Any, repeats: int = REPEATS) -> float:
    """The least CPU time (``time.process_time``) of ``repeats`` calls: what a loaded machine disturbs least."""
    times = []
    for _ in range(repeats):
        start = time.process_time()
        function()
        times.append(time.process_time() - start)
    return min(times)


def resume_figures(directory: Path) -> tuple[float, float]:
    store = JsonlSessionStore(directory)
    with Session.new(store, cwd=".") as session:
        for n in range(ENTRIES):
            session.append_message(_message(n))
    path = store.path(session.id)

    def bare_read() -> None:
        with path.open("rb") as file:
            for line in file:
                json.loads(line)

    # Interleaved, so both see the same machine; CPU time, which other processes disturb least.
    resumes, bares = [], []
    for _ in range(REPEATS):
        resumes.append(best_cpu(lambda: Session.open(session.id, store).resume(), repeats=1))
        bares.append(best_cpu(bare_read, repeats=1))
    return min(resumes), min(bares)


class _Plugin:
    @hookimpl
    def agentkit_register_tools(self, register: Any) -> None:
        register(Tool.from_function(work))

    @hookimpl
    def agentkit_register_providers(self, register: Any) -> None:
        register(FauxProvider())


def work(n: int) -> int:
    """Return n."""
    return n


def agent_run(directory: Path | None) -> float:
    host = PluginHost()
    host.register(_Plugin(), name="bench")
    turns = [Turn([tool_call("work", {"n": n}) for n in range(3)])] * TURNS + [Turn([text("done")])]
    session = Session.new(JsonlSessionStore(directory), cwd=".") if directory is not None else None
    agent = Agent(AgentConfig(model="faux/scripted", limits=Limits(max_turns=None),
                              trust=Trust(before_tool_call=allow_all),
                              connection=Connection(transport=Script(turns))), host=host, session=session)
    start = time.perf_counter()
    agent.run_sync("go")
    elapsed = time.perf_counter() - start
    if session is not None:
        session.close()
    return elapsed


def main() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        directory = Path(folder)
        append, bare_append = append_figures(directory)
        resume, bare_read = resume_figures(directory)
        agent_run(directory), agent_run(None)  # warm both up
        with_store, without = [], []
        for _ in range(REPEATS):  # interleaved, so both see the same machine
            with_store.append(agent_run(directory))
            without.append(agent_run(None))
    figures = {
        "append_us": append * 1e6,
        "append_over_bare": append / bare_append,
        "resume_ms": resume * 1000,
        "resume_over_json_lines": resume / bare_read,
        "turn_with_session_over_without": min(with_store) / min(without),
    }
    print(f"sessions: append {figures['append_us']:.1f} us/entry -> {figures['append_over_bare']:.2f}x "
          "json.dumps + os.write")
    ratio = figures["resume_over_json_lines"]
    print(f"  resume {ENTRIES} entries {figures['resume_ms']:.1f} ms of CPU")
    print(f"  resume over json.loads per line: {ratio:.2f}x (goal <= {RESUME_GOAL}x): "
          f"{'met' if ratio <= RESUME_GOAL else 'not met'}   [load {os.getloadavg()[0]:.1f}]")
    print(f"  {TURNS}-turn run with a session / without: {figures['turn_with_session_over_without']:.2f}x")
    url = os.environ.get(PG_ENV)
    if url:
        figures["postgres_append_us"] = postgres_append(url) * 1e6
        figures["postgres_append_over_file"] = figures["postgres_append_us"] / figures["append_us"]
        print(f"  PostgreSQL append {figures['postgres_append_us']:.0f} us/entry (one transaction) -> "
              f"{figures['postgres_append_over_file']:.1f}x the file store's")
    else:
        print(f"  PostgreSQL append: not measured; set {PG_ENV}=postgresql://user@host:port/db to include it")
    return figures


if __name__ == "__main__":
    main()
