"""A tool plugin for the durable-run tests, installed the way a user's is (a dist-info on the path).

Each call appends one JSON line to ``$DURABLE_TEST_LEDGER`` (the tool, the note's
name, the call's idempotency key, the process id) as soon as it starts. A note
whose name starts with ``slow`` then waits until the file ``$DURABLE_TEST_GATE``
exists: the test kills the process while it waits, or lets it finish.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable

from agentkit.plugin_api import Tool, ToolContext, hookimpl


def _enter(tool: str, name: str, context: ToolContext) -> None:
    line = {"tool": tool, "name": name, "key": context.idempotency_key, "pid": os.getpid()}
    with open(os.environ["DURABLE_TEST_LEDGER"], "a", encoding="utf-8") as ledger:
        ledger.write(json.dumps(line) + "\n")
    if name.startswith("slow"):
        gate = os.environ["DURABLE_TEST_GATE"]
        deadline = time.monotonic() + 120
        while not os.path.exists(gate) and time.monotonic() < deadline:
            time.sleep(0.02)


def write_note(name: str, context: ToolContext) -> str:
    """Write a note (a side effect: not safe to run twice).

    :param name: the note's name
    """
    _enter("write_note", name, context)
    return f"wrote {name}"


def read_note(name: str, context: ToolContext) -> str:
    """Read a note (safe to run again).

    :param name: the note's name
    """
    _enter("read_note", name, context)
    return f"read {name}"


@hookimpl
def agentkit_register_tools(register: Callable[[Tool], None]) -> None:
    register(Tool.from_function(write_note))
    register(Tool.from_function(read_note, retry_safe=True))
