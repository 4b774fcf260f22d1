"""The run spec: what a process needs to rebuild a durable run's agent, as one JSON-able dict.

A durable run's workflow takes one argument, its spec. The process that
starts the run, the one that recovers it after a crash and a worker that takes
it from a queue all build the same agent from it: the options of
``agentkit run`` that shape the agent (model, tools, system prompt, root,
limits, session store and session, the script of the scripted model), or the
name of a :class:`~agentkit_durable.DurableAgent` registered in the process
(``agent``), which builds it instead.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentkit.host import Agent
    from agentkit.host.sessions import Session

__all__ = ["SPEC_VERSION", "RunSpec"]

#: The version of the spec's layout; a spec of another version is refused with a clear error.
SPEC_VERSION = 1


@dataclass(frozen=True)
class RunSpec:
    """One durable run's inputs (see the module docstring).

    :param prompt: the task, the run's first user message.
    :param model: ``vendor/model``, as ``agentkit run --model``.
    :param root: the workspace the tools stay inside (an absolute path).
    :param system: a system prompt (``--system``).
    :param max_turns: ``--max-turns``.
    :param max_tokens: ``--max-tokens``.
    :param allow_all_tools: ``--allow-all-tools``.
    :param trust_project: ``--trust-project``.
    :param script: for ``faux/scripted``: the script file (an absolute path), played by transcript
        position so that a recovered run gets the turn it reached.
    :param store: where the session is kept (``--store``); ``None``: ``$AGENTKIT_SESSION_STORE``,
        else the data directory.
    :param session_id: the session the run is written to; ``None``: none.
    :param agent: the name of a :class:`~agentkit_durable.DurableAgent` that builds the agent
        (the options above then unused but ``prompt``); ``None``: built from the options.
    """

    prompt: str
    model: str | None = None
    root: str = "."
    system: str | None = None
    max_turns: int | None = 50
    max_tokens: int | None = None
    allow_all_tools: bool = False
    trust_project: bool = False
    script: str | None = None
    store: str | None = None
    session_id: str | None = None
    agent: str | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace, *, session_id: str | None = None) -> RunSpec:
        """The spec of ``agentkit run``'s options (``args``: its parsed arguments; ``task``, ``model``...)."""
        return cls(
            prompt=args.task, model=args.model, root=str(Path(args.root).expanduser().resolve()),
            system=args.system, max_turns=args.max_turns, max_tokens=args.max_tokens,
            allow_all_tools=args.allow_all_tools, trust_project=args.trust_project,
            script=None if args.script is None else str(Path(args.script).expanduser().resolve()),
            store=args.store, session_id=session_id,
        )

    @classmethod
    def from_command_line(cls, args: argparse.Namespace) -> RunSpec:
        """The spec of ``agentkit run``'s parsed options, checked as the command checks them.

        The run is written to the session ``--session ID`` or ``--resume`` names, else a new one
        (a durable run always keeps one: a recovering process rebuilds the agent from it).

        :raises UsageError: a root that is no directory, ``--max-turns`` below 1, no model, a session
            that does not exist.
        """
        from agentkit.host.cli.support import select_session
        from agentkit.plugin_api.errors import UsageError

        root = Path(args.root).expanduser()
        if not root.is_dir():
            raise UsageError(f"--root {args.root!r} is not a directory")
        if args.max_turns is not None and args.max_turns < 1:
            raise UsageError("--max-turns must be at least 1")
        session = select_session(args.session or (None if args.resume else "new"), resume=args.resume,
                                 store=args.store, root=root)
        assert session is not None  # named, resumed or new
        try:
            model = args.model or session.model
            if model is None:
                raise UsageError("say which model: --model vendor/model (e.g. anthropic/claude-sonnet-4-6)")
            args.model = model
            return cls.from_args(args, session_id=session.id)
        finally:
            session.close()  # the run opens it again, as a recovering process would

    def to_dict(self) -> dict[str, Any]:
        """The spec as plain data (what the workflow is given), with its ``version``."""
        return {"version": SPEC_VERSION, **dataclasses.asdict(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunSpec:
        """The spec ``to_dict`` made.

        :raises ValueError: another version, an unknown key, or no prompt; the message names it.
        """
        version = data.get("version")
        if version != SPEC_VERSION:
            raise ValueError(f"the run spec has version {version!r}; this agentkit-durable reads version "
                             f"{SPEC_VERSION}: run it with the version that started it")
        names = {field.name for field in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names - {"version"})
        if unknown:
            raise ValueError(f"the run spec has unknown keys {', '.join(unknown)}: upgrade agentkit-durable")
        if not isinstance(data.get("prompt"), str):
            raise ValueError("the run spec has no prompt (a string)")
        return cls(**{key: value for key, value in data.items() if key != "version"})

    def build_agent(self) -> Agent:
        """The agent these options describe, written to the spec's session (opened here) if any.

        :raises UsageError: what ``agentkit run`` refuses (an unknown model, a bad script, a missing session).
        """
        from agentkit.host import PluginHost
        from agentkit.host.cli._run import make_agent
        from agentkit.host.cli.support import open_project
        from agentkit.plugin_api.errors import UsageError

        root = Path(self.root)
        session = self._session(root)
        model = self.model or (session.model if session is not None else None)
        if model is None:
            raise UsageError("the run spec names no model")
        args = argparse.Namespace(root=str(root), system=self.system, max_turns=self.max_turns,
                                  max_tokens=self.max_tokens, allow_all_tools=self.allow_all_tools,
                                  trust_project=self.trust_project, script=self.script, durable=True)
        host = PluginHost.discover(project=open_project(root, self.trust_project))
        try:
            return make_agent(args, host, model, session)
        except BaseException:
            if session is not None:
                session.close()
            raise

    def _session(self, root: Path) -> Session | None:
        """The run's session: the stored one, or a new one of that id (none of it was written yet)."""
        from agentkit.host.cli.support import open_session
        from agentkit.host.errors import SessionNotFound
        from agentkit.host.sessions import Session
        from agentkit.host.sessions._selection import open_store

        if self.session_id is None:
            return None
        store = open_store(self.store)
        try:
            return open_session(self.session_id, store)
        except SessionNotFound:
            return Session.new(store, cwd=root, id=self.session_id)
