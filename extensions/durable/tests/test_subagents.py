"""Subagents of a durable run are child workflows: their own ids, their own steps, cancelled with their parent.

DBOS runs in this process on a SQLite file in a temporary directory; the parent and the subagent play scripts.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dbos import DBOS

from agentkit.host import Agent, AgentConfig, Connection, Subagent, Trust, allow_all
from agentkit.plugin_api import Defer, Tool, ToolResultMessage
from agentkit.testing import Script, Turn, text, tool_call

#: Generous: a loaded 2-core box may be slow, and a test that waits longer has hung, not lost a race.
PATIENCE = 120.0


@pytest.fixture
def durable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    import agentkit_durable
    from agentkit_durable import _approval

    monkeypatch.setattr(_approval, "WAIT_SLICE", 0.5)  # a cancelled run that waits notices it sooner
    agentkit_durable.launch(f"sqlite:///{tmp_path / 'runs.sqlite'}")
    try:
        yield agentkit_durable
    finally:
        agentkit_durable.shutdown()


def noop() -> str:
    """Do nothing."""
    return "nothing done"


def parent_agent(child_turns: list[Turn], child_trust: Trust | None = None) -> Agent:
    """A parent that delegates once (call ``call_helper``) to ``helper``, then answers ``done``."""
    helper = Subagent("helper", "Does what it is told.", AgentConfig(
        model="faux/scripted", tools=["noop"], extra_tools=[Tool.from_function(noop)],
        connection=Connection(transport=Script(child_turns)),
        trust=child_trust or Trust(before_tool_call=allow_all)))
    parent_script = Script([Turn([tool_call("helper", {"task": "count to two"}, id="call_helper")]),
                            Turn([text("done")])])
    return Agent(AgentConfig(model="faux/scripted", tools=["helper"], extra_tools=[helper.as_tool()],
                             connection=Connection(transport=parent_script),
                             trust=Trust(before_tool_call=allow_all)))


def status_of(run_id: str) -> Any:
    [status] = DBOS.list_workflows(workflow_ids=[run_id], load_input=False, load_output=False)
    return status


def wait_for(predicate: Any, what: str) -> None:
    deadline = time.monotonic() + PATIENCE
    while not predicate():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.05)


def test_a_subagent_of_a_durable_run_is_a_child_workflow_with_its_own_steps(durable):
    agent = parent_agent([Turn([text("one, two")])])
    result = durable.DurableAgent(agent, name="with-helper").run_sync("go", run_id="run-parent")
    assert result.text == "done"
    [delegated] = [m for m in result.messages if isinstance(m, ToolResultMessage)]
    assert not delegated.is_error and json.loads(delegated.text)["data"] == "one, two"
    child = status_of("run-parent.call_helper")  # derived from the parent's run id and the call id
    assert (child.name, child.status, child.parent_workflow_id) == ("agentkit.subagent", "SUCCESS", "run-parent")
    child_steps = [step["function_name"] for step in DBOS.list_workflow_steps("run-parent.call_helper")]
    parent_steps = [step["function_name"] for step in DBOS.list_workflow_steps("run-parent")]
    assert child_steps.count("agentkit.model_request") == 1  # the subagent's own request is its own step
    assert parent_steps.count("agentkit.model_request") == 2
    assert "agentkit.tool:helper" not in parent_steps  # the delegation is no step of the parent
    # Run again under the same id: the recorded result, nothing sent again.
    again = durable.DurableAgent(parent_agent([]), name="with-helper").run_sync("go", run_id="run-parent")
    assert again.text == "done"


def parked_child(durable: Any, run_id: str) -> tuple[Agent, asyncio.AbstractEventLoop, Any]:
    """A durable run whose subagent waits for a person; the agent, the loop running it and the run's future."""
    child_turns = [Turn([tool_call("noop", {}, id="call_deep")]), Turn([text("never")])]
    agent = parent_agent(child_turns, Trust(before_tool_call=lambda call, arguments: Defer("ask first")))
    loop = asyncio.new_event_loop()
    import threading

    future: Any = asyncio.run_coroutine_threadsafe(
        durable.DurableAgent(agent, name=f"agent-{run_id}").run("go", run_id=run_id), loop)
    threading.Thread(target=loop.run_forever, daemon=True).start()
    wait_for(lambda: DBOS.get_event(f"{run_id}.call_helper", "agentkit.waiting", timeout_seconds=0) is not None,
             "the subagent waits for a person")
    return agent, loop, future


def test_cancelling_the_parent_cancels_its_subagent(durable):
    _, loop, future = parked_child(durable, "run-cancelled")
    DBOS.cancel_workflow("run-cancelled")  # the parent alone, as any process may
    wait_for(lambda: status_of("run-cancelled.call_helper").status == "CANCELLED", "the subagent is cancelled")
    with pytest.raises(Exception, match="cancel"):
        future.result(timeout=PATIENCE)
    loop.call_soon_threadsafe(loop.stop)


def test_aborting_the_parent_cancels_its_subagent(durable):
    agent, loop, future = parked_child(durable, "run-aborted")
    agent.abort()
    result = future.result(timeout=PATIENCE)
    loop.call_soon_threadsafe(loop.stop)
    assert result.outcome == "aborted"
    assert status_of("run-aborted.call_helper").status == "CANCELLED"


