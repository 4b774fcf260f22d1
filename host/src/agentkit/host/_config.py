"""The agent's configuration, its authorization decisions and its run result."""

from __future__ import annotations

import warnings
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import field
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, Unpack

from agentkit.plugin_api import AssistantMessage, Message, Outcome, Tool, ToolUseBlock, Usage
from agentkit.plugin_api._dataclass import dataclass
from agentkit.plugin_api._lazy import DeferredModule

from ._config_groups import (
    DEFAULT_HOOK_TIMEOUT,
    DEFAULT_MAX_TOOL_RESULT_CHARS,
    DEFAULT_TOOL_TIMEOUT,
    MOVED,
    NO_COMPACTION,
    BeforeToolCall,
    Compaction,
    Connection,
    Decision,
    Limits,
    Timeouts,
    Trust,
)
from ._settings import ModelSettings, check_settings
from ._stopping.policies import StopContext, StopPolicy
from .errors import ConfigError

if TYPE_CHECKING:
    from . import _audit
    from . import _config_flat as _moves
    from . import _config_flat_fields as _flat
    from ._config_flat_fields import FlatReadTypes as _FlatReadTypes
else:
    # Imported on first use (typing.get_type_hints(AgentConfig) resolving ``audit``): the trail's records
    # and sinks load with an agent that keeps one, never with a plain configuration; the flat keywords'
    # types, with typing.get_type_hints(AgentConfig.__init__).
    _audit = DeferredModule("agentkit.host._audit")
    _flat = DeferredModule("agentkit.host._config_flat_fields")
    # The flat keywords and writes of 0.1 (deprecated): moved into the groups, with a warning, by a module
    # loaded with the first one. Their types, for type checkers alone: stubs in a class body are code objects
    # every process would read though none runs them.
    _moves = DeferredModule("agentkit.host._config_flat")
    _FlatReadTypes = object

if TYPE_CHECKING:
    # A default for the type parameter (PEP 696; ``typing`` has it from Python 3.13) is read by type
    # checkers only, and they ship their own ``typing_extensions``: nothing imports it at run time,
    # so it is no dependency (docs/decisions/0036-typed-run-results.md).
    from typing_extensions import TypeVar

    #: The type of a run's ``output``; a bare ``RunResult`` is ``RunResult[Any]``, as before it was generic.
    OutputT = TypeVar("OutputT", default=Any)
    #: The output type of an agent's runs: a bare ``Agent`` is ``Agent[None]``, as ``Agent(config)`` is.
    AgentOutputT = TypeVar("AgentOutputT", default=None)
else:
    from typing import TypeVar

    OutputT = TypeVar("OutputT")
    AgentOutputT = TypeVar("AgentOutputT")

#: An output validator (``AgentConfig.output_validators``): called with the run's output (the validated
#: value of a run with an ``output_type``, else the final text), sync or async; it raises ``Retry(reason)``
#: to refuse it. What it returns is ignored: a validator cannot replace the output.
OutputValidator: TypeAlias = Callable[[Any], "object | Awaitable[object]"]

#: What ``output_type`` takes (``Agent(...)``, ``run``, ``stream``): a class, a JSON Schema, or ``None``.
OutputTypeArg: TypeAlias = type[Any] | Mapping[str, Any] | None

__all__ = [
    "DEFAULT_HOOK_TIMEOUT",
    "DEFAULT_MAX_TOOL_RESULT_CHARS",
    "DEFAULT_TOOL_TIMEOUT",
    "AgentConfig",
    "AgentOutputT",
    "BeforeToolCall",
    "Connection",
    "Decision",
    "Limits",
    "OutputT",
    "OutputTypeArg",
    "OutputValidator",
    "RunResult",
    "Timeouts",
    "Trust",
    "allow_all",
    "check_config",
]


def allow_all(call: ToolUseBlock, arguments: dict[str, Any]) -> None:
    """An explicit policy that allows every tool call.

    Pass it as ``Trust(before_tool_call=allow_all)`` to say, on purpose, that
    the model may run any tool the agent has, shell tools included.
    """
    return None


#: What a model setting the config does not set reads as (what 0.1's field defaults were).
_UNSET_SETTING: dict[str, Any] = {"stop_sequences": ()}


