"""The slash commands: ``/help`` lists them; an unknown one gets one line naming ``/help``."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from agentkit.host.cli.support import visible, visible_line
from agentkit.plugin_api.errors import UsageError

from ._view import session_usage, shorten, usage_line

if TYPE_CHECKING:
    from agentkit.host import Agent
    from agentkit.host.sessions import Session

    from ._authorize import Authorizer
    from ._options import ChatOptions
    from ._screen import Screen


class Chat(Protocol):
    """What a slash command reads and changes of the chat (:class:`._app.Chat` is the one there is).

    A protocol rather than the class, so that the chat's module can import the commands and the
    commands need nothing of it.
    """

    agent: Agent
    session: Session
    options: ChatOptions
    screen: Screen
    authorizer: Authorizer

    def build_agent(self, model: str, session: Session) -> Agent: ...

    def switch_session(self, session: Session) -> None: ...

    def note(self, text: str) -> None: ...


Handler = Callable[[Chat, str], "str | None"]


def _help(chat: Chat, argument: str) -> None:
    for name, (_, summary) in COMMANDS.items():
        chat.screen.line(f"{name:<10} {summary}")
    chat.screen.line("Alt-Enter (or Esc, Enter) starts a new line; Ctrl-C aborts a turn; Ctrl-D leaves.", "note")


def _model(chat: Chat, argument: str) -> None:
    if not argument:
        chat.note(f"model: {chat.agent.config.model} (switch with /model vendor/model)")
        return
    try:
        chat.agent = chat.build_agent(argument, chat.session)
    except UsageError as exc:  # ModelNotFound, a missing credential, a wire nobody implements
        chat.screen.line(f"error: {visible(str(exc))}", "error")
        return
    chat.note(f"model: {argument}; the conversation goes on with it")


def _tools(chat: Chat, argument: str) -> None:
    if not chat.agent.tools:
        chat.note("no tools")
    asking = chat.authorizer.needs_asking - chat.authorizer.allowed_for_session
    for name, tool in sorted(chat.agent.tools.items()):
        ask = " (asks first)" if name in asking and not chat.options.allow_all_tools else ""
        chat.screen.line(f"{visible_line(name)}{ask}: {visible(shorten(tool.description, 70))}")


def _skills(chat: Chat, argument: str) -> None:
    entries = chat.agent.skills.entries
    if not entries:
        chat.note("no skills (see 'agentkit skills --help' for where they come from)")
    for name, entry in sorted(entries.items()):
        chat.screen.line(f"{visible_line(name)}: {visible(shorten(entry.skill.description, 70))}")
    for problem in chat.agent.skills.problems:
        chat.note(problem)


def _session(chat: Chat, argument: str) -> None:
    if argument == "fork":
        fork = chat.session.fork()
        chat.switch_session(fork)
        chat.note(f"forked: the chat goes on in session {fork.id}")
        return
    if argument:
        chat.screen.line("usage: /session (its id and file), /session fork (go on in a copy)", "error")
        return
    chat.screen.line(f"session: {chat.session.id}")
    path = getattr(chat.session.store, "path", None)
    if callable(path):
        chat.screen.line(f"file: {path(chat.session.id)}")


def _clear(chat: Chat, argument: str) -> None:
    from agentkit.host.sessions import Session

    chat.switch_session(Session.new(cwd=chat.options.root.resolve()))
    chat.note(f"a new conversation: session {chat.session.id}")


def _compact(chat: Chat, argument: str) -> None:
    try:
        summary = asyncio.run(chat.agent.compact())
    except KeyboardInterrupt:
        chat.note("compaction interrupted; the history is unchanged")
        return
    if summary is None:
        chat.note("nothing to compact yet")
    elif not summary:
        chat.note("the summary failed (an error or an empty answer): requests now start from the last turn, "
                  "without a summary")
    else:
        chat.note(f"compacted: requests now start from a summary ({len(summary):,} characters) and the last turn")


def _cost(chat: Chat, argument: str) -> None:
    chat.screen.line(usage_line("session", session_usage(chat.agent.history)), "usage")


def _exit(chat: Chat, argument: str) -> str:
    return "exit"


COMMANDS: dict[str, tuple[Handler, str]] = {
    "/help": (_help, "list the commands"),
    "/model": (_model, "show the model, or switch to another: /model vendor/model"),
    "/tools": (_tools, "list the tools the agent has"),
    "/skills": (_skills, "list the skills the agent has"),
    "/session": (_session, "the session's id and file; /session fork goes on in a copy"),
    "/clear": (_clear, "start a new conversation (a new session)"),
    "/compact": (_compact, "summarize the conversation so far; requests start from the summary"),
    "/cost": (_cost, "tokens and cost of the session"),
    "/exit": (_exit, "leave the chat"),
}


def dispatch(chat: Chat, line: str) -> str | None:
    """Run the slash command on ``line``; ``"exit"`` when the chat should end."""
    name, _, argument = line.strip().partition(" ")
    entry = COMMANDS.get(name)
    if entry is None:
        chat.screen.line(f"unknown command {visible(shorten(name, 40))}; /help lists the commands", "error")
        return None
    return entry[0](chat, argument.strip())
