"""The process a kill test starts: it runs a scripted agent into a session, or resumes one.

``python session_kill_child.py run SESSIONS_DIR SESSION_ID PLAN_JSON``: one run
of the batches the plan lists (``[[call, ...], ...]``, each call ``"done"`` or
``"block"``), then a response that never ends. A ``"block"`` call writes
``blocked-<call id>`` in the sessions folder and waits forever; so does the
last response, after writing ``hanging``. The test kills this process.

``python session_kill_child.py resume SESSIONS_DIR SESSION_ID``: open the
session, run one more turn, and print the outcome and the request's messages
as JSON on stdout. A test that resumes in its own process (which never held
the session) calls :func:`resume` instead.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import agentkit_provider_faux
import httpx
from agentkit_provider_faux import Script, Turn, text, tool_call

from agentkit.host import Agent, AgentConfig, Connection, PluginHost, Trust, allow_all
from agentkit.host.sessions import JsonlSessionStore, Session
from agentkit.plugin_api import Tool


class _Announcing(Script):
    """A script that writes ``hanging`` in ``folder`` when its last (hanging) response is asked for."""

    def __init__(self, turns: list[Turn], folder: Path) -> None:
        super().__init__(turns)
        self.folder = folder

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await super().handle_async_request(request)
        if self.remaining == 0:
            (self.folder / "hanging").write_text("")
        return response


def _step_tool(folder: Path) -> Tool:
    async def step(call: str, block: bool) -> str:
        """One step of the plan: done at once, or never."""
        if block:
            (folder / f"blocked-{call}").write_text("")
            await asyncio.Event().wait()
        return f"step {call} done"

    return Tool.from_function(step)


def _config(transport: Any, folder: Path) -> AgentConfig:
    return AgentConfig(model="faux/scripted", tools=["step"], extra_tools=[_step_tool(folder)],
                       trust=Trust(before_tool_call=allow_all), connection=Connection(transport=transport))


def _host() -> PluginHost:
    """The scripted provider and nothing else: the run uses no installed tool, and a process that imports
    no other plugin reaches the kill point sooner."""
    host = PluginHost()
    host.register(agentkit_provider_faux, name="faux")
    return host


def run(folder: Path, session_id: str, plan: list[list[str]]) -> None:
    turns = [Turn([tool_call("step", {"call": f"c{number}-{index}", "block": fate == "block"}, id=f"c{number}-{index}")
                   for index, fate in enumerate(batch)]) for number, batch in enumerate(plan)]
    turns.append(Turn([text("still thinking")], hang=True))
    session = Session.new(JsonlSessionStore(folder), cwd=str(folder), id=session_id)
    Agent(_config(_Announcing(turns, folder), folder), host=_host(), session=session).run_sync("Begin")


def resume(folder: Path, session_id: str) -> dict[str, Any]:
    """Open the session, run one more turn: its outcome, error and text, and the messages the request sent."""
    session = Session.open(session_id, JsonlSessionStore(folder))
    script = Script([Turn([text("resumed")])])
    agent = Agent(session.config_for(_config(script, folder)), host=_host(), session=session)
    result = agent.run_sync("Go on")
    session.close()
    return {"outcome": result.outcome.value, "error": result.error, "text": result.text,
            "request": script.requests[0].body["messages"]}


if __name__ == "__main__":
    role, where, which = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    if role == "run":
        run(where, which, json.loads(sys.argv[4]))
    else:
        print(json.dumps(resume(where, which)))
