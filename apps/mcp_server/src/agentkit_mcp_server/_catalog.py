"""Resources, resource templates and prompts an embedder serves beside the tools.

They are registered in code (``ToolServer.add_resource``, ``add_resource_template``,
``add_prompt``); their contents are the SDK's wire types (``mcp_types``), since
they exist only on MCP. A reader or a prompt's renderer may ask the client for
input through :func:`~agentkit_mcp_server.served_call`, as a tool may.
"""

from __future__ import annotations

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


class UnsafeValue(ValueError):
    """A URI a template matches, with a value the template refuses (see :meth:`ResourceTemplate.match`)."""


@dataclass(slots=True)
class ResourceTemplate:
    """Resources whose URIs match an RFC 6570 template, e.g. ``memo://shelf/{shelf}/item/{id}``.

    Matching is the official SDK's (``mcp.shared.uri_template``): levels 1 to 3,
    so ``{var}`` takes one path segment, ``{+path}`` takes the rest of a path
    with its slashes, and ``{#section}`` takes the fragment; values are
    percent-decoded. ``read(variables)`` gets the value of each variable (a
    list for an exploded one, ``{/segments*}``); ``complete``, when given,
    suggests values for a variable. As in the SDK's server, a value holding a
    ``..`` segment, an absolute path or a NUL byte is refused (the URI is an
    unknown resource) unless its variable is in ``unchecked``. An empty value
    does not match, but for query parameters (``{?q,lang}``), which may also be
    left out (and are then missing from ``variables``).

    :raises ValueError: a template the SDK cannot parse or match unambiguously
        (two variables with no literal between them, two multi-segment ones).
    """

    uri_template: str
    name: str
    read: Callable[[dict[str, Any]], ResourceBody | Awaitable[ResourceBody]]
    description: str = ""
    mime_type: str | None = None
    complete: Completer | None = None
    #: Variables whose values may hold ``..`` segments or absolute paths (a git range, say).
    unchecked: frozenset[str] = frozenset()
    _parsed: Any = field(init=False, repr=False)

    def __post_init__(self) -> None:
        from mcp.shared.uri_template import InvalidUriTemplate, UriTemplate

        try:
            self._parsed = UriTemplate.parse(self.uri_template)
        except InvalidUriTemplate as exc:
            raise ValueError(f"resource template {self.uri_template!r}: {exc}") from None

    def match(self, uri: str) -> dict[str, Any] | None:
        """The variables ``uri`` gives, or ``None`` when it is not one of this template's URIs.

        :raises UnsafeValue: it is, with a value this template refuses (see the class).
        """
        from mcp.shared.path_security import contains_path_traversal, is_absolute_path

        variables = self._parsed.match(uri)
        optional = self._parsed.query_variable_names  # a query parameter may be left out, or left empty
        if variables is None or any(value in ("", []) for name, value in variables.items() if name not in optional):
            return None
        for name, value in variables.items():
            if name in self.unchecked:
                continue
            for one in value if isinstance(value, list) else [value]:
                if "\0" in one or contains_path_traversal(one) or is_absolute_path(one):
                    raise UnsafeValue(f"the value of {name!r} in {uri!r} leaves its path")
        return dict(variables)


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
