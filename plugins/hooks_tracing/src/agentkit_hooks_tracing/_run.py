"""The spans of one run, named and filled per the OpenTelemetry GenAI semantic conventions.

Every attribute is taken from the run's events: the model, token counts, cost,
finish reasons, tool names and call ids, and (only when asked) the messages.
Nothing here reads the environment, a request's headers or a credential.
"""

from __future__ import annotations

import json
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from agentkit.plugin_api import (
    AgentEnd,
    AgentStart,
    AudioBlock,
    DocumentBlock,
    Event,
    ImageBlock,
    Message,
    MessageEnd,
    MessageStart,
    SessionInfo,
    TextBlock,
    ToolCallEnd,
    ToolCallStart,
    ToolUseBlock,
    TurnStart,
    Usage,
)

OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
REQUEST_MODEL = "gen_ai.request.model"
RESPONSE_MODEL = "gen_ai.response.model"
RESPONSE_ID = "gen_ai.response.id"
FINISH_REASONS = "gen_ai.response.finish_reasons"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
CACHE_READ_TOKENS = "gen_ai.usage.cache_read.input_tokens"
CACHE_WRITE_TOKENS = "gen_ai.usage.cache_creation.input_tokens"
CONVERSATION = "gen_ai.conversation.id"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_TYPE = "gen_ai.tool.type"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_RESULT = "gen_ai.tool.call.result"
ERROR_TYPE = "error.type"
#: Not in the conventions: the price of the tokens, in US dollars, from the model catalog.
COST = "agentkit.usage.cost_usd"
OUTCOME = "agentkit.outcome"
TURN = "agentkit.turn"


class RunSpans:
    """The ``invoke_agent`` span of one run and the ``chat`` and ``execute_tool`` spans inside it.

    :param tracer: where the spans are made.
    :param session: the run.
    :param content: record messages, tool arguments and results.
    """

    def __init__(self, tracer: trace.Tracer, session: SessionInfo, *, content: bool) -> None:
        self._tracer = tracer
        self._session = session
        self._content = content
        vendor, _, model = session.model.partition("/")
        self._model = {PROVIDER: vendor, REQUEST_MODEL: model or vendor}
        self._run: Span | None = None
        self._inside = trace.set_span_in_context(trace.INVALID_SPAN)
        self._request: Span | None = None
        self._tools: dict[str, Span] = {}
        self._usage = Usage()

    def _start_run(self, start: AgentStart) -> None:
        self._run = self._tracer.start_span("invoke_agent", kind=SpanKind.INTERNAL, attributes={
            OPERATION: "invoke_agent", CONVERSATION: self._session.session_id, **self._model,
        })
        if self._content and start.messages:
            self._run.set_attribute(INPUT_MESSAGES, _messages_json(start.messages))
        self._inside = trace.set_span_in_context(self._run)

    def on(self, event: Event) -> None:
        """Take the next event of the run."""
        if isinstance(event, AgentStart):
            self._start_run(event)
        elif self._run is None:
            return  # never seen: agent_start comes first
        elif isinstance(event, TurnStart):
            self._request = self._tracer.start_span(
                f"chat {self._model[REQUEST_MODEL]}", context=self._inside, kind=SpanKind.CLIENT,
                attributes={OPERATION: "chat", TURN: event.turn, **self._model},
            )
        elif isinstance(event, MessageStart) and self._request is not None:
            self._request.set_attribute(PROVIDER, event.provider)
            self._request.set_attribute(RESPONSE_MODEL, event.model)
        elif isinstance(event, MessageEnd) and self._request is not None:
            self._end_request(event)
        elif isinstance(event, ToolCallStart):
            self._start_tool(event.call)
        elif isinstance(event, ToolCallEnd):
            self._end_tool(event)
        elif isinstance(event, AgentEnd):
            self._end_run(event)

    def _end_request(self, event: MessageEnd) -> None:
        span, self._request = self._request, None
        assert span is not None
        message = event.message
        self._usage = self._usage + message.usage
        span.set_attributes(_usage_attributes(message.usage))
        span.set_attribute(FINISH_REASONS, [str(message.stop_reason)])
        if message.response_model:
            span.set_attribute(RESPONSE_MODEL, message.response_model)
        if message.response_id:
            span.set_attribute(RESPONSE_ID, message.response_id)
        if self._content:
            span.set_attribute(OUTPUT_MESSAGES, _messages_json([message]))
        if message.stop_reason in ("error", "aborted"):
            span.set_attribute(ERROR_TYPE, str(message.stop_reason))
            span.set_status(Status(StatusCode.ERROR))  # no description: an error text may quote a request
        span.end()

    def _start_tool(self, call: ToolUseBlock) -> None:
        span = self._tracer.start_span(
            f"execute_tool {call.name}", context=self._inside, kind=SpanKind.INTERNAL,
            attributes={OPERATION: "execute_tool", TOOL_NAME: call.name, TOOL_CALL_ID: call.id, TOOL_TYPE: "function"},
        )
        if self._content:
            span.set_attribute(TOOL_ARGUMENTS, call.arguments)
        self._tools[call.id] = span

    def _end_tool(self, event: ToolCallEnd) -> None:
        result = event.result
        span = self._tools.pop(result.tool_use_id, None)
        if span is None:  # never seen: every call has its tool_call_start first
            return
        if self._content:
            span.set_attribute(TOOL_RESULT, _text(result.content))
        if result.is_error:
            span.set_attribute(ERROR_TYPE, "tool_error")
            span.set_status(Status(StatusCode.ERROR))
        span.end()

    def _end_run(self, event: AgentEnd) -> None:
        assert self._run is not None
        for span in [*self._tools.values(), *([self._request] if self._request is not None else [])]:
            span.set_status(Status(StatusCode.ERROR))
            span.end()  # the run stopped before they ended
        self._tools.clear()
        self._request = None
        self._run.set_attributes(_usage_attributes(self._usage))
        self._run.set_attribute(OUTCOME, str(event.outcome))
        if event.outcome not in ("completed", "max_turns", "stop_policy"):
            self._run.set_attribute(ERROR_TYPE, str(event.outcome))
            self._run.set_status(Status(StatusCode.ERROR))
        self._run.end()


