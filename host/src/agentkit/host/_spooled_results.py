"""A tool's spooled text (``results.SpooledResult``): kept whole as an artifact, its two ends shown.

A tool whose output can run to megabytes writes it into a
:class:`~agentkit.plugin_api.results.Spool` (memory, then a temporary file) and
returns it in a :class:`~agentkit.plugin_api.results.SpooledResult`. The batch
hands it here: the file becomes an artifact of the session (moved, never read
whole), and ``data[field]`` becomes the text's head and tail around a line
that names the artifact and the ``read_artifact`` call that reads on. The
head and tail are sized so that the result stays within the inline limit.
Where nothing can be kept (no artifact store, as in ``agentkit tool run``, or
an unwritable data directory) the line says so. With no inline limit
(``max_tool_result_chars=None``) the text is sent whole.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentkit.plugin_api import ArtifactCreated, ToolResult, ToolUseBlock
from agentkit.plugin_api.results import SpooledResult

from ._artifact_results import ArtifactKeeper


def settle_spooled(result: SpooledResult, call: ToolUseBlock, keeper: ArtifactKeeper | None, limit: int | None,
                   emit: Callable[[Any], None], report: Callable[[str], None]) -> ToolResult:
    """The result the model gets for ``result`` of ``call``; an ``artifact_created`` event is emitted
    when its text became an artifact."""
    settled, artifact_id, chars = _settled(result, keeper, limit, report)
    if artifact_id is not None:
        emit(ArtifactCreated(artifact_id, call.id, call.name, chars))
    return settled


def _settled(result: SpooledResult, keeper: ArtifactKeeper | None, limit: int | None,
             report: Callable[[str], None]) -> tuple[ToolResult, str | None, int]:
    """The result the model gets for ``result``, the id of the artifact its text became (or None),
    and the length of that text in characters."""
    spool = result.spool
    assert spool is not None
    try:
        spool.close()
        if limit is None or spool.chars <= limit // 2:  # no inline limit, or short enough: sent whole
            return _with_text(result, spool.read()), None, spool.chars
        # Both ends are read before the file moves into the artifact store.
        head, tail = spool.head(max(1, limit // 4)), spool.tail(max(1, limit // 8))
        artifact_id, why = None, "nothing keeps artifacts outside an agent's run"
        if keeper is not None:
            try:
                artifact_id = keeper.store_spool(spool)
            except Exception as exc:  # an unwritable data directory, a session id that cannot name a folder
                why = f"it could not be stored: {exc}"
                report(f"a spooled output of {spool.chars} characters could not be stored as an artifact "
                       f"({exc}); only its head and tail were kept")
        return _fitted(result, spool.chars, head, tail, limit, artifact_id, why), artifact_id, spool.chars
    finally:
        spool.discard()


def _fitted(result: SpooledResult, chars: int, head: str, tail: str, limit: int,
            artifact_id: str | None, why: str) -> ToolResult:
    """Head and tail as long as the inline limit allows, however the JSON escapes them."""
    while True:
        settled = _with_text(result, head + _marker(chars, len(head), len(tail), artifact_id, why) + tail)
        if len(settled.to_text()) <= limit or len(head) + len(tail) <= 2:
            return settled
        head, tail = head[: max(1, len(head) // 2)], tail[-max(1, len(tail) // 2) :]


def _marker(chars: int, head: int, tail: int, artifact_id: str | None, why: str) -> str:
    hidden = chars - head - tail
    if artifact_id is None:
        return f"\n[... {hidden} characters not shown of {chars}; the whole text was not kept ({why}).]\n"
    return (f"\n[... {hidden} characters not shown of {chars}. The whole text is stored as artifact "
            f'{artifact_id}: read on with read_artifact(id="{artifact_id}", offset={head}); offsets count '
            "characters and each page names the next.]\n")


def _with_text(result: SpooledResult, text: str) -> ToolResult:
    data: Any = result.data
    data = {**data, result.field: text} if isinstance(data, dict) else {result.field: text}
    return ToolResult(result.ok, data=data, error=result.error, detail=result.detail,
                      metadata=dict(result.metadata), images=list(result.images))

