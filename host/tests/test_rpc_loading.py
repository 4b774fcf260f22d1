"""The RPC server loads a stored session off its event loop: the other sessions go on meanwhile.

A session log can be large (or crafted to be slow to read); while one loads,
every other session's run keeps streaming and ends. The store here holds the
load until the other session's run has ended, so the order of the lines
written shows whether the loop was free: no clock is read.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from agentkit_provider_faux import Script
from host_helpers import make_host
from test_rpc_server import Lines, line, say, start_and_prompt

from agentkit.host import Agent, AgentConfig, Connection, Trust, allow_all
from agentkit.host.rpc import RpcServer
from agentkit.host.sessions import JsonlSessionStore, LoadedLog, Session
from agentkit.plugin_api import Tool, UserMessage

#: Generous: only a broken server waits this long (the loop blocked by the load never lets the run end).
PATIENCE = 60.0


class HeldWhileLoading(JsonlSessionStore):
    """A store whose load of one session waits until the test lets it go on."""

    def __init__(self, root: Path, held: str) -> None:
        super().__init__(root)
        self.held = held
        self.loading = threading.Event()
        self.release = threading.Event()

    def load(self, session_id: str) -> LoadedLog:
        if session_id == self.held:
            self.loading.set()
            self.release.wait(PATIENCE)
        return super().load(session_id)


def test_a_session_loading_leaves_the_other_sessions_running_to_their_end(tmp_path: Path) -> None:
    stored = Session.new(JsonlSessionStore(tmp_path), cwd=str(tmp_path))
    stored.append_message(UserMessage.text("an old conversation"))
    stored.close()
    store = HeldWhileLoading(tmp_path, stored.id)
    out = Lines()

    def gate() -> str:
        """Return once the other session has begun loading."""
        store.loading.wait(PATIENCE)
        return "the other session is loading"

    def on_event(event: dict[str, Any]) -> None:
        if event["type"] == "agent_end":
            store.release.set()  # the running session ended: the held load may finish

    out.on_event = on_event
    host = make_host()
    turns = [{"content": [{"type": "tool_use", "name": "gate", "arguments": {}}]}, say("Done meanwhile.")]

    def make(session: Session | None, model: str | None) -> Agent:
        return Agent(AgentConfig(model="faux/scripted", tools=["gate"], extra_tools=[Tool.from_function(gate)],
                                 trust=Trust(before_tool_call=allow_all),
                                 connection=Connection(transport=Script(list(turns)))),
                     host=host, session=session)

    async def main() -> None:
        server = RpcServer(make, out.write, store=store, cwd=tmp_path)
        running = await start_and_prompt(server, out, "Run while the other loads")
        await server.handle_line(line(3, "session.continue", session_id=stored.id))
        assert running != stored.id
        await server.shutdown()

    asyncio.run(main())
    written = [(item.get("type"), item.get("id")) for item in out.lines]
    ended = written.index(("agent_end", None))
    continued = next(index for index, item in enumerate(out.lines) if item.get("id") == 3)
    assert out.lines[continued]["result"]["session_id"] == stored.id
    assert out.lines[ended]["outcome"] == "completed"
    assert ended < continued  # the run ended while the other session was still loading