def _read(group: str, key: str) -> Callable[[Any], Any]:
    if group == "settings":
        default = _UNSET_SETTING.get(key)
        return lambda config: config.settings.get(key, default)
    # A C getter: a flat read costs the loop no bytecode (bench_loop counts them).
    return attrgetter(f"{group}.{key}")


def _write(name: str) -> Callable[[Any, Any], None]:
    def write(config: Any, value: Any) -> None:
        _moves.apply_flat(config, {name: value}, stacklevel=3)
    return write


class FlatReads(_FlatReadTypes):
    """The flat attributes of 0.1 as properties over the groups: reads answer, writes warn and move.

    What a type checker sees of them is :class:`._config_flat_fields.FlatReadTypes`; here they are made from
    :data:`MOVED`, in the class's namespace rather than set on the made class (which costs a class update each).
    """

    if not TYPE_CHECKING:
        for _name, (_group, _key) in MOVED.items():
            vars()[_name] = property(_read(_group, _key), _write(_name), doc=f"Deprecated: read ``{_group}.{_key}``.")
        del _name, _group, _key


# Frozen groups are shared safely by every config that keeps a default.
_LIMITS, _TIMEOUTS, _TRUST, _CONNECTION = Limits(), Timeouts(), Trust(), Connection()


@dataclass(init=False)
class AgentConfig(FlatReads):
    """Everything an :class:`~agentkit.host.Agent` needs besides its plugins.

    What the agent is comes first; the rest is in named groups, each with its
    defaults, changed one group at a time::

        AgentConfig(model="anthropic/claude-sonnet-4-5", limits=Limits(max_turns=10),
                    timeouts=Timeouts(tool=60), trust=Trust(before_tool_call=allow_all))

    :param model: ``vendor/model`` from an installed provider's catalog, or
        a list of them: the first serves every turn it can, and a turn whose
        request it fails in a way another model may cure (a connection
        failure, 429, a 5xx such as 529 overloaded; after the retries, and
        before any of its response arrived) goes to the next one, the
        transcript repaired for that model's wire. A failure that is the
        caller's (400, 401, 403, 404) goes nowhere else. See
        ``docs/providers.md`` ("Fallback models").
    :param root: the workspace root tools must stay inside.
    :param system_prompt: instructions sent with every request.
    :param tools: tool names to enable; ``None`` enables every tool that is
        enabled by default (opt-in tools such as ``fetch_url`` need naming).
    :param extra_tools: :class:`~agentkit.plugin_api.Tool` values defined by the
        embedder, added to the plugins'.
    :param tool_options: per-tool options, handed to the tool's handler.
    :param settings: the model settings, a :class:`~agentkit.host.ModelSettings`
        (``max_tokens``, ``temperature``, ``top_p``, ``top_k``,
        ``stop_sequences``, ``seed``, ``tool_choice``). Values are clamped to the
        range the wire accepts; one the wire cannot carry or the model refuses
        ends the run with an error naming it (``docs/providers.md``).
        ``Agent.run(..., settings=...)`` overrides any of them for one run. A
        forcing ``tool_choice`` (``required`` or a name) applies to each run's
        first request only, later ones use ``auto``.
    :param reasoning: the thinking level (``off``, ``low``, ``medium``,
        ``high``...), clamped to what the model supports; a session records it.
    :param limits: how far a run may go: turns, budget, tool result and
        response sizes (:class:`~agentkit.host.Limits`).
    :param timeouts: seconds each part of a run may take: request, connect,
        read, tool, hook, run (:class:`~agentkit.host.Timeouts`).
    :param trust: what the agent may act on: the project's own files and the
        authorization boundary ``before_tool_call`` (:class:`~agentkit.host.Trust`).
    :param connection: how the agent reaches its provider: transport, retry,
        credentials, wire options, image downloads (:class:`~agentkit.host.Connection`).
    :param stop_policy: a predicate consulted after each turn.
    :param compaction: what of a long history each request carries, a
        :class:`~agentkit.host.Compaction` (turn window, token window,
        summarization); default: all of it. See ``docs/sessions.md``.
    :param audit: where the audit trail goes: an
        :class:`~agentkit.host.AuditSink` (an object with ``record``, such as
        :class:`~agentkit.host.JsonlAuditSink`) or a function of one
        :class:`~agentkit.host.AuditRecord`. With a session, the records are
        also written into its log. A sink that raises is reported in
        ``RunResult.problems`` and the run goes on. See ``docs/sessions.md``.
    :param session_id: the id of a new session's log (default: a fresh one).
    :param output_retries: how many times in a run the final answer may be
        refused and the model asked again: by an output validator, an output
        guardrail, or a structured output that does not fit its type. Past
        it the run ends as ``error`` (``guardrail`` for a guardrail's
        refusal). Default 1; 0: no retry.
    :param output_validators: functions of the run's output (the validated
        value of a run with an ``output_type``, else the final text), sync or
        async, called in order when the model's answer would end the run; one
        raises :class:`~agentkit.plugin_api.Retry` to send its reason back to
        the model, within ``output_retries``. What they return is ignored: a
        validator refuses, it never replaces the output. See ``docs/embedding.md``.

    The flat keywords of 0.1 (``max_turns=``, ``tool_timeout=``,
    ``temperature=``...) still work, with a :class:`DeprecationWarning` naming
    their group, until 0.3; reading ``config.max_turns`` answers from the group.
    """

    model: str | Sequence[str]
    root: Path | str
    system_prompt: str | None
    tools: Sequence[str] | None
    extra_tools: Sequence[Tool]
    tool_options: Mapping[str, Mapping[str, Any]]
    settings: ModelSettings
    reasoning: str | None
    limits: Limits
    timeouts: Timeouts
    trust: Trust
    connection: Connection
    stop_policy: StopPolicy | Callable[[StopContext], bool] | None
    compaction: Compaction
    audit: _audit.AuditSink | Callable[[_audit.AuditRecord], object] | None
    session_id: str | None
    output_retries: int
    output_validators: Sequence[OutputValidator]

    def __init__(
        self,
        model: str | Sequence[str],
        root: Path | str = ".",
        system_prompt: str | None = None,
        tools: Sequence[str] | None = None,
        extra_tools: Sequence[Tool] = (),
        tool_options: Mapping[str, Mapping[str, Any]] | None = None,
        *,
        settings: ModelSettings | None = None,
        reasoning: str | None = None,
        limits: Limits = _LIMITS,
        timeouts: Timeouts = _TIMEOUTS,
        trust: Trust = _TRUST,
        connection: Connection = _CONNECTION,
        stop_policy: StopPolicy | Callable[[StopContext], bool] | None = None,
        compaction: Compaction = NO_COMPACTION,
        audit: _audit.AuditSink | Callable[[_audit.AuditRecord], object] | None = None,
        session_id: str | None = None,
        output_retries: int = 1,
        output_validators: Sequence[OutputValidator] = (),
        **flat: Unpack[_flat.FlatFields],
    ) -> None:
        self.model = model
        self.root = root
        self.system_prompt = system_prompt
        self.tools = tools
        self.extra_tools = extra_tools
        self.tool_options = {} if tool_options is None else tool_options
        self.settings = ModelSettings() if settings is None else settings
        self.reasoning = reasoning
        self.limits = limits
        self.timeouts = timeouts
        self.trust = trust
        self.connection = connection
        self.stop_policy = stop_policy
        self.compaction = compaction
        self.audit = audit
        self.session_id = session_id
        self.output_retries = output_retries
        self.output_validators = output_validators
        if flat:
            _moves.apply_flat(self, flat, stacklevel=3)

    @property
    def models(self) -> tuple[str, ...]:
        """:attr:`model` as a tuple: the model first, then its fallbacks in order (none for one model)."""
        return (self.model,) if isinstance(self.model, str) else tuple(self.model)


