"""An example restrictive ``before_tool_call`` policy for the process tools.

This is a convenience for embedders that want *something* narrower than
allow-all, not a sandbox: an allowed program still reads whatever the user
can read, ``git`` still honours the repository's own configuration, and a
``PATH`` entry inside the workspace can shadow an allowed name. Authorization
remains the embedder's decision; this policy is one reasonable decision.

Grammar it declares for ``execute`` (bash): one simple command made of words
separated by blanks, with single and double quotes. Anything else (operators,
redirections, expansions, globs, escapes, comments, assignments) is refused
rather than interpreted. PowerShell's grammar is not supported, so the
``powershell`` tool is always refused.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable, Mapping
from typing import Any

from agentkit.plugin_api import Block, ToolUseBlock

# Characters bash gives a meaning beyond "part of a word", outside quotes.
_UNQUOTED_SPECIAL = frozenset(";&|<>()$`*?[]{}~!#\\\n\r=")
# Inside double quotes bash still expands these.
_DOUBLE_QUOTED_SPECIAL = frozenset("$`\\!")

DEFAULT_READ_ONLY_PROGRAMS: frozenset[str] = frozenset(
    {
        "basename", "cat", "cmp", "df", "diff", "dirname", "du", "echo", "false", "find",
        "git", "grep", "head", "ls", "md5sum", "pwd", "realpath", "rg", "sha256sum", "stat",
        "tail", "true", "uname", "wc", "whoami",
    }
)  # fmt: skip

# Arguments that make an otherwise read-only program write or run something.
_REFUSED_ARGUMENTS: Mapping[str, tuple[str, ...]] = {
    "find": ("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0",
             "-fprintf", "-fls"),
    "rg": ("--pre", "--pre-glob"),
    "git": ("-c", "--exec-path", "--output", "--ext-diff", "--textconv", "--upload-pack",
            "--config-env"),
}  # fmt: skip

_READ_ONLY_GIT = frozenset(
    {"status", "diff", "log", "show", "blame", "ls-files", "rev-parse", "grep"}
)


class RestrictedPolicy:
    """A ``before_tool_call`` that lets process tools run only allow-listed programs.

    Call it as ``policy(call, arguments)``: ``None`` allows, a
    :class:`~agentkit.plugin_api.Block` refuses with a reason the model can
    act on. Tools other than ``execute``, ``run_command`` and ``powershell``
    are not judged (``None``); compose it with your own rules for them.

    :param programs: program names (no paths) that may run.
    """

    def __init__(self, programs: Iterable[str] = DEFAULT_READ_ONLY_PROGRAMS) -> None:
        self.programs = frozenset(programs)

    def __call__(self, call: ToolUseBlock, arguments: dict[str, Any]) -> Block | None:
        if call.name == "run_command":
            argv = arguments.get("argv")
            if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
                return Block("run_command needs argv as a non-empty list of strings")
            return self._check_argv(argv)
        if call.name == "execute":
            command = arguments.get("command")
            if not isinstance(command, str):
                return Block("execute needs command as a string")
            problem = _outside_grammar(command)
            if problem:
                return Block(
                    f"This session only allows a single simple command in execute; {problem}. "
                    "Run one program at a time, or use run_command with an argv list."
                )
            return self._check_argv(shlex.split(command))
        if call.name == "powershell":
            return Block(
                "This session does not allow powershell; use run_command with one of: "
                + ", ".join(sorted(self.programs))
            )
        return None

    def _check_argv(self, argv: list[str]) -> Block | None:
        if not argv:
            return Block("the command is empty")
        program = argv[0]
        if os.sep in program or "/" in program or program not in self.programs:
            return Block(
                f"{program!r} is not an allowed program in this session; allowed: "
                + ", ".join(sorted(self.programs))
            )
        for argument in argv[1:]:
            for refused in _REFUSED_ARGUMENTS.get(program, ()):
                if argument == refused or argument.startswith(refused + "="):
                    return Block(f"{program} {refused} is not allowed in this session")
        if program == "git":
            subcommand = next((a for a in argv[1:] if not a.startswith("-")), None)
            if subcommand not in _READ_ONLY_GIT:
                return Block(
                    f"git {subcommand or ''} is not allowed in this session; allowed: git "
                    + ", git ".join(sorted(_READ_ONLY_GIT))
                )
        return None


def _outside_grammar(command: str) -> str | None:
    """Why ``command`` is not a simple command of quoted words, or None."""
    quote: str | None = None
    for char in command:
        if quote == "'":
            if char == "'":
                quote = None
        elif quote == '"':
            if char == '"':
                quote = None
            elif char in _DOUBLE_QUOTED_SPECIAL:
                return f"{char!r} inside double quotes is not supported"
        elif char in "'\"":
            quote = char
        elif char in _UNQUOTED_SPECIAL:
            return f"{char!r} is a shell operator or expansion this policy does not interpret"
    if quote:
        return "a quote is not closed"
    return None


read_only_commands = RestrictedPolicy()
"""The shipped restrictive policy: read-only inspection programs only."""
