"""Structured output: a run that ends with a validated value of the caller's output type.

``Agent.run(..., output_type=T)`` adds a final-answer tool, ``final_result``,
whose parameters are ``T``'s JSON Schema, to every request of the run, and
forces a tool call (``tool_choice="required"``) so the model cannot end the
run with prose; a model whose catalog row refuses a forced choice is told in
the system prompt instead. The model may call its other tools first; the run
ends when it calls ``final_result`` with arguments that fit the schema, and
``RunResult.output`` holds the value as a ``T``.

Output that does not fit (invalid arguments, or a text answer where the
final-answer tool was expected) is sent back: the validation error goes
back to the model (as the tool call's error result, or as a user message),
within ``AgentConfig.output_retries`` (default 1) retries, after which the run
ends as ``error`` naming the problem. An output that fits is then checked by
the output validators and guardrails (:mod:`._guardrails`), whose refusals
go back the same way and spend the same retries. This fallback works on
every wire; it is what a wire without native structured output uses.

A model whose catalog row says ``structured_output`` gets the schema in the
request's ``output_schema`` instead, which its wire writes in its own field
(``output_config.format``, ``response_format``, ``text.format``,
``responseJsonSchema``, Ollama's ``format``); its final text is the JSON
value, checked the same way, with the same one retry.

While the output streams, an ``output_partial`` event carries the value read
so far (see :mod:`._partial_json`) each time it grows. Decoding the value reads
the whole text, so it is not done after every delta of a long output: see
:data:`READ_BUDGET`. The block's end is always read, so the last partial
value of a response is the whole of its output.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any

from agentkit.plugin_api import (
    AssistantMessage,
    BlockDelta,
    BlockEnd,
    BlockStart,
    Event,
    Message,
    MessageStart,
    ModelInfo,
    Outcome,
    OutputPartial,
    ProviderRequest,
    ToolCallStart,
    ToolResult,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)
from agentkit.plugin_api._dataclass import dataclass
from agentkit.plugin_api.codec import FORCED_TOOL_CHOICE

from ._output_type import OutputInvalid, OutputType
from ._partial_json import NOTHING, PartialJson
from ._refusals import Refusal, ValidatorFailed, exhausted
from ._run_state import RetryBudget
from .errors import ConfigError

if TYPE_CHECKING:
    from ._batch import ToolBatch
    from ._run_state import RunState

__all__ = ["FINAL_RESULT", "RETRIES", "Settled", "StructuredOutput"]

#: The name of the final-answer tool.
FINAL_RESULT = "final_result"

#: How many times invalid output is sent back to the model before the run fails, unless
#: ``AgentConfig.output_retries`` says otherwise.
RETRIES = 1

#: The partial value is decoded after a delta only while the characters decoded so far stay within this
#: many times the output's length: after every delta of a short output, about every 1/16 of a long one
#: streamed in small pieces. Decoding after every delta costs the square of the length (a 50 KB answer
#: in 12-character deltas: 200 million characters decoded, against 1.6 million with the budget).
READ_BUDGET = 16

_ACCEPTED = "Final result accepted."
_SKIPPED = "Not run: the response also gave the final result, which ends the run."


@dataclass
class Settled:
    """What a response meant for a structured run.

    :param results: the answers to the response's tool calls, in call order.
    :param retry: a message asking the model to try again, when the output did not fit.
    :param done: the run ends with :attr:`value`.
    :param error: the run ends with :attr:`outcome` and this text.
    :param refusal: why the output was refused (its type, a validator, a guardrail), to report.
    :param retried: whether the refusal goes back to the model.
    """

    results: list[ToolResultMessage] = field(default_factory=list)
    retry: Message | None = None
    done: bool = False
    value: Any = None
    error: str | None = None
    outcome: Outcome = Outcome.ERROR
    refusal: Refusal | None = None
    retried: bool = False

    def ends(self, state: RunState) -> bool:
        """Whether the run ends here; if so, its outcome, error and output are set in ``state``."""
        if self.done:
            state.outcome, state.output = Outcome.COMPLETED, self.value
            return True
        if self.error is not None:
            state.outcome, state.error = self.outcome, self.error
            return True
        return False


class StructuredOutput:
    """One run's structured output: the request it shapes and the responses it judges."""

    def __init__(self, output_type: Any) -> None:
        self.output = OutputType(output_type)
        self.native = False  # set by shape: whether the model answers in its text (native) or by the tool
        self._streaming: int | None = None  # the block of the response the output streams in
        self._reader = PartialJson()
        self._decoded = 0  # characters decoded for this response's partial values
        self._unread = False  # a delta came since the value was last decoded
        self._shown: Any = NOTHING
        self.spec = ToolSpec(FINAL_RESULT, f"Give the final answer, a {self.output.name}, as this tool's "
                             "arguments. Call it once, when you have the answer; it ends the conversation.",
                             self.output.schema)

    def partial(self, event: Event) -> OutputPartial | None:
        """The ``output_partial`` event a response's event brings, if the output read so far changed.

        The output streams in the ``final_result`` call's arguments, or, for a
        model that answers natively, in its text. A delta is read within
        :data:`READ_BUDGET`; the block's end is always read.
        """
        if isinstance(event, MessageStart):
            self._streaming, self._reader, self._decoded, self._unread = None, PartialJson(), 0, False
            self._shown = NOTHING
        elif isinstance(event, BlockStart):
            wanted = event.kind == "text" if self.native else (
                event.kind == "tool_use" and event.tool_name == FINAL_RESULT)
            if wanted and self._streaming is None:  # the first such block: a retry starts a new response
                self._streaming, self._reader, self._decoded = event.index, PartialJson(), 0
        elif isinstance(event, BlockDelta) and event.index == self._streaming:
            self._reader.feed(event.delta)
            self._unread = True
            length = self._reader.length
            if self._decoded + length <= READ_BUDGET * length:
                return self._read()
        elif isinstance(event, BlockEnd) and event.index == self._streaming and self._unread:
            return self._read()  # the whole output, whatever the budget skipped
        return None

    def _read(self) -> OutputPartial | None:
        self._decoded += self._reader.length
        self._unread = False
        value = self._reader.value()
        if value is not NOTHING and value != self._shown:
            self._shown = value
            return OutputPartial(value)
        return None

    def check_settings(self, settings: Mapping[str, Any], tool_names: set[str], model: ModelInfo) -> None:
        """Refuse what the final-answer tool cannot live with, before the run starts (a model that
        takes the schema natively needs no tool, and has nothing to refuse).

        :raises ConfigError: ``tool_choice="none"``, or an enabled tool named ``final_result``.
        """
        if model.structured_output:
            return
        if settings.get("tool_choice") == "none":
            raise ConfigError("output_type needs a tool call to end the run (the final_result tool), "
                              "and tool_choice='none' forbids one; leave tool_choice unset")
        if FINAL_RESULT in tool_names:
            raise ConfigError(f"output_type adds a tool named {FINAL_RESULT!r}, and an enabled tool has "
                              "that name; rename the tool")

    def shape(self, request: ProviderRequest) -> ProviderRequest:
        """``request`` with the wire's native output schema where the model has one (its catalog
        row says ``structured_output``), else with the final-answer tool and a forced tool call."""
        if request.model.structured_output:
            self.native = True
            return dataclasses.replace(request, output_schema=self.output.schema)
        self.native = False
        choice = request.tool_choice
        system = request.system
        if FORCED_TOOL_CHOICE in request.model.refused_settings:
            note = (f"When you have the answer, give it by calling the {FINAL_RESULT} tool; "
                    "do not answer in text.")
            system = f"{system}\n\n{note}" if system else note
        elif choice in (None, "auto"):
            choice = "required"
        return dataclasses.replace(request, tools=[*request.tools, self.spec], tool_choice=choice, system=system)

    async def settle(self, message: AssistantMessage, batch: ToolBatch, budget: RetryBudget | None = None,
                     check: Callable[[str, Any], Awaitable[Refusal | None]] | None = None) -> Settled | None:
        """What ``message`` means for the run; ``None``: its tool calls run as usual.

        The calls of a response that gives the final result are answered
        here, through ``batch`` (so they are announced and recorded like any
        call); the others in it are not run. An output that fits its type is
        then given to ``check`` (the validators and guardrails); a refusal is
        counted against ``budget`` (default: :data:`RETRIES`). A validator that
        fails (:class:`~._refusals.ValidatorFailed`) ends the run as ``error``, without a retry.
        """
        budget = RetryBudget(RETRIES) if budget is None else budget
        answer = batch.answer
        calls = message.tool_calls
        final = None if self.native else next((call for call in calls if call.name == FINAL_RESULT), None)
        if calls and final is None:
            return None
        settled = Settled()
        if self.native:
            problem = self._judge_text(message.text, settled)
        elif final is None:
            problem = f"the response was text, and the answer must be given by calling {FINAL_RESULT}"
        else:
            problem = None
            try:
                settled.value = self.output.validate(json.loads(final.arguments or "{}"))
            except json.JSONDecodeError as exc:
                problem = f"the arguments are not JSON ({exc.msg})"
            except OutputInvalid as exc:
                problem = str(exc)
        refusal = None if problem is None else Refusal(problem, "output_type", Outcome.ERROR)
        if refusal is None and check is not None:
            try:
                refusal = await check(message.text, settled.value)
            except ValidatorFailed as exc:
                settled.error = str(exc)
        if refusal is not None:
            problem = refusal.reason
        elif settled.error is not None:
            problem = "the output could not be checked"
        for call in calls:
            batch.started.add(call.id)
            batch.emit(ToolCallStart(call))
            if call is not final:
                settled.results.append(answer(call, ToolResult.failure("not_executed", _SKIPPED)))
            elif problem is None:
                settled.results.append(answer(call, ToolResult.success(_ACCEPTED)))
            else:
                settled.results.append(answer(call, ToolResult.failure("invalid_output", _retry_text(problem))))
        if problem is None:
            settled.done = True
            return settled
        if refusal is None:  # a validator failed: no retry
            return settled
        settled.refusal = refusal
        settled.retried = budget.refuse() and not refusal.terminate
        if not settled.retried:
            settled.outcome = refusal.outcome
            settled.error = (exhausted(refusal, budget) if refusal.by != "output_type" else
                             f"the model's structured output did not fit {self.output.name} after {budget.limit} "
                             f"{'retry' if budget.limit == 1 else 'retries'}: {problem}")
            return settled
        if final is None:
            settled.retry = UserMessage.text(_retry_text(problem, native=self.native))
        return settled

    def _judge_text(self, text: str, settled: Settled) -> str | None:
        try:
            settled.value = self.output.validate(json.loads(text))
        except json.JSONDecodeError as exc:
            return f"the response is not one JSON value ({exc.msg})"
        except OutputInvalid as exc:
            return str(exc)
        return None


def _retry_text(problem: str, *, native: bool = False) -> str:
    if native:
        return f"The output is invalid: {problem}. Answer again with one JSON value that fits the schema."
    return f"The output is invalid: {problem}. Call {FINAL_RESULT} again with arguments that fit its schema."
