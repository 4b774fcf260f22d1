"""Resources, resource templates and prompts an embedder serves beside the tools.

They are registered in code (``ToolServer.add_resource``, ``add_resource_template``,
``add_prompt``); their contents are the SDK's wire types (``mcp_types``), since
they exist only on MCP. A reader or a prompt's renderer may ask the client for
input through :func:`~agentkit_mcp_server.served_call`, as a tool may.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: What a reader returns: text (``text``), bytes (``blob``), or the SDK's contents as they are.
ResourceBody = Any
#: ``complete(argument_name, partial_value, other_arguments) -> candidate values``.
Completer = Callable[[str, str, Mapping[str, str]], Sequence[str]]


@dataclass(slots=True)
class Resource:
    """A resource at a fixed ``uri``; ``read()`` (sync or async) returns ``str`` or ``bytes``."""

    uri: str
    name: str
    read: Callable[[], ResourceBody | Awaitable[ResourceBody]]
    description: str = ""
    mime_type: str | None = None


@dataclass(slots=True)
class ResourceTemplate:
    """Resources whose URIs match an RFC 6570 level-1 template, e.g. ``test://template/{id}/data``.

    ``read(variables)`` gets the values the URI gave each ``{name}``;
    ``complete``, when given, suggests values for a variable.
    """

    uri_template: str
    name: str
    read: Callable[[dict[str, str]], ResourceBody | Awaitable[ResourceBody]]
    description: str = ""
    mime_type: str | None = None
    complete: Completer | None = None
    _pattern: re.Pattern[str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        parts = re.split(r"\{([A-Za-z0-9_]+)\}", self.uri_template)
        pattern = "".join(re.escape(part) if i % 2 == 0 else f"(?P<{part}>[^/]+)" for i, part in enumerate(parts))
        self._pattern = re.compile(pattern + r"\Z")

    def match(self, uri: str) -> dict[str, str] | None:
        """The variables ``uri`` gives, or ``None`` when it is not one of this template's URIs."""
        found = self._pattern.match(uri)
        return None if found is None else found.groupdict()


@dataclass(slots=True)
class PromptArgument:
    """One argument of a prompt."""

    name: str
    description: str = ""
    required: bool = False


@dataclass(slots=True)
class Prompt:
    """A prompt template. ``render(arguments)`` (sync or async) returns its messages.

    Each message is an ``mcp_types.PromptMessage``, or a ``str`` taken as a user's text.
    ``complete``, when given, suggests values for an argument.
    """

    name: str
    render: Callable[[dict[str, str]], Any]
    description: str = ""
    arguments: list[PromptArgument] = field(default_factory=list)
    complete: Completer | None = None
