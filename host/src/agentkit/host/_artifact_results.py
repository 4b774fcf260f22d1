"""A tool result too long to inline becomes an artifact: the model gets a preview and ``read_artifact``.

The batch calls :meth:`ArtifactKeeper.inline` on every result text, whatever
the tool: within ``max_tool_result_chars`` it goes to the model as it is;
longer, the whole text is stored (:class:`~agentkit.host.sessions.ArtifactStore`)
and the model gets its head, its tail, its id and the call that reads on.
``read_artifact`` pages through an artifact of the agent's own session by
character offset; each page names the call that reads the next one. Its pages
are sized to fit the inline limit, so reading an artifact never makes another.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from agentkit.plugin_api import ExecutionMode, Tool, ToolContext, ToolError, ToolUseBlock

from . import errors

if TYPE_CHECKING:  # the store and the spool load with the first result over the limit (see ArtifactKeeper)
    from agentkit.plugin_api.results import Spool

    from .sessions._artifacts import ArtifactStore

#: The name of the host's tool that reads artifacts.
READ_ARTIFACT = "read_artifact"
#: The longest page when results are not limited.
UNLIMITED_PAGE_CHARS = 100_000
#: JSON may write one character as up to this many (``\\u0000``, with room for the envelope's own keys).
_ESCAPE_FACTOR = 8


class ArtifactKeeper:
    """Stores the too-long results of one agent's runs, and serves them back to its model.

    :param store: where artifacts are kept; ``None``: the default
        :class:`~agentkit.host.sessions.ArtifactStore` (in the data directory), made when
        first needed, so that an agent whose results all fit loads no store.
    :param owner: the session they belong to.
    :param limit: ``max_tool_result_chars``; ``None``: nothing is too long.
    :param created: called after each artifact is stored (the agent enables ``read_artifact`` then).
    :param ephemeral: the owner is a run without a session: its folder is claimed for this process
        before the first artifact (see :meth:`ArtifactStore.claim`), and the artifacts of runs
        whose process died are reaped then.
    """

    def __init__(self, store: ArtifactStore | None, owner: str, limit: int | None,
                 created: Callable[[], None] = lambda: None, *, ephemeral: bool = False) -> None:
        #: Holds the store once there is one (see :func:`discard_artifacts`).
        self.slot = StoreSlot(store)
        self.owner = owner
        self.limit = limit
        self._created = created
        self._unclaimed = ephemeral
        self._tool: Tool | None = None

    @property
    def store(self) -> ArtifactStore:
        """Where the artifacts are kept (the default store is made here, the first time)."""
        return self.slot.made()

    @property
    def tool(self) -> Tool:
        """``read_artifact`` over this keeper's artifacts (the same object each time)."""
        if self._tool is None:
            self._tool = Tool(
                READ_ARTIFACT,
                "Read a page of an artifact: a tool output too long to show at once, stored whole. "
                "Give its id and the character offset to start at; each page says the offset of the next.",
                {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string", "description": "the artifact's id, as the truncated result gave it"},
                        "offset": {"type": "integer", "minimum": 0,
                                   "description": "the first character to read (default 0)"},
                        "limit": {"type": "integer", "minimum": 1,
                                  "description": f"how many characters to read (default and at most {self.page_chars})"},
                    },
                    "required": ["id"],
                    "additionalProperties": False,
                },
                self._read,
                execution_mode=ExecutionMode.PARALLEL,
            )
        return self._tool

    @property
    def page_chars(self) -> int:
        """The longest page ``read_artifact`` returns: one that fits the inline limit however it is escaped."""
        if self.limit is None:
            return UNLIMITED_PAGE_CHARS
        return max(1, self.limit // _ESCAPE_FACTOR)

    def store_result(self, text: str) -> str:
        """Store ``text`` as an artifact of the owner; returns its id.

        :raises OSError: the data directory cannot be written.
        """
        self._claim()
        artifact_id = self.store.create(self.owner, text)
        self._created()
        return artifact_id

    def store_spool(self, spool: Spool) -> str:
        """Store a tool's spooled text as an artifact of the owner (moving its file); returns its id.

        :raises OSError: the data directory cannot be written.
        """
        spool.close()
        self._claim()
        if spool.path is None:
            artifact_id = self.store.create(self.owner, spool.read())
        else:
            artifact_id = self.store.adopt(self.owner, spool.path)
        self._created()
        return artifact_id

    def _claim(self) -> None:
        if self._unclaimed:
            self.store.claim(self.owner)
            self._unclaimed = False
            # The one moment a run without a session writes here: the leftovers of killed runs go now.
            with contextlib.suppress(OSError):  # someone else's leftovers never fail this run
                self.store.reap()

    def preview(self, text: str, ok: bool, artifact_id: str) -> str:
        """What the model sees of a stored result: its head and tail, its id, and how to read the rest."""
        assert self.limit is not None
        head_chars = max(1, self.limit // 2)
        tail_chars = max(1, self.limit // 4)
        next_offset = head_chars
        envelope: dict[str, Any] = {
            "ok": ok,
            "artifact": artifact_id,
            "chars": len(text),
            "head": text[:head_chars],
            "tail": text[-tail_chars:],
            "note": (f"The result was {len(text)} characters, over the inline limit of {self.limit} "
                     f"(max_tool_result_chars): it is stored as artifact {artifact_id}. Shown: the first "
                     f"{head_chars} and the last {tail_chars} characters of the result's JSON text. "
                     f'Read the rest with read_artifact(id="{artifact_id}", offset={next_offset}).'),
        }
        return json.dumps(envelope, ensure_ascii=False)

    def _read(self, arguments: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        artifact_id = arguments.get("id")
        offset = arguments.get("offset", 0)
        limit = arguments.get("limit", self.page_chars)
        if not isinstance(artifact_id, str):
            raise ToolError("invalid_arguments", "id must be an artifact id string")
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise ToolError("invalid_arguments", f"offset must be a whole number of characters, 0 or more; got {offset!r}")
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ToolError("invalid_arguments", f"limit must be a whole number of characters, 1 or more; got {limit!r}")
        from .sessions._artifacts import ArtifactNotFound

        try:
            text = self.store.read(self.owner, artifact_id)
        except ArtifactNotFound as exc:
            raise ToolError("artifact_not_found", f"{exc}. Only the artifacts of this session can be read, "
                                                  "by the id a truncated result gave.") from None
        if offset > len(text):
            raise ToolError("offset_out_of_range", f"offset {offset} is past the end of artifact {artifact_id}, "
                                                   f"which has {len(text)} characters; use an offset from 0 to {len(text)}")
        end = min(len(text), offset + min(limit, self.page_chars))
        page: dict[str, Any] = {"id": artifact_id, "offset": offset, "chars": len(text), "text": text[offset:end]}
        if end < len(text):
            page["next_offset"] = end
            page["more"] = (f"Characters {offset} to {end} of {len(text)}. "
                            f'Read on with read_artifact(id="{artifact_id}", offset={end}).')
        else:
            page["more"] = f"Characters {offset} to {end} of {len(text)}: the end of the artifact."
        return page


class StoreSlot:
    """A keeper's store, or nothing until the first artifact needs one.

    The agent's finalizer holds the slot, not the keeper (whose ``created`` callback holds the agent).
    """

    __slots__ = ("store",)

    def __init__(self, store: ArtifactStore | None) -> None:
        self.store = store

    def made(self) -> ArtifactStore:
        """The store, made now if it was not yet."""
        if self.store is None:
            from .sessions._artifacts import ArtifactStore

            self.store = ArtifactStore()
        return self.store


def discard_artifacts(slot: StoreSlot, owner: str) -> None:
    """Remove every artifact of ``owner`` from the slot's store; with no store made, none was stored."""
    if slot.store is not None:
        slot.store.delete(owner)


def has_artifacts(store: ArtifactStore, owner: str) -> bool:
    """Whether the session ``owner`` has stored artifacts (``False`` when they cannot be listed)."""
    try:
        return bool(store.list(owner))
    # errors.SessionNotFound is read only when something is raised: a run that lists no artifacts never makes it.
    except (OSError, errors.SessionNotFound):  # an unreadable data directory, an id that names no folder
        return False


def over_limit(keeper: ArtifactKeeper | None, tools: Mapping[str, Tool], call: ToolUseBlock, text: str, ok: bool,
               limit: int, emit: Callable[[Any], None], report: Callable[[str], None]) -> str:
    """What the model is given for a result ``text`` longer than ``limit``: an artifact's preview, or the text cut.

    Without a ``keeper``, or when it cannot store the text, its head and tail are given with a note saying how much
    was cut.
    """
    # read_artifact's pages fit by construction; should one not (a tiny
    # limit), it is cut rather than stored as an artifact of an artifact.
    if keeper is not None and not (call.name == READ_ARTIFACT and tools.get(call.name) is keeper.tool):
        try:
            artifact_id = keeper.store_result(text)
        except Exception as exc:  # an unwritable data directory, a session id that cannot name a folder
            report(f"the result of call {call.id} could not be stored as an artifact "
                   f"({exc}); it was cut to max_tool_result_chars")
        else:
            from agentkit.plugin_api import ArtifactCreated

            emit(ArtifactCreated(artifact_id, call.id, call.name, len(text)))
            return keeper.preview(text, ok, artifact_id)
    # Its two ends, as an artifact's preview: a command's summary is at its end.
    head, tail = max(1, limit // 2), max(1, limit // 4)
    note = (f"The result was {len(text)} characters, over the inline limit of {limit} (max_tool_result_chars), "
            f"and could not be kept: shown are its first {head} and last {tail} characters; the "
            f"{len(text) - head - tail} between them were cut.")
    envelope: dict[str, Any] = {"ok": ok, "head": text[:head], "tail": text[-tail:], "note": note}
    return json.dumps(envelope, ensure_ascii=False)
