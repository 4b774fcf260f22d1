"""The agent's configuration, its authorization decisions and its run result."""

from __future__ import annotations

import warnings
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

import httpx

from agentkit.plugin_api import AssistantMessage, Block, Message, Outcome, Tool, ToolUseBlock, Usage

from ._audit import AuditRecord, AuditSink
from ._budget import Budget
from ._compaction import NO_COMPACTION, Compaction
from ._stopping.policies import StopContext, StopPolicy
from .runtime.credentials import CredentialStore
from .runtime.limits import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_READ_TIMEOUT,
    DEFAULT_REQUEST_TIMEOUT,
    ResponseLimits,
)
from .runtime.retry import RetryPolicy

#: Seconds one tool call may run (``AgentConfig.tool_timeout``).
DEFAULT_TOOL_TIMEOUT = 600.0
#: Seconds a hook, the embedder's ``before_tool_call`` or a stop policy may take.
DEFAULT_HOOK_TIMEOUT = 30.0
#: Characters of one tool result's text the model is shown.
DEFAULT_MAX_TOOL_RESULT_CHARS = 100_000


Decision: TypeAlias = Block | None
#: The embedder's authorization boundary: ``None`` allows, :class:`Block` refuses,
#: ``Block(reason, terminate=True)`` refuses and ends the run. May be sync or async.
BeforeToolCall: TypeAlias = Callable[[ToolUseBlock, dict[str, Any]], "Decision | Awaitable[Decision]"]


def allow_all(call: ToolUseBlock, arguments: dict[str, Any]) -> None:
    """An explicit policy that allows every tool call.

    Pass it as ``before_tool_call`` to say, on purpose, that the model may run
    any tool the agent has, shell tools included.
    """
    return None


@dataclass
class AgentConfig:
    """Everything an :class:`~agentkit.host.Agent` needs besides its plugins.

    :param model: ``vendor/model`` from an installed provider's catalog.
    :param root: the workspace root tools must stay inside.
    :param system_prompt: instructions sent with every request.
    :param tools: tool names to enable; ``None`` enables every tool that is
        enabled by default (opt-in tools such as ``fetch_url`` need naming).
    :param extra_tools: :class:`~agentkit.plugin_api.Tool` values defined by the
        embedder, added to the plugins'.
    :param tool_options: per-tool options, handed to the tool's handler.
    :param before_tool_call: the authorization boundary, consulted before any
        plugin hook; see :data:`BeforeToolCall`.
    :param max_turns: stop after this many turns (``None``: no limit).
    :param stop_policy: a predicate consulted after each turn.
    :param max_tokens: output token limit per response (clamped to the model's).
    :param temperature: sampling temperature, clamped to the range the wire
        accepts; ``top_p``, ``top_k``, ``stop_sequences`` and ``seed`` are the
        other sampling settings. A setting the wire cannot carry or the model
        refuses ends the run with an error naming it (``docs/providers.md``).
        ``Agent.run(..., settings=...)`` overrides any of them for one run.
    :param tool_choice: ``"auto"``, ``"none"``, ``"required"`` or a tool's
        name; ``None`` leaves it to the wire. A forcing choice (``required``
        or a name) applies to each run's first request only, later ones use ``auto``.
    :param transport: an ``httpx.AsyncBaseTransport`` for provider traffic (tests
        use ``httpx.MockTransport``; the scripted provider is one); ``None``
        uses httpx's own.
    :param provider_options: wire-specific options passed on each request
        (``{"headers": {...}}`` adds or, with ``None``, removes headers).
    :param retry: transport retries, a :class:`agentkit.host.runtime.RetryPolicy`;
        ``None`` retries nothing.
    :param credential_store: the application's credential store, any object
        with the methods of the :class:`agentkit.host.runtime.CredentialStore`
        protocol, consulted before the environment; OAuth tokens it holds are refreshed once per vendor.
    :param request_timeout: seconds one model request may take in total, from
        sending it to the end of its response, retries included (keep-alive
        traffic does not extend it); past it the turn ends as an error.
        Default 900; ``None`` removes the deadline.
    :param connect_timeout: seconds to open a connection to the provider (default 10).
    :param read_timeout: seconds the provider may stay silent in the middle of
        a response (default 300: some models think silently for minutes).
    :param response_limits: the most text, thinking and tool-call argument
        bytes one response may hold (``agentkit.host.runtime.ResponseLimits``);
        ``None`` uses the model's defaults, derived from its catalog
        ``max_output``. Past a limit the turn ends as an error.
    :param tool_timeout: seconds one tool call may run before it is answered
        with a ``timeout`` error (its thread abandoned, its task cancelled);
        a tool's own ``Tool.timeout`` overrides it. Default 600; ``None``:
        no deadline.
    :param hook_timeout: seconds a plugin hook, the embedder's
        ``before_tool_call`` or a stop policy may take. Past it a
        ``before_tool_call`` decision is a block, an observing hook is
        reported in the run's ``problems``, a stop policy ends the run as
        ``error``. Default 30; ``None``: no deadline.
    :param run_timeout: seconds the whole run may take; past it the run ends
        with outcome ``timeout``. Default ``None``: no deadline.
    :param max_tool_result_chars: the longest tool result text the model is
        shown; a longer one is cut, with a note saying how much was cut.
        Default 100,000; ``None``: no cap.
    :param trust_project: read what the project itself supplies to the prompt:
        skills under ``<root>/.agentkit/skills/`` and the ``AGENTS.md`` context
        files. Default false: a project you did not write cannot instruct the
        model until you say you trust it.
    :param compaction: what of a long history each request carries, a
        :class:`~agentkit.host.Compaction` (turn window, token window,
        summarization); default: all of it. See ``docs/sessions.md``.
    :param audit: where the audit trail goes: an
        :class:`~agentkit.host.AuditSink` (an object with ``record``, such as
        :class:`~agentkit.host.JsonlAuditSink`) or a function of one
        :class:`~agentkit.host.AuditRecord`. With a session, the records are
        also written into its log. A sink that raises is reported in
        ``RunResult.problems`` and the run goes on. See ``docs/sessions.md``.
    :param budget: what one run may spend, a :class:`~agentkit.host.Budget`
        (turns, tokens, cost), its subagents' spending included; checked after
        each turn (outcome ``stop_policy``, ``stopped_by="budget"``). Subagents
        take their slices from what is left. Default: no limit but ``max_turns``.
    :param image_fetcher: downloads a URL image for a wire that takes no URLs
        (``url -> bytes``). Default ``None``: URL images are never fetched,
        and one sent to such a wire fails with an error saying so. Pass the
        SSRF-guarded ``agentkit_tools_web.image_fetcher()``. See
        ``docs/providers.md``, "Images".
    """

    model: str
    root: Path | str = "."
    system_prompt: str | None = None
    tools: Sequence[str] | None = None
    extra_tools: Sequence[Tool] = ()
    tool_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    before_tool_call: BeforeToolCall | None = None
    max_turns: int | None = 50
    stop_policy: StopPolicy | Callable[[StopContext], bool] | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    tool_choice: str | None = None
    top_p: float | None = None
    top_k: int | None = None
    stop_sequences: Sequence[str] = ()
    seed: int | None = None
    reasoning: str | None = None
    transport: httpx.AsyncBaseTransport | None = None
    provider_options: Mapping[str, Any] = field(default_factory=dict)
    session_id: str | None = None
    retry: RetryPolicy | None = None
    credential_store: CredentialStore | None = None
    request_timeout: float | None = DEFAULT_REQUEST_TIMEOUT
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    read_timeout: float = DEFAULT_READ_TIMEOUT
    response_limits: ResponseLimits | None = None
    tool_timeout: float | None = DEFAULT_TOOL_TIMEOUT
    hook_timeout: float | None = DEFAULT_HOOK_TIMEOUT
    run_timeout: float | None = None
    max_tool_result_chars: int | None = DEFAULT_MAX_TOOL_RESULT_CHARS
    trust_project: bool = False
    compaction: Compaction = NO_COMPACTION
    audit: AuditSink | Callable[[AuditRecord], object] | None = None
    budget: Budget | None = None
    image_fetcher: Callable[[str], bytes] | None = None


