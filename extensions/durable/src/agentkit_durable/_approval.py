"""Approvals that wait for a person: the parked run's side, and the side that answers it.

A call the embedder or a hook deferred (``Defer(reason)``) parks its durable
run: inside the workflow (not in a step, so no thread is held and nothing is
re-asked on recovery), the run publishes the DBOS event ``agentkit.waiting``
(the call's id, tool, reason, its whole argument text and that text's SHA-256)
and waits with ``DBOS.recv`` on the topic ``agentkit.approval``. Both are
checkpointed: a run recovered in another process publishes nothing twice and
takes the answer it was already given.

The answer comes from any process reaching the same database, through DBOS's
client (``DBOSClient.send``): ``agentkit runs approve|deny``, the RPC's
``runs.answer``, or :func:`answer_call`. An answer binds the call's id and the
SHA-256 of the arguments the person was shown (decision 0028): an answer for
another call, or for other arguments, is not taken, and the run goes on
waiting. Only ``approved: true`` runs the call.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentkit.host import Approval
from agentkit.plugin_api import Defer, ToolUseBlock
from agentkit.plugin_api.errors import UsageError

from ._database import default_database_url, unavailable

__all__ = ["APPROVAL_TOPIC", "WAITING_EVENT", "WAITING_LISTENERS", "Answered", "NotWaiting", "answer_call",
           "print_when_waiting", "wait_for_person", "waiting_line"]

#: The DBOS event a parked run publishes while it waits (``None`` once answered).
WAITING_EVENT = "agentkit.waiting"
#: The DBOS topic a person's answer is sent on.
APPROVAL_TOPIC = "agentkit.approval"
#: Seconds of one wait: a run cancelled while it waits notices it when the slice ends (DBOS checks a
#: workflow's cancellation at each of its operations), or at once when ``agentkit runs cancel`` wakes it.
WAIT_SLICE = 30.0
#: The message ``agentkit runs cancel`` wakes a cancelled run with: no answer, only a wake.
CANCELLED_WAKE = {"cancelled": True}
#: The workflow statuses of a run that may still be waiting (a killed one stays PENDING until resumed).
_UNFINISHED = frozenset({"PENDING", "ENQUEUED"})


def arguments_digest(arguments: str) -> str:
    """The SHA-256 (hex) of a call's argument text, exactly as the model wrote it."""
    return hashlib.sha256(arguments.encode("utf-8", "surrogatepass")).hexdigest()


def waiting_value(call: ToolUseBlock, deferral: Defer) -> dict[str, str]:
    """What ``agentkit.waiting`` holds while ``call`` waits: enough for a person to see the whole call."""
    return {"call_id": call.id, "tool": call.name, "reason": deferral.reason, "arguments": call.arguments,
            "arguments_sha256": arguments_digest(call.arguments)}


def _fits(message: Any, call: ToolUseBlock, digest: str) -> bool:
    """Whether ``message`` answers ``call`` as it was shown; a stale or foreign answer does not."""
    if not isinstance(message, dict) or message.get("call_id") != call.id:
        return False
    shown = message.get("arguments_sha256")
    return shown is None or shown == digest


#: Told ``(run id, what agentkit.waiting holds)`` each time a run of this process starts waiting
#: (``agentkit run --durable`` and ``runs resume`` print a line saying how to answer).
WAITING_LISTENERS: list[Callable[[str, dict[str, str]], object]] = []


async def wait_for_person(run_id: str, call: ToolUseBlock, deferral: Defer) -> Approval:
    """Park the running workflow ``run_id`` until a person answers about ``call``; their answer.

    Called inside the run's workflow, never inside a step: ``set_event`` and
    ``recv`` are the workflow's own checkpointed operations.
    """
    from dbos import DBOS

    waiting = waiting_value(call, deferral)
    await DBOS.set_event_async(WAITING_EVENT, waiting)
    for listener in list(WAITING_LISTENERS):
        listener(run_id, waiting)
    while True:
        message = await DBOS.recv_async(topic=APPROVAL_TOPIC, timeout_seconds=WAIT_SLICE)
        if _fits(message, call, waiting["arguments_sha256"]):
            break
    await DBOS.set_event_async(WAITING_EVENT, None)
    reason = message.get("reason")
    return Approval(message.get("approved") is True, reason if isinstance(reason, str) and reason else None)


