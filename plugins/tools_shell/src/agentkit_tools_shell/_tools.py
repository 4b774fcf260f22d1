"""The three process tools: execute, run_command and powershell."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from typing import Any

from agentkit.plugin_api import ExecutionMode, Tool, ToolContext, ToolError, ToolResult
from agentkit.plugin_api.results import SpooledResult

from ._env import reduced_environment
from ._output import DEFAULT_OUTPUT_CAP, DEFAULT_OUTPUT_DISK_CAP
from ._process import DEFAULT_DRAIN_IDLE_S, DEFAULT_DRAIN_MAX_S, RunLimits, run_process
from ._shells import InterpreterNotFound, find_bash, find_powershell
from ._tree import CALL_TOKEN

SHELL_TOOL_NAMES: tuple[str, ...] = ("execute", "run_command", "powershell")
"""Every tool of this plugin that starts processes.

An agent that enables any of them must have an embedder ``before_tool_call``:
these tools do whatever the command says, and the embedder decides which
commands may run.
"""

_TIMEOUT_SCHEMA = {
    "type": "number",
    "exclusiveMinimum": 0,
    "description": "Seconds before the whole process tree is killed. No timeout when omitted.",
}

_KEEP_BACKGROUND_SCHEMA = {
    "type": "boolean",
    "description": (
        "Leave processes the command started in the background running after it exits (to "
        "start a server on purpose); their pids are reported in left_running, and they end "
        "when the agent does. By default they are killed when the command exits."
    ),
}

_EXECUTE_GUIDELINES = (
    "execute runs a bash command line in the workspace root with standard input closed and a "
    "reduced environment (an allowlist: PATH, HOME, locale, terminal; no credentials). stdout and "
    "stderr are interleaved; an output too long to show at once is stored as an artifact: the "
    "result shows its start and end and names the read_artifact call that pages through it. "
    "There is no default timeout: pass timeout_s for anything that might hang (servers, watchers, "
    "prompts). Background processes (`cmd &`) are killed when the command exits; to start a "
    "server that must keep running, pass keep_background: true and redirect its output to a file."
)
_RUN_COMMAND_GUIDELINES = (
    "run_command runs one program without a shell: argv is the program and its arguments, with no "
    "quoting, globbing, pipes or redirection. Standard input is closed, a long output is stored "
    "as an artifact (read it with read_artifact), and there is no default timeout (pass timeout_s)."
)
_POWERSHELL_GUIDELINES = (
    "powershell runs PowerShell (pwsh) where it is installed and otherwise fails with "
    "interpreter_not_found; on Linux and macOS prefer execute or run_command."
)


def _shell_tool(**fields: Any) -> Tool:
    # Every process tool is built here: all of them are sequential and all of
    # them need the embedder's authorization before the host builds an agent.
    return Tool(execution_mode=ExecutionMode.SEQUENTIAL, requires_authorization=True, **fields)


def make_tools() -> list[Tool]:
    """The process tools, in the order they are registered."""
    return [
        _shell_tool(
            name="execute",
            description=(
                "Run a command line through bash (`bash -c`) in the workspace root and return "
                "its exit code and combined output. Pipes, redirection and && work."
            ),
            input_schema={
                "type": "object",
                "properties": {
                    "command": {
                        "type": "string",
                        "minLength": 1,
                        "description": "The bash command line.",
                    },
                    "timeout_s": _TIMEOUT_SCHEMA,
                    "keep_background": _KEEP_BACKGROUND_SCHEMA,
                },
                "required": ["command"],
                "additionalProperties": False,
            },
            handler=execute,
            prompt_guidelines=_EXECUTE_GUIDELINES,
        ),
        _shell_tool(
            name="run_command",
            description=(
                "Run one program with an argument list, without a shell (no quoting, globbing "
                "or operators), in the workspace root; returns its exit code and combined output."
            ),
            input_schema={
                "type": "object",
                "properties": {
                    "argv": {
                        "type": "array",
                        "items": {"type": "string"},
                        "minItems": 1,
                        "description": 'The program and its arguments, e.g. ["pytest", "-q"].',
                    },
                    "timeout_s": _TIMEOUT_SCHEMA,
                    "keep_background": _KEEP_BACKGROUND_SCHEMA,
                },
                "required": ["argv"],
                "additionalProperties": False,
            },
            handler=run_command,
            prompt_guidelines=_RUN_COMMAND_GUIDELINES,
        ),
        _shell_tool(
            name="powershell",
            description=(
                "Run a PowerShell command (`pwsh -Command`) in the workspace root and return its "
                "exit code and combined output. Fails with a clear error where PowerShell is not "
                "installed."
            ),
            input_schema={
                "type": "object",
                "properties": {
                    "command": {
                        "type": "string",
                        "minLength": 1,
                        "description": "The PowerShell command.",
                    },
                    "timeout_s": _TIMEOUT_SCHEMA,
                    "keep_background": _KEEP_BACKGROUND_SCHEMA,
                },
                "required": ["command"],
                "additionalProperties": False,
            },
            handler=powershell,
            prompt_guidelines=_POWERSHELL_GUIDELINES,
        ),
    ]


def execute(arguments: dict[str, Any], context: ToolContext) -> ToolResult:
    """Handler of ``execute``: ``bash -c command``."""
    command = _required_string(arguments, "command")
    return _run(arguments, context, lambda env: [_interpreter(find_bash, env), "-c", command])


def run_command(arguments: dict[str, Any], context: ToolContext) -> ToolResult:
    """Handler of ``run_command``: the argv as given, no shell."""
    argv = arguments.get("argv")
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
        raise ToolError("invalid_arguments", "argv must be a non-empty list of strings")
    if not argv[0]:
        raise ToolError("invalid_arguments", "argv[0] must name the program to run")
    return _run(arguments, context, lambda env: list(argv))


def powershell(arguments: dict[str, Any], context: ToolContext) -> ToolResult:
    """Handler of ``powershell``: ``pwsh -NoProfile -NonInteractive -Command command``."""
    command = _required_string(arguments, "command")
    return _run(
        arguments,
        context,
        lambda env: [
            _interpreter(find_powershell, env),
            "-NoLogo",
            "-NoProfile",
            "-NonInteractive",
            "-Command",
            command,
        ],
    )


def _run(
    arguments: dict[str, Any],
    context: ToolContext,
    build_argv: Callable[[dict[str, str]], list[str]],
) -> ToolResult:
    limits = _limits(arguments, context.options)
    env = reduced_environment(
        os.environ,
        pass_env=_string_list(context.options, "pass_env"),
        extra=_string_map(context.options, "env"),
    )
    argv = build_argv(env)
    if context.cancel.cancelled:
        return ToolResult.failure("aborted", "The run was aborted before the command started.")
    if not context.root.is_dir():
        raise ToolError(
            "invalid_root",
            f"The working directory {context.root} does not exist; the embedder must set "
            "AgentConfig.root to an existing directory.",
        )
    try:
        outcome = run_process(argv, cwd=context.root, env=env, cancel=context.cancel, limits=limits)
    except FileNotFoundError:
        raise ToolError(
            "command_not_found",
            f"{argv[0]!r} was not found on PATH or in the workspace; check the program name.",
        ) from None
    except PermissionError as exc:
        raise ToolError(
            "command_not_executable", f"{argv[0]!r} cannot be run: {exc.strerror}"
        ) from None

    notes = ""
    if outcome.drain_cut:
        notes += (
            "\n[Output cut: a background process still held the output pipe after the command "
            "exited. Redirect a background job's output to a file: `cmd > log 2>&1 &`.]"
        )
    if outcome.supervisor_lost:
        done = "listed" if limits.keep_background else "killed"
        notes += (
            "\n[The command killed its supervisor: the processes it left were found by the "
            f"{CALL_TOKEN} variable of their environment and {done}. One that also replaced its "
            "environment may still be running.]"
        )
    spooled = outcome.output.spool is not None
    data: dict[str, Any] = {
        # A spooled output is replaced by the host (its head and tail): the notes go beside it.
        "exit_code": outcome.exit_code,
        "output": outcome.output.text if spooled else outcome.output.text + notes,
        "timed_out": outcome.timed_out,
        "aborted": outcome.aborted,
        "truncated": outcome.output.truncated,
    }
    if spooled and notes:
        data["notice"] = notes.strip()
    if limits.keep_background:
        data["left_running"] = outcome.left_running
    metadata: dict[str, Any] = {
        "argv0": argv[0],
        "total_bytes": outcome.output.total_bytes,
        "drain_cut": outcome.drain_cut,
    }
    spool = outcome.output.spool
    if spool is not None:
        metadata["truncated_by"] = "bytes"
        metadata["dropped_bytes"] = spool.dropped
    error, detail = None, None
    if outcome.aborted:
        error, detail = "aborted", "The run was aborted; the command and its process tree were killed."
    elif outcome.timed_out:
        error = "timeout"
        detail = (
            f"The command did not finish within timeout_s={limits.timeout_s:g}; its process "
            "tree was killed. Retry with a larger timeout_s, or start long jobs in the "
            "background with their output redirected to a file."
        )
    if spool is not None:  # the host keeps the whole output and shows its two ends
        return SpooledResult(error is None, data=data, error=error, detail=detail, metadata=metadata,
                             spool=spool, field="output")
    return ToolResult(error is None, data=data, error=error, detail=detail, metadata=metadata)


def _interpreter(find: Callable[[Mapping[str, str]], str], env: Mapping[str, str]) -> str:
    try:
        return find(env)
    except InterpreterNotFound as exc:
        raise ToolError("interpreter_not_found", str(exc)) from None


def _required_string(arguments: dict[str, Any], name: str) -> str:
    value = arguments.get(name)
    if not isinstance(value, str) or not value.strip():
        raise ToolError("invalid_arguments", f"{name} must be a non-empty string")
    return value


def _positive_number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ToolError("invalid_arguments", f"{what} must be a positive number, got {value!r}")
    if value <= 0:
        raise ToolError("invalid_arguments", f"{what} must be positive, got {value!r}")
    return float(value)


def _limits(arguments: dict[str, Any], options: Mapping[str, Any]) -> RunLimits:
    timeout = arguments.get("timeout_s")
    keep_background = arguments.get("keep_background", False)
    if not isinstance(keep_background, bool):
        raise ToolError("invalid_arguments", "keep_background must be true or false")
    output_cap = options.get("output_cap", DEFAULT_OUTPUT_CAP)
    if isinstance(output_cap, bool) or not isinstance(output_cap, int) or output_cap <= 0:
        raise ToolError(
            "invalid_tool_options",
            f"tool option 'output_cap' must be a positive number of bytes, got {output_cap!r}",
        )
    output_disk_cap = options.get("output_disk_cap", DEFAULT_OUTPUT_DISK_CAP)
    if isinstance(output_disk_cap, bool) or not isinstance(output_disk_cap, int) or output_disk_cap <= 0:
        raise ToolError(
            "invalid_tool_options",
            f"tool option 'output_disk_cap' must be a positive number of bytes, got {output_disk_cap!r}",
        )
    return RunLimits(
        timeout_s=None if timeout is None else _positive_number(timeout, "timeout_s"),
        output_cap=output_cap,
        output_disk_cap=output_disk_cap,
        drain_idle_s=_positive_number(
            options.get("drain_idle_s", DEFAULT_DRAIN_IDLE_S), "tool option 'drain_idle_s'"
        ),
        drain_max_s=_positive_number(
            options.get("drain_max_s", DEFAULT_DRAIN_MAX_S), "tool option 'drain_max_s'"
        ),
        keep_background=keep_background,
    )


def _string_list(options: Mapping[str, Any], key: str) -> list[str]:
    value = options.get(key, [])
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ToolError("invalid_tool_options", f"tool option {key!r} must be a list of names")
    return list(value)


def _string_map(options: Mapping[str, Any], key: str) -> dict[str, str]:
    value = options.get(key, {})
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise ToolError("invalid_tool_options", f"tool option {key!r} must map names to strings")
    return dict(value)