def _usage_attributes(usage: Usage) -> dict[str, Any]:
    # The conventions count cached tokens in the input; agentkit's ``input`` nets them out.
    attributes: dict[str, Any] = {
        INPUT_TOKENS: usage.input + usage.cache_read + usage.cache_write,
        OUTPUT_TOKENS: usage.output,
        CACHE_READ_TOKENS: usage.cache_read,
        CACHE_WRITE_TOKENS: usage.cache_write,
    }
    if usage.cost is not None:  # an unknown cost is left out, never recorded as 0
        attributes[COST] = usage.cost
    return attributes


def _text(blocks: list[Any]) -> str:
    return "".join(block.text for block in blocks if isinstance(block, TextBlock))


def _parts(message: Message) -> list[dict[str, Any]]:
    """The message's parts in the conventions' shape; images are named, never copied."""
    parts: list[dict[str, Any]] = []
    if message.role == "tool_result":
        return [{"type": "tool_call_response", "id": message.tool_use_id, "response": _text(message.content)}]
    for block in message.content:
        if isinstance(block, TextBlock):
            parts.append({"type": "text", "content": block.text})
        elif isinstance(block, ToolUseBlock):
            parts.append({"type": "tool_call", "id": block.id, "name": block.name, "arguments": block.arguments})
        elif isinstance(block, ImageBlock | DocumentBlock | AudioBlock):
            parts.append({"type": block.type, "mime_type": block.mime_type})
    return parts


def _messages_json(messages: list[Message]) -> str:
    roles = {"user": "user", "assistant": "assistant", "tool_result": "tool"}
    return json.dumps([{"role": roles[message.role], "parts": _parts(message)} for message in messages],
                      ensure_ascii=False)
