"""What a command that builds agents shares with ``agentkit run``: public, for commands plugins contribute.

A distribution that adds a command to ``agentkit`` (the ``agentkit.commands``
entry points, see ``docs/plugins.md``) reads the same options and fails the
same way as the built-in commands with these:

* :func:`add_store_option`, :func:`add_agent_options`: the standard options on
  an ``argparse`` parser;
* :func:`select_session`, :func:`open_session`: the session ``--session``,
  ``--resume`` and ``--store`` name (the store itself:
  :func:`agentkit.host.sessions.open_store`);
* :func:`require_credential`: a missing key is a usage error before anything
  is sent, with ``agentkit run``'s message;
* :func:`load_script`: ``--script`` for the scripted provider;
* :func:`open_project`: the project ``--root`` and ``--trust-project`` name,
  to build the plugin host with (``PluginHost.discover(project=...)``);
* :func:`run_interruptibly`: a coroutine run from sync code, where Ctrl-C
  asks the work to stop rather than tearing through it;
* :func:`visible`, :func:`visible_line`: untrusted text (a model's, a tool's,
  a plugin's) made safe to print, its controls shown, never interpreted.

Each raises :class:`~agentkit.plugin_api.errors.UsageError` for bad input;
the ``agentkit`` command prints it as one line and exits 2. Importing this
module stays light (argparse and the plugin API): what a run needs is
imported when a function needs it, so a command's ``--help`` stays fast.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Coroutine, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from agentkit.plugin_api import ModelInfo, Project, Provider, Tool, provider_member
from agentkit.plugin_api.errors import UsageError

from .._terminal import visible, visible_line

if TYPE_CHECKING:
    from ..sessions import Session, SessionStore

T = TypeVar("T")

__all__ = [
    "add_agent_options",
    "add_store_option",
    "load_script",
    "open_session",
    "require_credential",
    "run_interruptibly",
    "select_session",
    "visible",
    "visible_line",
]


def add_store_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--store URL`` to ``parser``: where sessions are kept (``args.store``, ``None`` unless given)."""
    from ..sessions._selection import STORE_ENV

    parser.add_argument("--store", default=None, metavar="URL",
                        help=f"where sessions are kept: a directory, or a URL such as postgresql://user@host/db "
                             f"whose store an installed distribution provides (default: ${STORE_ENV}, else the "
                             "data directory)")


def add_agent_options(parser: argparse.ArgumentParser) -> None:
    """Add the options of every command that builds agents, as ``agentkit run`` and ``agentkit rpc`` have them.

    ``--store``, ``--root``, ``--max-turns``, ``--max-tokens``, ``--system``,
    ``--allow-all-tools``, ``--trust-project`` and ``--script``.
    """
    add_store_option(parser)
    parser.add_argument("--root", default=".", help="the workspace the tools stay inside (default: .)")
    parser.add_argument("--max-turns", type=int, default=50, help="stop a run after this many turns (default: 50)")
    parser.add_argument("--max-tokens", type=int, default=None, help="output token limit per response")
    parser.add_argument("--system", default=None, help="a system prompt")
    parser.add_argument(
        "--allow-all-tools", action="store_true",
        help="also enable tools that run commands (shell), and allow every call the model makes",
    )
    parser.add_argument(
        "--trust-project", action="store_true",
        help="trust the project: read its skills (ROOT/.agentkit/skills/) and AGENTS.md files, and use the "
             "MCP servers of its agentkit.toml",
    )
    parser.add_argument("--script", default=None,
                        help="for faux/scripted: a JSON file with the list of turns (each session of rpc plays it)")


def open_project(root: Path | str, trust: bool) -> Project:
    """The project at ``root``: trusted when ``trust`` and its folders are the user's own.

    Trust asked for but refused (a folder owned by another user) is one note
    line each on stderr. Build the command's plugin host for it, so its tool
    plugins know (``PluginHost.discover(project=...)``).
    """
    project = Project.open(root, trust=trust)
    for problem in project.problems:
        print(f"note: {problem}", file=sys.stderr)
    return project


def require_credential(provider: Provider, model: ModelInfo) -> None:
    """Check, before anything is sent, that the environment holds ``model``'s credential.

    :raises UsageError: none of the variables that can carry it is set; the
        message names them.
    """
    override = model.options.get("credential_env") if model.options else None  # another vendor on one wire
    names = [str(name) for name, _ in (override if override is not None else provider.credential_env)]
    if names and not any(os.environ.get(name) for name in names):
        listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
        raise UsageError(f"no credential for {model.key}: set {listed} in the environment")


