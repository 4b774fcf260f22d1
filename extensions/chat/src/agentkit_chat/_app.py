"""The chat: prompts read in turn, each run on the agent and its session, shown as it happens.

The chat is an embedder of the host, as ``agentkit run`` is: it builds an
:class:`~agentkit.host.Agent` over a :class:`~agentkit.host.sessions.Session`
and shows the agent's events. Each prompt is one run; Ctrl-C aborts it through
``Agent.abort`` (the run ends through its own path, the history well-formed)
and the chat returns to the prompt.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from agentkit.host.cli.support import require_credential, run_interruptibly, visible

from ._authorize import Authorizer
from ._commands import dispatch
from ._compact import chat_compaction
from ._input import Reader
from ._options import ChatOptions
from ._screen import Screen
from ._status import Status
from ._view import TurnView, session_usage

if TYPE_CHECKING:
    from agentkit.host import Agent, AgentConfig, PluginHost
    from agentkit.host.sessions import Session


class Chat:
    """One chat: the host, the session, the agent over them, the screen and the reader."""

    def __init__(self, host: PluginHost, session: Session, model: str, options: ChatOptions,
                 screen: Screen, reader: Reader) -> None:
        self.host = host
        self.session = session
        self.options = options
        self.screen = screen
        self.reader = reader
        needs_asking = {name for name, tool in host.tools.items() if tool.requires_authorization}
        self.status = Status(screen)
        self.authorizer = Authorizer(reader, screen, needs_asking, on_interrupt=lambda: self.agent.abort(),
                                     status=self.status)
        self.agent: Agent = self.build_agent(model, session)

    # -- the agent -------------------------------------------------------------------

    def build_agent(self, model: str, session: Session) -> Agent:
        """An agent on ``model`` over ``session``; its history is the session's branch.

        Switching models builds a new agent over the same session: each request
        sends the host's repaired view of the history that the new wire accepts.
        """
        from agentkit.host import Agent

        info = self.host.resolve_model(model)  # ModelNotFound: a usage error
        provider = self.host.providers[info.api]  # the catalog lists a model only while its plugin serves the wire
        transport = self.options.transport if info.api == "faux" else None
        if transport is None:
            require_credential(provider, info)
        config = self._config(model, transport)
        config.compaction = chat_compaction(info.context_window)
        config = session.config_for(config)
        config.model = model
        return Agent(config, host=self.host, session=session)

    def _config(self, model: str, transport: Any) -> AgentConfig:
        from agentkit.host import AgentConfig, Connection, Limits, ModelSettings, Trust, allow_all

        tools = sorted(name for name, tool in self.host.tools.items() if tool.default_enabled)
        return AgentConfig(
            model=model, root=self.options.root, system_prompt=self.options.system, tools=tools,
            settings=ModelSettings(max_tokens=self.options.max_tokens),
            limits=Limits(max_turns=self.options.max_turns),
            trust=Trust(project=self.options.trust_project,
                        before_tool_call=allow_all if self.options.allow_all_tools else self.authorizer),
            connection=Connection(transport=transport),
        )

    def switch_session(self, session: Session) -> None:
        """Go on in ``session`` (a fork, a new one), on the current model; the old one is closed."""
        agent = self.build_agent(self.agent.config.models[0], session)  # chat runs one model
        self.session.close()
        self.session, self.agent = session, agent

    # -- the loop --------------------------------------------------------------------

    def run(self) -> int:
        """Read prompts until the person leaves; the exit code (0)."""
        try:
            while True:
                try:
                    text = self.reader.read(self.screen.style("> ", "prompt"))
                    if text.startswith("/"):
                        if dispatch(self, text) == "exit":
                            return 0
                    elif text.strip():
                        self.turn(text)
                except (EOFError, KeyboardInterrupt):  # Ctrl-D, or Ctrl-C away from a running turn
                    return 0
        finally:
            self.session.close()
            self.screen.end_line()
            if self.session.entries:  # a session nothing was said in is never written
                self.screen.line(f"session: {self.session.id} (continue it with 'agentkit chat --session "
                                 f"{self.session.id}')", "note")

    def turn(self, text: str) -> None:
        """One run on ``text``, shown as it happens; Ctrl-C aborts it and the chat goes on."""
        view = TurnView(self.screen, self.status)
        agent = self.agent

        async def stream() -> None:
            self.status.waiting()
            animation = asyncio.ensure_future(self.status.animate())
            try:
                async for event in agent.stream(text):
                    view.show(event)
            finally:
                animation.cancel()
                self.status.stop()

        try:
            _, interrupted = run_interruptibly(stream(), agent.abort)
        except KeyboardInterrupt:  # a third press: the run was left behind
            interrupted = True
        view.finish(session_usage(agent.history), interrupted=interrupted)

    def note(self, text: str) -> None:
        self.screen.line(visible(text), "note")
