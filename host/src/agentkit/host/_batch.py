"""One response's tool calls, executed as a batch.

Three phases:

1. prepare, in call order: announce the call, parse and validate its
   arguments, ask the embedder's ``before_tool_call``, then the plugins'
   ``agentkit_before_tool_call`` hooks (only for calls the embedder allowed);
2. execute: the abort decision is taken once, here, before any handler
   starts; then every runnable handler runs, concurrently unless one tool of
   the batch is sequential (sync handlers in threads, async ones as tasks).
   Each call is awaited on its own, so a failing call never cancels its
   siblings: no fail-fast group is used;
3. finalize, in call order: the result message, ``agentkit_after_tool_call``,
   the end event.

Every call yields exactly one result, whatever happened to it.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from agentkit.plugin_api import (
    Block,
    CancelToken,
    ExecutionMode,
    SessionInfo,
    TextBlock,
    Tool,
    ToolCallEnd,
    ToolCallStart,
    ToolContext,
    ToolError,
    ToolResult,
    ToolResultMessage,
    ToolUseBlock,
)

from ._config import BeforeToolCall, Terminate
from ._hooks import HookRunner

LENGTH_NOT_EXECUTED = (
    'Tool call "{name}" was not executed: the response hit the output token limit, '
    "so its arguments may be truncated. Re-issue the tool call with complete arguments."
)


@dataclass
class _Call:
    call: ToolUseBlock
    tool: Tool | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    result: ToolResult | None = None  # set when the call is settled before execution
    terminate: bool = False


class ToolBatch:
    """Runs the tool calls of one assistant message; see the module docstring."""

    def __init__(
        self,
        *,
        tools: dict[str, Tool],
        hooks: HookRunner,
        session: SessionInfo,
        before_tool_call: BeforeToolCall | None,
        tool_options: dict[str, Any],
        cancel: CancelToken,
        emit: Callable[[Any], None],
    ) -> None:
        self.tools = tools
        self.hooks = hooks
        self.session = session
        self.before_tool_call = before_tool_call
        self.tool_options = tool_options
        self.cancel = cancel
        self.emit = emit
        self.validators: dict[str, jsonschema.Draft202012Validator] = {}
        self._threads: ThreadPoolExecutor | None = None
        self._thread_count = 0

    def _pool(self, size: int) -> ThreadPoolExecutor:
        """Threads for sync handlers: at least one per call, so a batch truly overlaps."""
        if self._threads is None or self._thread_count < size:
            if self._threads is not None:
                self._threads.shutdown(wait=False)
            self._thread_count = max(size, 8)
            self._threads = ThreadPoolExecutor(max_workers=self._thread_count, thread_name_prefix="agentkit-tool")
        return self._threads

    def close(self) -> None:
        if self._threads is not None:
            self._threads.shutdown(wait=False)
            self._threads = None

    async def run(self, calls: Sequence[ToolUseBlock]) -> tuple[list[ToolResultMessage], bool]:
        """Results in call order, and whether every call voted to end the run."""
        prepared = [await self._prepare(call) for call in calls]
        runnable = [item for item in prepared if item.result is None]
        if self.cancel.cancelled:  # the one abort decision for the whole batch
            for item in runnable:
                item.result = ToolResult.failure("aborted", "Operation aborted")
        elif any(item.tool.execution_mode is ExecutionMode.SEQUENTIAL for item in runnable):  # type: ignore[union-attr]
            for item in runnable:
                item.result = await self._execute(item, None)
        elif runnable:
            pool = self._pool(len(runnable))
            tasks = [asyncio.ensure_future(self._execute(item, pool)) for item in runnable]
            for item, task in zip(runnable, tasks, strict=True):
                item.result = await task
        results = [self._finalize(item) for item in prepared]
        terminate = bool(prepared) and all(item.terminate for item in prepared)
        return results, terminate

    def not_executed(self, calls: Sequence[ToolUseBlock]) -> list[ToolResultMessage]:
        """Answer calls of a response cut by the output limit without running them."""
        results = []
        for call in calls:
            self.emit(ToolCallStart(call))
            item = _Call(call, result=ToolResult.failure("not_executed", LENGTH_NOT_EXECUTED.format(name=call.name)))
            results.append(self._finalize(item))
        return results

    async def _prepare(self, call: ToolUseBlock) -> _Call:
        self.emit(ToolCallStart(call))
        item = _Call(call, self.tools.get(call.name))
        if item.tool is None:
            available = ", ".join(sorted(self.tools)) or "none"
            item.result = ToolResult.failure("unknown_tool", f"No tool named {call.name!r}. Available tools: {available}.")
            return item
        problem = self._parse_arguments(item)
        if problem:
            item.result = ToolResult.failure("invalid_arguments", problem)
            return item
        decision = await self._ask_embedder(item)
        if decision is None:
            decision = self.hooks.before_tool_call(call, item.arguments, self.session)
        if decision is not None:
            item.result = ToolResult.failure("blocked", decision.reason)
            item.terminate = isinstance(decision, Terminate) or getattr(decision, "terminate", False)
        return item

    def _parse_arguments(self, item: _Call) -> str | None:
        try:
            arguments = item.call.parsed_arguments()
        except ValueError as exc:
            return f"The arguments are not valid JSON ({exc}). Send a JSON object matching the tool's schema."
        if not isinstance(arguments, dict):
            return f"The arguments must be a JSON object, got {type(arguments).__name__}."
        tool = item.tool
        assert tool is not None
        validator = self.validators.get(tool.name)
        if validator is None:
            validator = self.validators[tool.name] = jsonschema.Draft202012Validator(tool.input_schema)
        errors = sorted(validator.iter_errors(arguments), key=lambda error: list(error.absolute_path))
        if errors:
            lines = [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in errors[:5]]
            return "The arguments do not match the tool's schema: " + "; ".join(lines) + f". Arguments received: {json.dumps(arguments)}"
        item.arguments = arguments
        return None

    async def _ask_embedder(self, item: _Call) -> Block | Terminate | None:
        if self.before_tool_call is None:
            return None
        try:
            decision = self.before_tool_call(item.call, dict(item.arguments))
            if inspect.isawaitable(decision):
                decision = await decision
        except Exception as exc:  # the boundary itself failed: refuse, never allow
            self.hooks.report(f"before_tool_call raised {type(exc).__name__}: {exc}")
            return Block(f"Authorization failed: {type(exc).__name__}: {exc}")
        if decision is None or isinstance(decision, (Block, Terminate)):
            return decision
        self.hooks.report(f"before_tool_call returned {decision!r}; only None, Block or Terminate are understood")
        return Block("Authorization returned an unknown decision")

    async def _execute(self, item: _Call, pool: ThreadPoolExecutor | None) -> ToolResult:
        tool = item.tool
        assert tool is not None
        context = ToolContext(
            root=self.session.root,
            call_id=item.call.id,
            cancel=self.cancel,
            options=self.tool_options.get(tool.name, {}),
        )
        try:
            if tool.is_async:
                value = await tool.handler(item.arguments, context)
            else:
                loop = asyncio.get_running_loop()
                value = await loop.run_in_executor(pool, tool.handler, item.arguments, context)
                if inspect.isawaitable(value):
                    value = await value
        except ToolError as exc:
            return ToolResult.failure(exc.error, exc.detail)
        except Exception as exc:
            return ToolResult.failure("tool_failed", f"{type(exc).__name__}: {exc}")
        return value if isinstance(value, ToolResult) else ToolResult.success(value)

    def _finalize(self, item: _Call) -> ToolResultMessage:
        result = item.result or ToolResult.failure("aborted", "Operation aborted")
        message = ToolResultMessage(
            tool_use_id=item.call.id,
            tool_name=item.call.name,
            content=[TextBlock(result.to_text()), *result.images],
            is_error=not result.ok,
        )
        self.hooks.after_tool_call(item.call, message, self.session)
        self.emit(ToolCallEnd(message))
        return message
