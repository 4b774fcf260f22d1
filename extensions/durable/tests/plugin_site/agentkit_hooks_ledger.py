"""A hooks plugin for the durable-run tests: every event it observes is appended to ``$DURABLE_TEST_EVENTS``,
one JSON line with the event's type, the tool call it names (if any) and the process id."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from agentkit.plugin_api import SessionInfo, hookimpl


def _record(event: Any) -> None:
    call = event.call.id if event.type == "tool_call_start" else \
        event.result.tool_use_id if event.type == "tool_call_end" else None
    line = {"type": event.type, "call": call, "pid": os.getpid()}
    with open(os.environ["DURABLE_TEST_EVENTS"], "a", encoding="utf-8") as events:
        events.write(json.dumps(line) + "\n")


@hookimpl
def agentkit_run_observer(session: SessionInfo) -> Callable[[Any], None] | None:
    return _record if os.environ.get("DURABLE_TEST_EVENTS") else None
