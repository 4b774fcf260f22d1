"""``agentkit chat``: contributed to the ``agentkit`` command (docs/decisions/0017); see ``docs/chat.md``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from agentkit.host.cli.support import visible
from agentkit.plugin_api.errors import UsageError

from ._screen import DEFAULT_THEME, THEMES

#: How many messages of a continued session are shown before the first prompt.
RECENT_MESSAGES = 10


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{message} (see 'agentkit chat --help')")


def parser() -> argparse.ArgumentParser:
    """The command line of ``agentkit chat``."""
    parser = _Parser(
        prog="agentkit chat",
        description="Hold a conversation with an agent in the terminal. Each prompt is a run on one session; "
        "/help lists the slash commands. Ctrl-C aborts the running turn; Ctrl-D (or Ctrl-C at an empty "
        "prompt) leaves.",
    )
    parser.add_argument("--model", default=None,
                        help="vendor/model, e.g. anthropic/claude-sonnet-4-6 (continuing a session: its model)")
    parser.add_argument("--session", default=None, metavar="ID",
                        help="continue the stored session ID (an id prefix is enough)")
    parser.add_argument("--resume", action="store_true", help="continue the session written to last")
    parser.add_argument("--root", default=".", help="the workspace the tools stay inside (default: .)")
    parser.add_argument("--max-turns", type=int, default=50, help="turns per prompt at most (default: 50)")
    parser.add_argument("--max-tokens", type=int, default=None, help="output token limit per response")
    parser.add_argument("--system", default=None, help="a system prompt")
    parser.add_argument("--allow-all-tools", action="store_true",
                        help="allow every tool call without asking (shell tools included)")
    parser.add_argument(
        "--trust-project", action="store_true",
        help="trust the project: read its skills (ROOT/.agentkit/skills/) and AGENTS.md files, and use the "
             "MCP servers of its agentkit.toml",
    )
    parser.add_argument("--theme", choices=sorted(THEMES), default=None,
                        help="colours: dark (default), light or plain")
    parser.add_argument("--plain", action="store_true",
                        help="no colour and ASCII markers (also when NO_COLOR is set or stdout is no terminal)")
    parser.add_argument("--script", default=None, help="for faux/scripted: a JSON file with the list of turns")
    from agentkit.host.cli.support import add_store_option

    add_store_option(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``agentkit chat ARGV``; the exit code."""
    args = parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    from agentkit.host import PluginHost
    from agentkit.host.cli.support import load_script, open_project, select_session
    from agentkit.host.sessions import data_dir

    from ._app import Chat, ChatOptions
    from ._commands import COMMANDS
    from ._input import LineReader, TerminalReader, history_file
    from ._screen import Screen, wants_plain
    from ._view import show_history

    root = Path(args.root).expanduser()
    if not root.is_dir():
        raise UsageError(f"--root {args.root!r} is not a directory")
    if args.max_turns < 1:
        raise UsageError("--max-turns must be at least 1")
    if args.session == "new":
        args.session = None
    continued = args.session is not None or args.resume
    # A new session too: a store that cannot be reached is reported now, not at the first prompt.
    session = select_session(args.session if continued else "new", resume=args.resume, store=args.store, root=root)
    assert session is not None  # "new", an id or --resume: select_session returns one or raises
    model = args.model or session.model
    if model is None:
        session.close()
        raise UsageError("say which model: --model vendor/model (e.g. anthropic/claude-sonnet-4-6)")

    try:  # the session is locked while open: whatever fails from here lets it go
        plain = wants_plain(sys.stdout, plain=args.plain)
        screen = Screen(sys.stdout, "plain" if plain else args.theme or DEFAULT_THEME)
        host = PluginHost.discover(project=open_project(root, args.trust_project))
        provider = host.providers.get(host.resolve_model(model).api)  # ModelNotFound: a usage error
        transport = load_script(provider, args.script) if provider is not None and (
            args.script is not None or provider.api == "faux") else None
        options = ChatOptions(root=root, allow_all_tools=args.allow_all_tools, system=args.system,
                              max_turns=args.max_turns, max_tokens=args.max_tokens,
                              trust_project=args.trust_project, transport=transport)
        interactive = sys.stdin.isatty() and sys.stdout.isatty()
        reader = (TerminalReader(list(COMMANDS), history_file(data_dir()), styled=not plain) if interactive
                  else LineReader())
        chat = Chat(host, session, model, options, screen, reader)
    except BaseException:
        session.close()
        raise
    for problem in chat.agent.skills.problems:
        chat.note(f"note: {problem}")
    screen.line(f"agentkit chat · {visible(model)} · session {session.id} · /help for commands", "note")
    if continued:
        show_history(screen, chat.agent.history, RECENT_MESSAGES)
    return chat.run()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