@dataclass
class RunResult:
    """How a run ended and what it added to the history.

    :param outcome: how the run ended (:class:`~agentkit.plugin_api.Outcome`):
        ``completed`` (the model answered without tool calls), ``max_turns``,
        ``stop_policy``, ``terminated`` (a hook or ``before_tool_call``
        returned ``Block(reason, terminate=True)``), ``error`` (a provider,
        plugin or host failure), ``aborted`` (``Agent.abort``, Ctrl-C, or the
        consumer of ``Agent.stream`` stopped reading), ``cancelled`` (the task
        awaiting the run was cancelled) or ``timeout``
        (``AgentConfig.run_timeout``). Never ``completed`` after a failure.
        Each message keeps its own ``stop_reason``, what the model said.
    :param messages: what the run added to the history: every tool call of it
        has exactly one result, right after the message that made it.
    :param error: what went wrong, for ``error``, ``cancelled`` and ``timeout``.
    :param problems: one line each for plugin hooks and listeners that raised,
        and for handlers or hooks that missed their deadline and were
        abandoned; they never stop a run, but they are not hidden either.
    :param skills: the skills the model activated during the run (it read
        their instructions), in order; ``Agent.active_skills`` holds the session's.
    :param stopped_by: the name of the stop policy that ended the run
        (``max_turns``, or a policy's own name, see ``stop_when``), for the
        outcomes ``max_turns`` and ``stop_policy``; otherwise ``None``.
    :param output: for a run given an ``output_type``, the validated value of
        that type the model gave as its final answer; otherwise ``None``.
    """

    outcome: Outcome
    messages: list[Message]
    usage: Usage
    turns: int
    error: str | None = None
    problems: list[str] = field(default_factory=list)
    skills: list[str] = field(default_factory=list)
    stopped_by: str | None = None
    output: Any = None

    def __repr__(self) -> str:
        # One short line whatever the run's length: asyncio.run (3.11) builds the
        # repr of the task that returned this, twice, and a debugger shows it.
        return (f"RunResult(outcome={self.outcome.value!r}, turns={self.turns}, messages={len(self.messages)}, "
                f"error={self.error!r}, stopped_by={self.stopped_by!r})")

    @property
    def stop_reason(self) -> str:
        """Deprecated: the run's end is :attr:`outcome` (and :attr:`stopped_by`); ``stop_reason`` is a message's."""
        warnings.warn("RunResult.stop_reason is deprecated: use RunResult.outcome (an agentkit.plugin_api.Outcome) "
                      "and, for a stop policy, RunResult.stopped_by", DeprecationWarning, stacklevel=2)
        return self.stopped_by or self.outcome.value

    @property
    def final_message(self) -> AssistantMessage | None:
        for message in reversed(self.messages):
            if isinstance(message, AssistantMessage):
                return message
        return None

    @property
    def text(self) -> str:
        """The text of the last assistant message."""
        final = self.final_message
        return final.text if final else ""
