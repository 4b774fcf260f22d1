"""How a run writes itself into its agent's session, as it happens.

The loop hands every message it adds to the history to :meth:`RunLog.record`
at once: the user's message is written before the first request goes out,
each assistant message as it ends, each tool result as the batch settles it.
A write that fails stops the run (outcome ``error``, the error naming the
session and the cause); nothing is written after it, and the run's end says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentkit.plugin_api import Message, Outcome

from ._session import Session

if TYPE_CHECKING:
    from .._stopping.run_stop import RunStop


class RunLog:
    """One run's writer into a session."""

    def __init__(self, session: Session, stop: RunStop) -> None:
        self.session = session
        self.stop = stop
        #: Why the log could not be written, once it could not.
        self.failure: str | None = None

    @classmethod
    def start(cls, session: Session | None, model: str, thinking_level: str | None, stop: RunStop) -> RunLog | None:
        """The run's log (``None`` without a session), the model and thinking level recorded where they changed."""
        if session is None:
            return None
        log = cls(session, stop)
        if session.model != model:
            log._write(session.set_model, model)
        if thinking_level != session.thinking_level:
            log._write(session.set_thinking_level, thinking_level)
        return log

    def record(self, message: Message) -> None:
        """Append ``message`` at the session's leaf; after a failure, nothing more is written."""
        self._write(self.session.append_message, message)

    def compacted(self, first_kept: Message, summary: str | None) -> None:
        """Requests now start at ``first_kept``, after ``summary``: record it (a ``compaction`` entry)."""
        for entry in reversed(self.session.path()):
            if entry.message is first_kept:
                self._write(self.session.append_compaction, summary or "", entry.id)
                return

    def audit(self, record: dict[str, Any]) -> None:
        """Append an audit record (a ``custom`` entry of type ``audit``), written like any other entry."""
        self._write(self.session.append_custom, "audit", record)

    def custom(self, custom_type: str, data: Any) -> None:
        """Append an application record (a ``custom`` entry), written like any other entry."""
        self._write(self.session.append_custom, custom_type, data)

    def before_request(self) -> None:
        """A request is about to go out: what it carries must be durable (``Durability.TURN`` syncs here)."""
        self._write(self.session.checkpoint)

    def sync(self) -> None:
        """Make what was appended durable, as the store's durability says (after the run's end)."""
        self._write(self.session.checkpoint)

    def end(self, state: Any) -> None:
        """The run ends: sync, and a write that failed makes the outcome ``error``."""
        self._write(self.session.checkpoint)
        if self.failure is not None:
            state.outcome, state.error = Outcome.ERROR, self.failure

    def _write(self, write: Any, *args: Any) -> None:
        if self.failure is not None:
            return
        try:
            write(*args)
        except Exception as exc:  # a full disk, a lost lock, a store's conflict: the run cannot be kept
            self.failure = f"the session log {self.session.id} could not be written: {type(exc).__name__}: {exc}"
            self.stop.request(Outcome.ERROR, self.failure, on_loop=True)
