"""Values the lifecycle hooks receive and return."""

from __future__ import annotations

from pathlib import Path

from ._dataclass import dataclass


@dataclass(frozen=True, slots=True)
class Block:
    """A refusal of one tool call.

    The call still gets a result (an error carrying ``reason``) and the loop
    goes on. ``terminate=True`` is how a hook or the embedder's
    ``before_tool_call`` ends the run: once the batch is answered, it ends
    with outcome ``terminated``.
    """

    reason: str
    terminate: bool = False


@dataclass(frozen=True, slots=True)
class Defer:
    """Ask a person whether one tool call may run.

    The embedder's ``before_tool_call`` or a plugin's
    ``agentkit_before_tool_call`` answers ``Defer(reason)`` to say that a
    person decides. It narrows like a :class:`Block`: any block, from the
    embedder or any plugin, wins over it, and the call runs only if a person
    approves. A durable run (``agentkit run --durable``) parks until someone
    answers (``agentkit runs approve``/``deny``, from any process); a run that
    is not durable cannot wait, and answers the call with an error naming
    ``--durable``.

    :param reason: what the person is asked about, shown to them while the
        run waits (and to the model if the call is denied without a reason).

    .. versionadded:: 0.2
    """

    reason: str


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """The run a hook is called for."""

    session_id: str
    model: str
    root: Path

