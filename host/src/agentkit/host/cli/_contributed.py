"""Commands that installed distributions contribute to ``agentkit`` (docs/decisions/0017).

A distribution declares ``NAME = module:function`` under the ``agentkit.commands``
entry points; ``agentkit NAME ARGS`` imports ``module`` then and only then, and
returns ``function(ARGS)`` as the exit code. ``agentkit --help`` lists the
commands from the metadata alone, so a broken or slow command costs nothing
until it is named. A built-in command is never replaced, and a name that could
pass for an option, hold a control character or whitespace, or read as a
built-in command in another case is refused: not installed, and named by
``agentkit plugins --check`` (docs/decisions/0028).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from importlib import import_module

from .._entry_points import command_entry_points, summary

# Kept out of `agentkit --help` and `agentkit plugins`, as in agentkit.host.cli (typing: 2.2-2.4 ms
# more after the CLI's 9 ms, by `python -X importtime`); type checkers honour the flag.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from .._entry_points import EntryPointLike


def contributed_commands(built_in: Sequence[str]) -> dict[str, EntryPointLike]:
    """The commands installed distributions contribute, less the built-in ones and those refused."""
    return {name: ep for name, ep in command_entry_points(os.environ).items()
            if command_name_problem(name, built_in) is None}


def refused_commands(built_in: Sequence[str]) -> list[str]:
    """Why each contributed command that is not installed was refused: one line each, naming the fix."""
    problems = []
    for name, ep in command_entry_points(os.environ).items():
        problem = command_name_problem(name, built_in)
        if problem is not None:
            problems.append(f"{name!r} from {_origin(ep)}: {problem}; rename it in the distribution's "
                            "agentkit.commands entry points")
    return problems


def command_name_problem(name: str, built_in: Sequence[str]) -> str | None:
    """Why ``name`` cannot be an ``agentkit`` command, or ``None``.

    Refused: an empty name, one starting with ``-`` (it would read as an
    option), one holding whitespace or a character that is not printable (a
    control, a bidirectional override), and one equal to a built-in command in
    any case (``RUN`` beside ``run``).
    """
    if not name:
        return "the name is empty"
    if name.startswith("-"):
        return "the name starts with '-', as an option does"
    if any(char.isspace() or not char.isprintable() for char in name):
        return "the name holds whitespace or a control character"
    folded = name.casefold()
    for command in built_in:
        if folded == command.casefold():
            return (f"the name is the built-in command {command!r}" if name == command
                    else f"the name shadows the built-in command {command!r}")
    return None


def help_line(ep: EntryPointLike) -> str:
    """The command's line in ``agentkit --help``: its distribution's summary and name, controls shown."""
    from .._terminal import visible_line

    text = summary(ep).rstrip(".")
    return visible_line(f"{text} (from {_origin(ep)})" if text else f"from {_origin(ep)}")


def _origin(ep: EntryPointLike) -> str:
    return f"{ep.dist.name} {ep.dist.version}" if ep.dist else ep.value


def run(name: str, ep: EntryPointLike, argv: list[str]) -> int:
    """Import the command ``name`` and run it with ``argv``; a failure to load is a usage error."""
    from agentkit.plugin_api.errors import UsageError

    module_name, _, attribute = ep.value.partition(":")
    origin = f"{ep.dist.name} {ep.dist.version}" if ep.dist else ep.value
    try:
        target = import_module(module_name.strip())
        for part in attribute.strip().split(".") if attribute.strip() else ():
            target = getattr(target, part)
    except Exception as exc:  # a broken distribution: one line, never a traceback
        raise UsageError(
            f"the command {name!r} from {origin} failed to load ({type(exc).__name__}: {exc}); "
            f"reinstall it, or switch it off with AGENTKIT_DISABLE_PLUGINS={ep.dist.name if ep.dist else name}"
        ) from None
    if not callable(target):
        raise UsageError(f"the command {name!r} from {origin} names {ep.value!r}, which is not a function")
    return int(target(argv) or 0)