def load_script(provider: Provider, path: str | None, *, by_transcript: bool = False) -> Any:
    """The transport that plays the JSON list of turns in the file ``path`` (``--script``) on ``provider``.

    ``by_transcript``: each request gets the turn its transcript has reached, not the next in
    arrival order (a durable run recovered in another process). With ``AGENTKIT_REPLAY_LOG``
    set, each request is appended to that file as one JSON line (``{"turn": n}``).

    :raises UsageError: no path, a file that is no JSON list of turns, or a
        provider that plays no scripts.
    """
    from .._replay import REPLAY_LOG_ENV

    if path is None:
        raise UsageError("the scripted model plays a script: pass --script FILE.json (a JSON list of turns)")
    try:
        turns = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:  # RecursionError: nesting too deep for json
        raise UsageError(f"--script {path}: cannot read a JSON list of turns ({exc})") from exc
    if not isinstance(turns, list):
        raise UsageError(f"--script {path}: expected a JSON list of turns")
    script = provider_member(provider, "script")
    if script is None:
        raise UsageError(f"the {provider.api!r} provider plays no scripts; --script is for faux/scripted")
    options: dict[str, Any] = {"by_transcript": True} if by_transcript else {}
    if os.environ.get(REPLAY_LOG_ENV):
        options["log"] = os.environ[REPLAY_LOG_ENV]
    try:
        return script(turns, **options)
    except (KeyError, TypeError, ValueError) as exc:
        raise UsageError(f"--script {path}: {exc}") from exc


def run_interruptibly(main: Coroutine[Any, Any, T], on_interrupt: Callable[[], None], *,
                      exiting: bool = False, tools: Iterable[Tool] = ()) -> tuple[T, bool]:
    """Run ``main`` on a new event loop; return its value and whether Ctrl-C was pressed.

    The first two presses call ``on_interrupt`` on the loop (give it
    ``Agent.abort``: the run ends through its own path, its history
    well-formed); a third raises ``KeyboardInterrupt``. Ctrl-C is caught only
    in the main thread; elsewhere this is a plain run on a new loop.

    :param exiting: the process ends once this returns (a command that runs
        one task): after a press, further presses are ignored.
    :param tools: the run's tools (``agent.tools.values()``): when one names a
        running ``Tool.home_loop`` (an MCP server's connection), ``main`` runs
        on that loop, as ``Agent.run_sync`` does, and its calls need no hand-off
        between threads.
    :raises RuntimeError: called from a running event loop (await the coroutine there instead).

    .. versionchanged:: 0.2
        ``tools``.
    """
    from .._stopping.interrupt import home_loop
    from .._stopping.interrupt import (
        run_interruptibly as run,  # the event loop, imported when one runs
    )

    return run(main, on_interrupt, exiting=exiting, loop=home_loop(tools))


def open_session(session_id: str, store: SessionStore) -> Session:
    """The stored session ``session_id`` names (a unique prefix is enough); what loading repaired goes to stderr.

    :raises UsageError: no session has that id (``SessionNotFound``), or it names a file that is no session log.
    """
    from ..errors import SessionLoadError
    from ..sessions import Session

    try:
        session = Session.open(session_id, store)
    except SessionLoadError as exc:
        raise UsageError(str(exc)) from None
    _report_repairs(session)
    return session


def select_session(session: str | None, *, resume: bool = False, store: str | None = None, root: Path,
                   create: bool = True) -> Session | None:
    """The session ``--session ID|new``, ``--resume`` and ``--store`` choose, as ``agentkit run`` reads them.

    :param session: ``"new"`` for a new session in ``root``, else a stored
        session's id (or a unique prefix of it); ``None``: none named.
    :param resume: the session written to last.
    :param store: ``--store``; ``None``: ``$AGENTKIT_SESSION_STORE``, else the data directory.
    :param create: whether ``"new"`` creates a session (a dry run creates none).
    :returns: the session, or ``None`` when none is named (or ``"new"`` without ``create``).
    :raises UsageError: both ``session`` and ``resume``, ``store`` alone, nothing to resume,
        a store that cannot be opened, or a file that is no session log.
    """
    from ..sessions import Session
    from ..sessions._selection import open_store

    if resume and session is not None:
        raise UsageError("--resume continues the latest session and --session names one: pass one of them")
    if session is None and not resume:
        if store is not None:
            raise UsageError("--store says where sessions are kept: pass --session ID|new or --resume with it")
        return None
    opened = open_store(store)
    if session == "new":
        if not create:
            return None
        created = Session.new(opened, cwd=root.resolve())
        _check_reachable(opened, created.id)
        return created
    if session is not None:
        return open_session(session, opened)
    latest = Session.most_recent(opened)
    if latest is None:
        raise UsageError("there is no session to resume; start one with --session new")
    _report_repairs(latest)
    return latest


def _check_reachable(store: SessionStore, session_id: str) -> None:
    """Ask the store for the new session, which it does not hold yet: a store that cannot be reached (a
    server down, a wrong password) fails here, before the run starts, rather than at its first entry.

    :raises SessionError: the store's own error, which the command reports (exit 1).
    """
    from ..errors import SessionNotFound

    try:
        store.load(session_id)
    except SessionNotFound:
        return


def _report_repairs(session: Session) -> None:
    for repair in session.repairs:
        print(f"note: session {session.id} repaired: {repair}", file=sys.stderr)
