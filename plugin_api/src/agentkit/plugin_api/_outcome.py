"""How a run ended: its outcome, one vocabulary for results, events and hooks.

A run's outcome is not a message's stop reason: a message ends with a
:class:`~agentkit.plugin_api.StopReason` (what the model or the wire said),
a run ends with an :class:`Outcome` (what the loop decided).
"""

from __future__ import annotations

from ._dataclass import StrEnumBase, str_enum


@str_enum  # the class statement's enum, made cheaper (see str_enum)
class Outcome(StrEnumBase):
    """How a run ended. A ``str``: ``Outcome.COMPLETED == "completed"``.

    Never ``COMPLETED`` after a failure.
    """

    #: The model answered without tool calls.
    COMPLETED = "completed"
    #: The run took ``AgentConfig.max_turns`` turns.
    MAX_TURNS = "max_turns"
    #: A stop policy fired (the run's ``stopped_by`` names it).
    STOP_POLICY = "stop_policy"
    #: A hook or the embedder's ``before_tool_call`` returned ``Block(reason, terminate=True)``.
    TERMINATED = "terminated"
    #: A provider, plugin or host failure (the run's ``error`` says which).
    ERROR = "error"
    #: ``Agent.abort``, Ctrl-C, or the consumer of ``Agent.stream`` stopped reading.
    ABORTED = "aborted"
    #: The task awaiting the run was cancelled.
    CANCELLED = "cancelled"
    #: ``AgentConfig.run_timeout`` passed.
    TIMEOUT = "timeout"
    #: A guardrail refused: a plugin's ``agentkit_input_guardrail`` blocked the prompt (or a steering or
    #: follow-up message) before any request carried it, or its ``agentkit_output_guardrail`` refused the
    #: answer more times than ``AgentConfig.output_retries`` allows (the run's ``error`` names the plugin).
    GUARDRAIL = "guardrail"
