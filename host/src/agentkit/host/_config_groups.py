"""The named groups of an agent's configuration: ``Limits``, ``Timeouts``, ``Trust``, ``Connection``, ``Compaction``.

Each group is a frozen dataclass with defaults, like httpx's ``Timeout`` and
``Limits``: a user changes one group and reads one group, not a flat list of
thirty-five fields. A group checks its values when it is built (a deadline that
cannot work, a collaborator of the wrong type), so a mistake is reported where
it is written, by the group and field that hold it, never as an
``AttributeError`` in the middle of a request.

:class:`Compaction` says what of a long history each request carries; the
machinery that cuts is :mod:`._compaction`, loaded only when there is
something to cut, so that building a configuration (as serving tools does)
loads no estimate of tokens and no message codec. It is declared here rather
than in a module of its own: every configuration needs its default, and one
module fewer to find and load is 0.47 M instructions of a first use
(``bench/_first_use.py`` under callgrind).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from agentkit.plugin_api import Block, Defer, ToolUseBlock
from agentkit.plugin_api._dataclass import dataclass
from agentkit.plugin_api._lazy import DeferredModule

from .errors import ConfigError
from .runtime.credentials import CredentialStore
from .runtime.limits import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_READ_TIMEOUT,
    DEFAULT_REQUEST_TIMEOUT,
    ResponseLimits,
)
from .runtime.retry import RetryPolicy

if TYPE_CHECKING:
    import httpx

    from . import _budget
else:
    # Imported on first use (the check of a given budget, typing.get_type_hints(Limits)): a run without
    # a budget never loads it.
    _budget = DeferredModule("agentkit.host._budget")
    # Imported on first use (the check of a given transport, typing.get_type_hints(Connection)): a tool
    # server (agentkit mcp serve) makes no model request and so never loads httpx.
    httpx = DeferredModule("httpx")

__all__ = [
    "DEFAULT_HOOK_TIMEOUT",
    "DEFAULT_MAX_TOOL_RESULT_CHARS",
    "DEFAULT_TOOL_TIMEOUT",
    "MOVED",
    "NO_COMPACTION",
    "SUMMARY_PROMPT",
    "BeforeToolCall",
    "Compaction",
    "Connection",
    "Decision",
    "Limits",
    "Timeouts",
    "Trust",
]

#: Seconds one tool call may run (``Timeouts.tool``).
DEFAULT_TOOL_TIMEOUT = 600.0
#: Seconds a hook, the embedder's ``before_tool_call`` or a stop policy may take (``Timeouts.hook``).
DEFAULT_HOOK_TIMEOUT = 30.0
#: Characters of one tool result's text the model is shown (``Limits.max_tool_result_chars``).
DEFAULT_MAX_TOOL_RESULT_CHARS = 100_000

Decision: TypeAlias = Block | Defer | None
#: The embedder's authorization boundary: ``None`` allows, :class:`Block` refuses,
#: ``Block(reason, terminate=True)`` refuses and ends the run, :class:`Defer` asks a
#: person (the plugins' hooks may still block; only a durable run can wait for the
#: answer, any other run answers the call with an error naming ``--durable``).
#: May be sync or async.
BeforeToolCall: TypeAlias = Callable[[ToolUseBlock, dict[str, Any]], "Decision | Awaitable[Decision]"]


@dataclass(frozen=True)
class Limits:
    """How far one run may go, and how much of what it reads it keeps.

    :param max_turns: stop after this many turns (outcome ``max_turns``);
        ``None``: no limit. Default 50.
    :param budget: what one run may spend, a :class:`~agentkit.host.Budget`
        (turns, tokens, cost), its subagents' spending included; checked after
        each turn (outcome ``stop_policy``, ``stopped_by="budget"``). Subagents
        take their slices from what is left. Default: no limit but ``max_turns``.
    :param max_tool_result_chars: the longest tool result text the model is
        shown; a longer one is cut, with a note saying how much was cut.
        Default 100,000; ``None``: no cap.
    :param response: the most text, thinking and tool-call argument bytes one
        response may hold, a :class:`agentkit.host.runtime.ResponseLimits`;
        ``None`` uses the model's defaults, derived from its catalog
        ``max_output``. Past a limit the turn ends as an error.
    :raises ConfigError: a value that cannot work, naming the field.
    """

    max_turns: int | None = 50
    budget: _budget.Budget | None = None
    max_tool_result_chars: int | None = DEFAULT_MAX_TOOL_RESULT_CHARS
    response: ResponseLimits | None = None

    def __post_init__(self) -> None:
        _positive_or_none(self, "max_tool_result_chars")
        if self.budget is not None:
            _instance_or_none(self, "budget", _budget.Budget, "a Budget")
        _instance_or_none(self, "response", ResponseLimits, "a ResponseLimits")


@dataclass(frozen=True)
class Timeouts:
    """Seconds each part of a run may take; ``None`` removes a deadline where one can be removed.

    :param request: one model request in total, from sending it to the end of
        its response, retries included (keep-alive traffic does not extend
        it); past it the turn ends as an error. Default 900.
    :param connect: opening a connection to the provider (default 10; cannot be ``None``).
    :param read: the provider staying silent in the middle of a response
        (default 300: some models think silently for minutes; cannot be ``None``).
    :param tool: one tool call, before it is answered with a ``timeout`` error
        (its thread abandoned, its task cancelled); a tool's own
        ``Tool.timeout`` overrides it. Default 600.
    :param hook: a plugin hook, the embedder's ``before_tool_call`` or a stop
        policy. Past it a ``before_tool_call`` decision is a block, an
        observing hook is reported in the run's ``problems``, a stop policy
        ends the run as ``error``. Default 30.
    :param run: the whole run; past it the run ends with outcome ``timeout``.
        Default ``None``: no deadline.
    :raises ConfigError: a deadline that is not a positive number, naming the field.
    """

    request: float | None = DEFAULT_REQUEST_TIMEOUT
    connect: float = DEFAULT_CONNECT_TIMEOUT
    read: float = DEFAULT_READ_TIMEOUT
    tool: float | None = DEFAULT_TOOL_TIMEOUT
    hook: float | None = DEFAULT_HOOK_TIMEOUT
    run: float | None = None

    def __post_init__(self) -> None:
        for name in ("request", "tool", "hook", "run"):
            _positive_or_none(self, name)
        for name in ("connect", "read"):  # httpx's: they cannot be turned off
            value = getattr(self, name)
            if not _positive(value):
                raise ConfigError(f"Timeouts.{name} must be a positive number, got {value!r}")


@dataclass(frozen=True)
class Trust:
    """What the agent may act on: the project's own files, and which tool calls run.

    :param project: read what the project itself supplies to the prompt:
        skills under ``<root>/.agentkit/skills/`` and the ``AGENTS.md`` context
        files. Default false: a project you did not write cannot instruct the
        model until you say you trust it (as VS Code's workspace trust).
    :param before_tool_call: the authorization boundary, consulted before any
        plugin hook; see :data:`BeforeToolCall`. Tools that run arbitrary
        commands need one (:func:`~agentkit.host.allow_all` says so on purpose).
    """

    project: bool = False
    before_tool_call: BeforeToolCall | None = None


@dataclass(frozen=True)
class Connection:
    """How the agent reaches its provider, and what it may download.

    :param transport: an ``httpx.AsyncBaseTransport`` for provider traffic
        (tests use ``httpx.MockTransport``; the scripted provider is one);
        ``None`` uses httpx's own.
    :param retry: transport retries, a :class:`agentkit.host.runtime.RetryPolicy`;
        ``None`` retries nothing.
    :param credential_store: the application's credential store, any object
        with the methods of the :class:`agentkit.host.runtime.CredentialStore`
        protocol, consulted before the environment; OAuth tokens it holds are
        refreshed once per vendor.
    :param provider_options: wire-specific options passed on each request
        (``{"headers": {...}}`` adds or, with ``None``, removes headers).
    :param image_fetcher: downloads a URL image for a wire that takes no URLs
        (``url -> bytes``). Default ``None``: URL images are never fetched,
        and one sent to such a wire fails with an error saying so. Pass the
        SSRF-guarded ``agentkit_tools_web.image_fetcher()``. See
        ``docs/providers.md``, "Images".
    :raises ConfigError: a collaborator of the wrong type, naming the field.
    """

    transport: httpx.AsyncBaseTransport | None = None
    retry: RetryPolicy | None = None
    credential_store: CredentialStore | None = None
    provider_options: Mapping[str, Any] = field(default_factory=dict)
    image_fetcher: Callable[[str], bytes] | None = None

    def __post_init__(self) -> None:
        # What the annotations say, held at run time too: a wrong value would otherwise
        # fail as an AttributeError in the middle of a request.
        if self.transport is not None:  # only a given transport is checked: a config without one needs no httpx
            _instance_or_none(self, "transport", httpx.AsyncBaseTransport, "an httpx.AsyncBaseTransport")
        _instance_or_none(self, "retry", RetryPolicy, "a RetryPolicy")
        _instance_or_none(self, "credential_store", CredentialStore, "a CredentialStore")


def _positive(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and value > 0  # NaN is not > 0


def _positive_or_none(group: object, name: str) -> None:
    value = getattr(group, name)
    if value is not None and not _positive(value):
        raise ConfigError(f"{type(group).__name__}.{name} must be a positive number or None, got {value!r}")


def _instance_or_none(group: object, name: str, expected: type, what: str) -> None:
    value = getattr(group, name)
    if value is not None and not isinstance(value, expected):
        raise ConfigError(f"{type(group).__name__}.{name} must be {what} or None, got {type(value).__name__}")


# A string, read by type checkers and typing.get_type_hints alike: subscribing Literal at import cost
# 0.1 M instructions of a first use (bench/_first_use.py under callgrind).
Strategy: TypeAlias = 'Literal["none", "turn_window", "token_window", "summarize"]'
_STRATEGIES: tuple[str, ...] = ("none", "turn_window", "token_window", "summarize")

#: The system prompt of a summarization request, unless the configuration gives another.
SUMMARY_PROMPT = (
    "You summarize the beginning of a conversation between a user and an AI assistant that uses tools, "
    "so that the assistant can go on without it. Keep the user's goals and constraints, the decisions "
    "made, what was done and found (file names, commands, results, errors) and what remains to do. "
    "When a previous summary is given, extend it. Answer with the summary alone."
)


@dataclass(frozen=True)
class Compaction:
    """How much of its history an agent sends with each request (``AgentConfig.compaction``).

    Build one with :meth:`turn_window`, :meth:`token_window` or
    :meth:`summarize`; ``Compaction()`` sends everything.

    :param strategy: ``"none"``, ``"turn_window"``, ``"token_window"`` or ``"summarize"``.
    :param max_turns: the turn window: assistant turns a request keeps (also the
        fallback of a summary that failed).
    :param max_tokens: the token window: the estimated prompt tokens (messages,
        system prompt, tools) past which a request is cut.
    :param keep_tokens: what a cut keeps, in estimated tokens (default half of
        ``max_tokens``): the room left is what the following turns fill
        before the next cut.
    :param summary_prompt: the system prompt of a summarization request.
    :param summary_max_tokens: the output limit of a summarization request
        (clamped to the model's).
    """

    strategy: Strategy = "none"
    max_turns: int = 20
    max_tokens: int | None = None
    keep_tokens: int | None = None
    summary_prompt: str = SUMMARY_PROMPT
    summary_max_tokens: int = 2048

    def __post_init__(self) -> None:
        if self.strategy not in _STRATEGIES:
            raise ConfigError(f"compaction strategy {self.strategy!r} is unknown; use one of {', '.join(_STRATEGIES)}")
        if self.max_turns < 1:
            raise ConfigError(f"Compaction max_turns must be 1 or more, not {self.max_turns}")
        if self.strategy in ("token_window", "summarize") and (self.max_tokens is None or self.max_tokens < 1):
            raise ConfigError(f"the {self.strategy} compaction needs max_tokens (1 or more), not {self.max_tokens}")
        if self.keep_tokens is not None and not 0 < self.keep_tokens <= (self.max_tokens or 0):
            raise ConfigError(f"Compaction keep_tokens must be between 1 and max_tokens, not {self.keep_tokens}")
        if self.summary_max_tokens < 1:
            raise ConfigError(f"Compaction summary_max_tokens must be 1 or more, not {self.summary_max_tokens}")

    @classmethod
    def turn_window(cls, max_turns: int) -> Compaction:
        """Send the last ``max_turns`` assistant turns (with the tool results and messages after them)."""
        return cls("turn_window", max_turns=max_turns)

    @classmethod
    def token_window(cls, max_tokens: int, *, keep_tokens: int | None = None) -> Compaction:
        """Cut the oldest messages when a request would pass ``max_tokens``, keeping ``keep_tokens``."""
        return cls("token_window", max_tokens=max_tokens, keep_tokens=keep_tokens)

    @classmethod
    def summarize(cls, max_tokens: int, *, keep_tokens: int | None = None, max_turns: int = 20,
                  prompt: str = SUMMARY_PROMPT, summary_max_tokens: int = 2048) -> Compaction:
        """As :meth:`token_window`, with what is cut summarized; a failed summary falls back to ``max_turns``."""
        return cls("summarize", max_turns=max_turns, max_tokens=max_tokens, keep_tokens=keep_tokens,
                   summary_prompt=prompt, summary_max_tokens=summary_max_tokens)

    @property
    def kept_tokens(self) -> int:
        return self.keep_tokens if self.keep_tokens is not None else max(1, (self.max_tokens or 0) // 2)


#: The default: every request carries the whole history.
NO_COMPACTION = Compaction()


#: Each flat field of agentkit 0.1 (deprecated, see :mod:`._config_flat`): the group attribute of ``AgentConfig``
#: that holds it now, and its name there.
MOVED: dict[str, tuple[str, str]] = {
    "max_turns": ("limits", "max_turns"),
    "budget": ("limits", "budget"),
    "max_tool_result_chars": ("limits", "max_tool_result_chars"),
    "response_limits": ("limits", "response"),
    "request_timeout": ("timeouts", "request"),
    "connect_timeout": ("timeouts", "connect"),
    "read_timeout": ("timeouts", "read"),
    "tool_timeout": ("timeouts", "tool"),
    "hook_timeout": ("timeouts", "hook"),
    "run_timeout": ("timeouts", "run"),
    "trust_project": ("trust", "project"),
    "before_tool_call": ("trust", "before_tool_call"),
    "transport": ("connection", "transport"),
    "retry": ("connection", "retry"),
    "credential_store": ("connection", "credential_store"),
    "provider_options": ("connection", "provider_options"),
    "image_fetcher": ("connection", "image_fetcher"),
    "max_tokens": ("settings", "max_tokens"),
    "temperature": ("settings", "temperature"),
    "tool_choice": ("settings", "tool_choice"),
    "top_p": ("settings", "top_p"),
    "top_k": ("settings", "top_k"),
    "stop_sequences": ("settings", "stop_sequences"),
    "seed": ("settings", "seed"),
}