def print_when_waiting() -> None:
    """For a command: say on stderr, in one line, when one of this process's runs starts waiting for a person."""
    import sys

    def show(run_id: str, waiting: dict[str, str]) -> None:
        print(waiting_line(run_id, waiting), file=sys.stderr, flush=True)

    WAITING_LISTENERS.append(show)


def waiting_line(run_id: str, waiting: dict[str, str]) -> str:
    """The line a command prints when its run starts waiting: what for, and how to answer."""
    from agentkit.host.cli.support import visible_line

    call = visible_line(waiting["call_id"])
    return (f"run {visible_line(run_id)} waits for a person: call {call} ({visible_line(waiting['tool'])}: "
            f"{visible_line(waiting['reason'])}); answer with 'agentkit runs approve {visible_line(run_id)} {call}' "
            f"or 'agentkit runs deny {visible_line(run_id)} {call} --reason TEXT'")


class NotWaiting(UsageError):
    """The run does not exist, has ended, or is not waiting for that call; the message says which."""


@dataclass(frozen=True)
class Answered:
    """An answer that was sent: the run, the call as the person was shown it, and the answer."""

    run_id: str
    call_id: str
    tool: str
    arguments: str
    arguments_sha256: str
    approved: bool
    reason: str | None


def answer_call(run_id: str, call_id: str, *, approved: bool, reason: str | None = None,
                arguments_sha256: str | None = None, database_url: str | None = None,
                environ: Mapping[str, str] | None = None) -> Answered:
    """Answer a parked run's call, from any process reaching its database.

    :param arguments_sha256: the SHA-256 of the arguments the person was
        shown (``agentkit.waiting``'s ``arguments_sha256``); ``None``: the
        call's as it waits now.
    :param database_url: the system database (default: ``--db``'s default,
        :func:`~agentkit_durable.default_database_url`).
    :raises NotWaiting: no such run, a run that ended, a run that waits for
        another call (or none), or arguments that are not those shown.
    :raises DatabaseUnavailable: the database cannot be reached or used (its password never shown).
    """
    from dbos import DBOSClient

    from ._database import private_sqlite

    url = database_url or default_database_url(os.environ if environ is None else environ)
    if url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).is_file():
        raise NotWaiting(f"no durable run {run_id!r}: there are no durable runs in {url.removeprefix('sqlite:///')} "
                         "yet (pass the --db the run was started with)")
    private_sqlite(url, create=False)  # reading it unpickles what it holds
    try:
        client = DBOSClient(system_database_url=url)
        try:
            waiting = _waiting(client, run_id, call_id)
            if arguments_sha256 is not None and arguments_sha256 != waiting["arguments_sha256"]:
                raise NotWaiting(f"the call {call_id} of run {run_id} waits with other arguments than those "
                                 f"answered for (SHA-256 {waiting['arguments_sha256']}); show the call again and "
                                 "answer that")
            client.send(run_id, {"call_id": call_id, "approved": approved, "reason": reason,
                                 "arguments_sha256": waiting["arguments_sha256"]}, topic=APPROVAL_TOPIC)
        finally:
            client.destroy()
    except NotWaiting:
        raise
    except Exception as exc:  # an unreachable or foreign database: one line, its password hidden
        raise unavailable(url, exc) from None
    return Answered(run_id, call_id, str(waiting.get("tool")), str(waiting.get("arguments")),
                    str(waiting["arguments_sha256"]), approved, reason)


def _waiting(client: Any, run_id: str, call_id: str) -> dict[str, Any]:
    """What the run waits for, when it is ``call_id``; else :class:`NotWaiting`, saying why."""
    found = client.list_workflows(workflow_ids=[run_id], load_input=False, load_output=False)
    if not found:
        raise NotWaiting(f"no durable run {run_id!r} (agentkit runs list shows them)")
    status = str(found[0].status)
    if status not in _UNFINISHED:
        raise NotWaiting(f"run {run_id} is not waiting: it is {status.lower()}")
    waiting = client.get_event(run_id, WAITING_EVENT, timeout_seconds=0)
    if not isinstance(waiting, dict) or "arguments_sha256" not in waiting:
        raise NotWaiting(f"run {run_id} is not waiting for a person (no call of it waits for an answer)")
    if waiting.get("call_id") != call_id:
        raise NotWaiting(f"run {run_id} is not waiting for call {call_id!r}: it waits for call "
                         f"{waiting.get('call_id')!r} ({waiting.get('tool')})")
    return waiting
