"""A tool's ``home_loop``: a run started from sync code runs on the loop its tools' connections live on.

A plugin that holds connections open on a loop in a thread of its own (the
MCP client) names that loop on its tools. ``run_sync`` then runs the whole
run there, so the handler is awaited where its connections are, with no
hand-off between threads; the caller's thread waits, its context carried
over. An async run stays on its caller's loop, and a loop that is not
running is no home.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agentkit_provider_faux import Turn, text, tool_call
from host_helpers import ToolsPlugin, make_agent

from agentkit.plugin_api import Tool, ToolContext
from agentkit.testing import write_script

LONG_ENOUGH = 30  # seconds a test's own wait may take before it fails instead of hanging
_caller = contextvars.ContextVar("caller", default="unset")


@pytest.fixture
def home() -> Iterator[asyncio.AbstractEventLoop]:
    """A loop another thread runs for the whole test, as a plugin's connection pool does."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="home", daemon=True)
    thread.start()
    yield loop
    loop.call_soon_threadsafe(loop.stop)
    thread.join(LONG_ENOUGH)
    loop.close()


def where_tool(seen: list[tuple[Any, str, str]], home_loop: asyncio.AbstractEventLoop | None) -> Tool:
    async def where(arguments: dict[str, Any], context: ToolContext) -> str:
        seen.append((asyncio.get_running_loop(), threading.current_thread().name, _caller.get()))
        return "here"

    return Tool(name="where", description="Where the call runs.", input_schema={"type": "object"},
                handler=where, home_loop=home_loop)


def twice() -> list[Turn]:
    return [Turn([tool_call("where", {})]), Turn([tool_call("where", {})]), Turn([text("done")])]


def test_run_sync_runs_on_the_loop_the_tools_name_in_the_callers_context(home: asyncio.AbstractEventLoop) -> None:
    seen: list[tuple[Any, str, str]] = []
    agent, _ = make_agent(twice(), ToolsPlugin(where_tool(seen, home)))
    token = _caller.set("the embedder's")
    try:
        result = agent.run_sync("go")
    finally:
        _caller.reset(token)
    assert result.outcome == "completed"
    assert seen == [(home, "home", "the embedder's")] * 2
    # The loop goes on serving its owner: the run left nothing of its own behind on it.
    assert asyncio.run_coroutine_threadsafe(asyncio.sleep(0, "alive"), home).result(LONG_ENOUGH) == "alive"


def test_an_async_run_stays_on_its_callers_loop(home: asyncio.AbstractEventLoop) -> None:
    seen: list[tuple[Any, str, str]] = []
    agent, _ = make_agent(twice(), ToolsPlugin(where_tool(seen, home)))

    async def run() -> asyncio.AbstractEventLoop:
        assert (await agent.run("go")).outcome == "completed"
        return asyncio.get_running_loop()

    caller = asyncio.run(run())
    assert [loop for loop, _, _ in seen] == [caller, caller]


def test_a_home_loop_that_no_longer_runs_is_ignored(home: asyncio.AbstractEventLoop) -> None:
    asyncio.run_coroutine_threadsafe(asyncio.sleep(0), home).result(LONG_ENOUGH)
    home.call_soon_threadsafe(home.stop)
    for _ in range(LONG_ENOUGH * 100):
        if not home.is_running():
            break
        threading.Event().wait(0.01)
    seen: list[tuple[Any, str, str]] = []
    agent, _ = make_agent(twice(), ToolsPlugin(where_tool(seen, home)))
    assert agent.run_sync("go").outcome == "completed"
    assert [name for _, name, _ in seen] == [threading.current_thread().name] * 2  # a loop of its own, here


def test_an_abort_ends_a_run_on_the_home_loop(home: asyncio.AbstractEventLoop) -> None:
    started = threading.Event()

    async def wait_forever(arguments: dict[str, Any], context: ToolContext) -> str:
        started.set()
        await asyncio.Event().wait()
        return "never"

    tool = Tool(name="where", description="Waits.", input_schema={"type": "object"}, handler=wait_forever,
                home_loop=home)
    agent, _ = make_agent(twice(), ToolsPlugin(tool))
    threading.Thread(target=lambda: started.wait(LONG_ENOUGH) and agent.abort(), daemon=True).start()
    result = agent.run_sync("go")
    assert started.is_set() and result.outcome == "aborted"