#: Each group attribute and the class it must hold.
_GROUPS = (("limits", Limits), ("timeouts", Timeouts), ("trust", Trust), ("connection", Connection))


def check_config(config: AgentConfig) -> None:
    """Refuse what cannot work before anything uses it, naming the field and the fix.

    The groups check their own values when built; this holds that each group
    is one (a dict passed as ``limits`` would fail later, as an
    ``AttributeError`` in the middle of a run), the model settings' names,
    and the embedder's tools.

    :raises ConfigError: the first value that cannot work.
    """
    for name, group in _GROUPS:
        value = getattr(config, name)
        if not isinstance(value, group):
            raise ConfigError(f"AgentConfig.{name} must be a {group.__name__}, got {type(value).__name__}: "
                              f"write AgentConfig({name}={group.__name__}(...))")
    _check_models(config.model)
    check_settings(config.settings)
    retries = config.output_retries
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise ConfigError(f"AgentConfig.output_retries must be a whole number, 0 or more, got {retries!r}")
    for index, validator in enumerate(config.output_validators):
        if not callable(validator):
            raise ConfigError(f"AgentConfig.output_validators[{index}] must be a function of the output, "
                              f"got {type(validator).__name__}")
    for index, tool in enumerate(config.extra_tools):
        if not isinstance(tool, Tool):
            raise ConfigError(
                f"AgentConfig.extra_tools[{index}] must be a Tool, got {type(tool).__name__}: "
                "wrap a function with Tool.from_function"
            )


