"""Commands that installed distributions contribute to ``agentkit`` (docs/decisions/0017).

A distribution declares ``NAME = module:function`` under the ``agentkit.commands``
entry points; ``agentkit NAME ARGS`` imports ``module`` then and only then, and
returns ``function(ARGS)`` as the exit code. ``agentkit --help`` lists the
commands from the metadata alone, so a broken or slow command costs nothing
until it is named. A built-in command is never replaced.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from importlib import import_module

from .._entry_points import command_entry_points, summary

TYPE_CHECKING = False  # typing itself costs more than this module; type checkers honour the flag
if TYPE_CHECKING:
    from .._entry_points import EntryPointLike


def contributed_commands(built_in: Sequence[str]) -> dict[str, EntryPointLike]:
    """The commands installed distributions contribute, less the built-in ones."""
    return {name: ep for name, ep in command_entry_points(os.environ).items() if name not in built_in}


def help_line(ep: EntryPointLike) -> str:
    """The command's line in ``agentkit --help``: its distribution's summary and name."""
    origin = f"{ep.dist.name} {ep.dist.version}" if ep.dist else ep.value
    text = summary(ep).rstrip(".")
    return f"{text} (from {origin})" if text else f"from {origin}"


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
