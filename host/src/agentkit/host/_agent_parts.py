"""What an agent builds from its configuration once, when it is made: its runtime, fallbacks, stop policy and
the structured output of an output type."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from agentkit.plugin_api import Message, ModelInfo, Provider

from ._config import AgentConfig, check_config
from ._plugins import PluginHost
from ._repair import TranscriptRepair
from ._route import Route
from ._stopping.policies import StopPolicy, any_of, as_policy, max_turns
from ._system_prompt import may_have_context_files
from .runtime import Pricing, ProviderRuntime, http_timeouts
from .skills._folders import user_home

if TYPE_CHECKING:
    from pathlib import Path

    from ._audit import RunAudit
    from ._compaction import Compactor
    from ._context_files import ContextFile
    from ._structured import StructuredOutput
    from ._toolset import Toolset
    from .sessions._tree import Resume

__all__ = ["agent_compactor", "agent_models", "check_agent", "context_files", "provider_runtime", "run_audit",
           "run_structured", "stop_policy", "structured_output"]


def check_agent(config: AgentConfig, output_type: Any) -> None:
    """Refuse what no run of an agent of ``config`` and ``output_type`` could use, before anything is built.

    :raises ConfigError: a value that cannot work (:func:`._config.check_config`), an output type no
        run can end with, an audit sink that cannot be called synchronously.
    """
    check_config(config)
    if output_type is not None:
        structured_output(output_type)
    if config.audit is not None:  # the trail's module loads for an agent that keeps one
        from ._audit import check_sink

        check_sink(config.audit)


def context_files(root: Path, trusted: bool, toolset: Toolset) -> tuple[list[ContextFile], list[str]]:
    """The context files (``AGENTS.md`` and kin) of an agent at ``root``, and their text for the system prompt;
    a file refused is reported in the skills' problems.

    Read (and their module imported) only where one may be: a trusted project, or the user's own file.
    """
    if not may_have_context_files(user_home(), trusted):
        return [], []
    from ._context_files import load_context_files, render_context_file

    found = load_context_files(root, trust_project=trusted, problems=toolset.skills.problems)
    return found, [render_context_file(item) for item in found]


def provider_runtime(config: AgentConfig, host: PluginHost) -> ProviderRuntime:
    """The runtime every request of an agent made from ``config`` and ``host`` is sent through."""
    connection = config.connection
    return ProviderRuntime(
        transport=connection.transport, retry=connection.retry, credential_store=connection.credential_store,
        request_timeout=config.timeouts.request, response_limits=config.limits.response,
        timeout=http_timeouts(connect=config.timeouts.connect, read=config.timeouts.read),
        pricing=Pricing(host.models),  # at the model that served: a fallback may be dearer or cheaper
    )


def agent_models(host: PluginHost, names: Sequence[str]) -> tuple[ModelInfo, Provider, tuple[Route, ...]]:
    """The first model's row and codec, and a :class:`~._route.Route` for each fallback model after it.

    Each fallback repairs the transcript for its own wire, as a model switch does.

    :raises ModelNotFound: a name no installed provider's catalog resolves.
    """
    first, *others = (host.resolve_model(name) for name in names)
    # The catalog lists a model only while the plugin that lists it serves its wire too.
    fallbacks = tuple(Route(row, host.providers[row.api], TranscriptRepair(row, host.providers[row.api]))
                      for row in others)
    return first, host.providers[first.api], fallbacks


def stop_policy(config: AgentConfig) -> StopPolicy | None:
    """The policy that stops each run: ``limits.max_turns`` and ``stop_policy``, whichever fires first."""
    policies = []
    if config.limits.max_turns is not None:
        policies.append(max_turns(config.limits.max_turns))
    if config.stop_policy is not None:
        policies.append(as_policy(config.stop_policy))
    return any_of(*policies) if policies else None


def structured_output(output_type: Any) -> StructuredOutput:
    """The structured output of ``output_type``, checked (once per agent or run that has an output type).

    Imported here, not at the top: an agent without an output type never loads structured output.
    """
    from ._structured import StructuredOutput

    return StructuredOutput(output_type)


def run_audit(config: AgentConfig, session_id: str, run_id: str, model: str,
              report: Callable[[str], None]) -> RunAudit | None:
    """The audit trail of one run, or ``None`` when nobody keeps one (no ``AgentConfig.audit``).

    Imported here, not at the top: an agent without a sink never loads the trail's records and sinks.
    """
    if config.audit is None:
        return None
    from ._audit import RunAudit

    return RunAudit(config.audit, session_id, run_id, model, report)


def agent_compactor(config: AgentConfig, summarizer: tuple[ModelInfo, Provider, ProviderRuntime, str],
                    history: list[Message], resume: Resume | None = None, *, asked: bool = False) -> Compactor | None:
    """The agent's compactor, or ``None`` while there is nothing to cut: no strategy, no cut resumed from
    its session, none ``asked`` for (``Agent.compact``). Its summaries are asked of ``summarizer`` (the
    agent's model, provider, runtime and session id), on a cache line of their own.

    Imported here, not at the top: an agent that sends its whole history never loads compaction.
    """
    resumed = resume is not None and resume.first_kept is not None
    if not (asked or resumed or config.compaction.strategy != "none"):
        return None
    from ._compaction import Compactor, SummaryModel

    compactor = Compactor(config.compaction, SummaryModel(*summarizer, config.connection.provider_options))
    if resume is not None and resume.first_kept is not None:  # a compaction is permanent once applied
        compactor.restore(history, resume.first_kept, resume.summary)
    return compactor


def run_structured(output_type: Any, default: Any, config: AgentConfig, overrides: dict[str, Any],
                   tools: Iterable[str], model: ModelInfo) -> StructuredOutput | None:
    """A run's structured output (its own ``output_type``, else the agent's ``default``), checked before it starts."""
    if output_type is None:
        output_type = default
    if output_type is None:
        return None
    structured = structured_output(output_type)
    structured.check_settings({"tool_choice": config.settings.get("tool_choice"), **overrides}, set(tools), model)
    return structured