def _check_models(model: object) -> None:
    """``model`` is a ``vendor/model`` string or a non-empty list of distinct ones."""
    if isinstance(model, str):
        return
    fix = 'write AgentConfig(model="vendor/model") or AgentConfig(model=["vendor/model", "fallback/model"])'
    if not isinstance(model, Sequence) or not model:
        raise ConfigError(f"AgentConfig.model must be a vendor/model string or a non-empty list of them, "
                          f"got {model!r}: {fix}")
    for index, name in enumerate(model):
        if not isinstance(name, str):
            raise ConfigError(f"AgentConfig.model[{index}] must be a vendor/model string, got "
                              f"{type(name).__name__}: {fix}")
        if name in model[:index]:
            raise ConfigError(f"AgentConfig.model lists {name!r} twice: a fallback model must be another model")


@dataclass
class RunResult(Generic[OutputT]):
    """How a run ended and what it added to the history.

    Generic in the type of :attr:`output`: ``await agent.run(prompt,
    output_type=Invoice)`` returns a ``RunResult[Invoice]``, a run without an
    ``output_type`` a ``RunResult[None]``.

    :param outcome: how the run ended (:class:`~agentkit.plugin_api.Outcome`):
        ``completed`` (the model answered without tool calls), ``max_turns``,
        ``stop_policy``, ``terminated`` (a hook or ``before_tool_call``
        returned ``Block(reason, terminate=True)``), ``error`` (a provider,
        plugin or host failure), ``aborted`` (``Agent.abort``, Ctrl-C, or the
        consumer of ``Agent.stream`` stopped reading), ``cancelled`` (the task
        awaiting the run was cancelled), ``timeout``
        (``AgentConfig.run_timeout``) or ``guardrail`` (a plugin's guardrail
        blocked a message or refused the answer past ``output_retries``).
        Never ``completed`` after a failure.
        Each message keeps its own ``stop_reason``, what the model said.
    :param messages: what the run added to the history: every tool call of it
        has exactly one result, right after the message that made it.
    :param error: what went wrong, for ``error``, ``cancelled``, ``timeout`` and ``guardrail``.
    :param problems: one line each for plugin hooks and listeners that raised,
        and for handlers or hooks that missed their deadline and were
        abandoned; they never stop a run, but they are not hidden either.
    :param skills: the skills the model activated during the run (it read
        their instructions), in order; ``Agent.active_skills`` holds the session's.
    :param stopped_by: the name of the stop policy that ended the run
        (``max_turns``, or a policy's own name, see ``stop_when``), for the
        outcomes ``max_turns`` and ``stop_policy``; otherwise ``None``.
    :param output: for a run given an ``output_type``, the validated value of
        that type the model gave as its final answer; ``None`` for a run
        without one, and for a run that ended (``error``, ``aborted``...)
        before the model gave a value that fits: so a type checker reads
        ``RunResult[Invoice].output`` as ``Invoice | None``.
    """

    outcome: Outcome
    messages: list[Message]
    usage: Usage
    turns: int
    error: str | None = None
    problems: list[str] = field(default_factory=list)
    skills: list[str] = field(default_factory=list)
    stopped_by: str | None = None
    output: OutputT | None = None

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