HOME_LOOP_RUN_SYNC = textwrap.dedent('''
    import asyncio, json, os, pathlib, threading
    from agentkit_provider_faux import FauxProvider, Script, Turn, text, tool_call
    from agentkit.host import Agent, AgentConfig, PluginHost
    from agentkit.plugin_api import Tool, ToolResultMessage, hookimpl

    home = asyncio.new_event_loop()
    threading.Thread(target=home.run_forever, name="home", daemon=True).start()
    seen = []

    async def stuck(arguments, context):
        seen.append(threading.current_thread().name)
        pathlib.Path(os.environ["STARTED_FILE"]).write_text("started")
        await asyncio.Event().wait()  # only the abort's cancellation ends it

    class Plugins:
        @hookimpl
        def agentkit_register_providers(self, register):
            register(FauxProvider())

        @hookimpl
        def agentkit_register_tools(self, register):
            register(Tool("stuck", "never returns", {"type": "object"}, stuck, home_loop=home))

    host = PluginHost()
    host.register(Plugins(), name="plugins")
    agent = Agent(AgentConfig(model="faux/scripted", tools=["stuck"],
                              transport=Script([Turn([tool_call("stuck")]), Turn([text("never")])])), host=host)
    try:
        agent.run_sync("go")
        raised = False
    except KeyboardInterrupt:
        raised = True
    answered = [m.tool_use_id for m in agent.history if isinstance(m, ToolResultMessage)]
    print(json.dumps({"raised": raised, "seen": seen, "answered": answered, "outcome": agent.last_result.outcome}))
''')


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_aborts_a_run_sync_on_the_home_loop_and_raises_after_a_well_formed_end(
        tmp_path: Path, presses: int) -> None:
    script, started = tmp_path / "driver.py", tmp_path / "started"
    script.write_text(HOME_LOOP_RUN_SYNC, encoding="utf-8")
    process = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, cwd=tmp_path,
                               env={**os.environ, "STARTED_FILE": str(started), "PYTHONUNBUFFERED": "1"})
    try:
        for _ in range(LONG_ENOUGH * 50):
            if started.exists() or process.poll() is not None:
                break
            time.sleep(0.02)
        assert started.exists(), process.communicate()[1]
        for _ in range(presses):
            process.send_signal(signal.SIGINT)
            time.sleep(0.05)
        out, err = process.communicate(timeout=LONG_ENOUGH)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0 and "Traceback" not in err, err
    report = json.loads(out)
    assert report == {"raised": True, "seen": ["home"], "answered": ["call_1_1"], "outcome": "aborted"}


#: A tool plugin whose tool names a loop its module runs in a thread of its own, as the MCP client's pool does.
HOME_PLUGIN = '''
import asyncio
import threading

from agentkit.plugin_api import Tool, hookimpl

loop = asyncio.new_event_loop()
threading.Thread(target=loop.run_forever, name="plugin-home", daemon=True).start()


async def where(arguments, context):
    return threading.current_thread().name


@hookimpl
def agentkit_register_tools(register):
    register(Tool(name="where", description="Which thread runs the call.", input_schema={"type": "object"},
                  handler=where, home_loop=loop))
'''


def test_agentkit_run_runs_on_the_loop_its_tools_name(agentkit, site_dir, tmp_path: Path) -> None:
    site_dir("home-plugin", entry_points={"agentkit.tools": {"homeplugin": "homeplugin"}},
             files={"homeplugin.py": HOME_PLUGIN})
    script = write_script(tmp_path / "turns.json", [Turn([tool_call("where", {})]), Turn([text("done")])])
    result = agentkit.inline("run", "where?", "--model", "faux/scripted", "--script", str(script), "--json",
                             "--root", str(tmp_path), site=site_dir.site)
    assert result.returncode == 0, result.stderr
    ends = [json.loads(line) for line in result.stdout.splitlines() if '"tool_call_end"' in line]
    assert [json.loads(end["result"]["content"][0]["text"])["data"] for end in ends] == ["plugin-home"]