APP = '''
import sys

import agentkit_durable
from dbos import DBOS

from agentkit.host import Agent, AgentConfig, Connection, Subagent, Trust, allow_all
from agentkit.plugin_api import Defer, Tool
from agentkit.testing import Script, Turn, text, tool_call


def noop() -> str:
    """Do nothing."""
    return "nothing done"


def build() -> Agent:
    # Played by transcript: a recovered run gets the turn its transcript reached.
    child = Script([Turn([tool_call("noop", {}, id="call_deep")]), Turn([text("child done")])], by_transcript=True)
    helper = Subagent("helper", "Does what it is told.", AgentConfig(
        model="faux/scripted", tools=["noop"], extra_tools=[Tool.from_function(noop)],
        connection=Connection(transport=child), trust=Trust(before_tool_call=lambda call, args: Defer("ask"))))
    parent = Script([Turn([tool_call("helper", {"task": "go"}, id="call_helper")]), Turn([text("parent done")])],
                    by_transcript=True)
    return Agent(AgentConfig(model="faux/scripted", tools=["helper"], extra_tools=[helper.as_tool()],
                             connection=Connection(transport=parent), trust=Trust(before_tool_call=allow_all)))


durable = agentkit_durable.DurableAgent(build, name="app")
agentkit_durable.launch(sys.argv[2])
if sys.argv[1] == "start":
    durable.run_sync("go", run_id="run-app")
else:  # the launch recovered the run and its subagent
    print(DBOS.retrieve_workflow("run-app").get_result()["text"], flush=True)
agentkit_durable.shutdown()
'''


@pytest.mark.slow
def test_a_killed_run_and_its_parked_subagent_are_recovered_together(tmp_path):
    import signal
    import subprocess
    import sys

    from dbos import DBOSClient

    app = tmp_path / "app.py"
    app.write_text(APP)
    url = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    first = subprocess.Popen([sys.executable, str(app), "start", url], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + PATIENCE
    while True:
        assert time.monotonic() < deadline and first.poll() is None, "the subagent never waited"
        if (tmp_path / "runs.sqlite").exists():
            client = DBOSClient(system_database_url=url)
            try:
                if client.get_event("run-app.call_helper", "agentkit.waiting", timeout_seconds=0):
                    break
            except Exception:  # the database is still being made by the run's process
                pass
            finally:
                client.destroy()
        time.sleep(0.1)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=PATIENCE)
    resumed = subprocess.Popen([sys.executable, str(app), "resume", url], stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        from agentkit_durable._approval import answer_call

        answer_call("run-app.call_helper", "call_deep", approved=True, database_url=url)
        out, err = resumed.communicate(timeout=PATIENCE)
    finally:
        if resumed.poll() is None:
            resumed.kill()
    assert resumed.returncode == 0, err
    assert out == "parent done\n"
    client = DBOSClient(system_database_url=url)
    try:
        [child] = client.list_workflows(workflow_ids=["run-app.call_helper"])
        assert child.status == "SUCCESS" and child.output["ok"] and child.output["data"] == "child done"
        # One request of the child after the approval: the one before it was answered from its checkpoint.
        steps = [step["function_name"] for step in client.list_workflow_steps("run-app.call_helper")]
        assert steps.count("agentkit.model_request") == 2
    finally:
        client.destroy()


def test_agentkit_runs_cancel_ends_a_run_that_waits_for_a_person_at_once(tmp_path, monkeypatch, agentkit):
    """``runs cancel`` wakes the parked run: without the wake it would notice only when its wait ends (an hour here)."""
    import threading

    import agentkit_durable
    from agentkit_durable import _approval

    monkeypatch.setattr(_approval, "WAIT_SLICE", 3600.0)
    url = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    agentkit_durable.launch(url)
    try:
        agent = Agent(AgentConfig(
            model="faux/scripted", tools=["noop"], extra_tools=[Tool.from_function(noop)],
            trust=Trust(before_tool_call=lambda call, arguments: Defer("ask first")),
            connection=Connection(transport=Script([Turn([tool_call("noop", {}, id="call_1")]), Turn([text("no")])]))))
        outcome: list[BaseException | Any] = []

        def run() -> None:
            try:
                outcome.append(agentkit_durable.DurableAgent(agent, name="parked").run_sync("go", run_id="run-parked"))
            except BaseException as exc:  # the cancellation, as the run's caller sees it
                outcome.append(exc)

        running = threading.Thread(target=run, daemon=True)
        running.start()
        wait_for(lambda: DBOS.get_event("run-parked", "agentkit.waiting", timeout_seconds=0) is not None,
                 "the run waits for a person")
        cancelled = agentkit.inline("runs", "cancel", "run-parked", "--db", url)
        assert cancelled.returncode == 0, cancelled.stderr
        running.join(PATIENCE)
        assert not running.is_alive(), "the parked run did not notice its cancellation"
        [ended] = outcome
        assert isinstance(ended, Exception) and "cancel" in str(ended).lower()
        assert status_of("run-parked").status == "CANCELLED"
    finally:
        agentkit_durable.shutdown()
