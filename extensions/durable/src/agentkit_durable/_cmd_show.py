"""``agentkit runs show``: one durable run: its state, its steps, its result or error, the call it waits on."""

from __future__ import annotations

import json
from typing import Any

from agentkit.host.cli.support import visible, visible_line

from ._cmd_list import as_json
from ._options import open_database, parser, when
from ._runs_db import FINISHED, Run
from ._versions import incompatible

#: How much of a result, an error or a reason ``show`` prints before it cuts the rest (as ``sessions show``).
_SHOWN_CHARS = 2000


def main(argv: list[str]) -> int:
    """Show the run ``RUN_ID`` (or a unique prefix of it) names; ``--json`` prints it as JSON."""
    options = parser("show", "show a durable run: its state, steps, result or error, and the call it waits on")
    options.add_argument("run_id", metavar="RUN_ID", help="the run's id, or a unique prefix of it")
    options.add_argument("--json", action="store_true", help="print the run and its steps as JSON")
    args = options.parse_args(argv)
    database = open_database(args)
    try:
        status = database.find(args.run_id)
        run = database.describe(status)
        steps = database.steps(run.id)
    finally:
        database.close()
    result = _plain(status.output) if status.status == "SUCCESS" else None
    error = _error(status.error)
    if args.json:
        print(json.dumps({**as_json(run), "result": result, "error": error,
                          "steps": [_step_json(step) for step in steps]}, indent=2, ensure_ascii=False))
        return 0
    for line in _header(run):
        print(line)
    print(f"steps ({len(steps)}):" if steps else "steps: none recorded yet")
    for step in steps:
        print("  " + _step_line(step))
    if status.status == "SUCCESS":
        for line in _result_lines(result):
            print(line)
    if error is not None:
        print(f"error: {_cut(error)}")
    if status.status not in FINISHED:
        problem = incompatible(run.id, run.version)
        if problem is not None:
            print(f"note: {problem}")
    return 0


def _result_lines(result: Any) -> list[str]:
    """A run's result as a reader wants it: its outcome and answer (the messages are in its session, and --json)."""
    if not (isinstance(result, dict) and "outcome" in result):
        return [f"result: {_cut(json.dumps(result, ensure_ascii=False))}"]
    lines = [f"outcome {visible_line(str(result['outcome']))}"
             + (f"  turns {result['turns']}" if isinstance(result.get("turns"), int) else "")]
    if result.get("text"):
        lines.append(f"answer: {_cut(str(result['text']))}")
    if result.get("error"):
        lines.append(f"run error: {_cut(str(result['error']))}")
    return lines


def _header(run: Run) -> list[str]:
    lines = [f"run {visible_line(run.id)}  {run.status}"]
    lines.append(f"started {when(run.started) or '-'}  updated {when(run.updated) or '-'}")
    known = [f"{label} {visible_line(value)}" for label, value in
             (("model", run.model), ("session", run.session_id), ("version", run.version),
              ("queue", run.queue), ("parent run", run.parent)) if value]
    if known:
        lines.append("  ".join(known))
    if run.waiting is not None:
        call = run.waiting
        lines.append(f"waiting on call {visible_line(str(call.get('call_id')))} ({visible_line(str(call.get('tool')))})"
                     + (f": {_cut(str(call['reason']))}" if call.get("reason") else "")
                     + f"; answer with 'agentkit runs approve|deny {visible_line(run.id)} "
                       f"{visible_line(str(call.get('call_id')))}'")
    return lines


def _step_line(step: Any) -> str:
    name = visible_line(str(step["function_name"]))
    if step.get("child_workflow_id"):
        name += f" (run {visible_line(str(step['child_workflow_id']))})"
    if step.get("error") is not None:
        state = f"failed: {_cut(_error(step['error']) or '')}"
    elif step.get("completed_at_epoch_ms") is None and step.get("started_at_epoch_ms") is not None:
        state = "started, not completed"
    else:
        state = "completed"
    started = step.get("started_at_epoch_ms")
    return f"{step['function_id']:>4}  {name}  {state}" + (f"  {when(started / 1000)}" if started else "")


def _step_json(step: Any) -> dict[str, Any]:
    started, completed = step.get("started_at_epoch_ms"), step.get("completed_at_epoch_ms")
    return {"step": step["function_id"], "name": step["function_name"], "output": _plain(step.get("output")),
            "error": _error(step.get("error")), "child_run": step.get("child_workflow_id"),
            "started": when(started / 1000) if started else None,
            "completed": when(completed / 1000) if completed else None}


def _error(error: Any) -> str | None:
    if error is None:
        return None
    text = str(error)
    return f"{type(error).__name__}: {text}" if isinstance(error, BaseException) and text else text or repr(error)


def _plain(value: Any) -> Any:
    """``value`` as JSON can hold it: what DBOS kept is any Python value; the rest is shown as text."""
    return json.loads(json.dumps(value, default=repr))


def _cut(text: str) -> str:
    text = visible(text)
    return text if len(text) <= _SHOWN_CHARS else f"{text[:_SHOWN_CHARS]}... ({len(text) - _SHOWN_CHARS} more characters)"
