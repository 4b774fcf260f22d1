"""Which catalog row a model name means.

Catalog rows come from each provider's ``catalog()``. An agent names its row
as ``vendor/model``, and the model id is sent as the user wrote it. An id
without a row of its own resolves, in this order (the first that matches):

1. a row that lists the id among its ``aliases``;
2. the id without its snapshot suffix (see :data:`SNAPSHOT`): a dated
   ``claude-haiku-4-5-20251001`` or ``gpt-4o-2024-08-06`` takes the row of
   ``claude-haiku-4-5`` or ``gpt-4o``;
3. the row whose ``families`` holds the longest prefix of the id (ending at a
   ``-`` or an Ollama tag's ``:``):
   ``claude-sonnet-4-7`` takes the row that declares ``claude-sonnet-4``;
4. otherwise the id is in no family the catalog knows, and it is sent as the
   user asked: the vendor's default row gives the wire and its limits, no
   setting is refused locally (the vendor decides), and the price is unknown
   (``priced=False``: the cost is reported as unknown, never as zero) unless
   every row of the vendor is free (a local server).

(The row that *served* a response is pricing's question:
:func:`agentkit.host.runtime.pricing.served_row`.)
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Mapping
from dataclasses import replace

from agentkit.plugin_api import ModelInfo

from .errors import ModelNotFound

__all__ = ["SNAPSHOT", "resolve_model", "snapshot_bases"]

log = logging.getLogger("agentkit.host")

#: The snapshot suffixes vendors put on a model id, each naming a fixed version of the undated model:
#: ``-20251001`` and ``@20251001`` (Anthropic, Vertex), ``-2024-08-06`` and ``-0613`` (OpenAI), ``-001``
#: (Gemini's stable versions), ``-latest`` (a moving pointer), and Gemini's ``-preview-05-20``,
#: ``-preview-09-2025``, ``-exp-1206`` (a bare ``-preview`` or ``-exp`` is tried last).
#: (Compiled by the first id the catalog does not list: a listed id needs none of it.)
SNAPSHOT = (
    r"(?:[-@]\d{8}|-\d{4}-\d{2}-\d{2}|-(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])|-\d{3}|-latest"
    r"|-(?:preview|exp)(?:-\d{2}-\d{2}(?:\d{2})?|-\d{4})?)$"
)


#: Where a family's name may end inside an id: ``claude-sonnet-4`` in ``claude-sonnet-4-7``, ``qwen3``
#: in Ollama's ``qwen3:8b`` (a tag).
_BOUNDARY = ("-", ":")


def snapshot_bases(model_id: str) -> Iterator[str]:
    """The ids ``model_id`` is a snapshot of, nearest first: ``gemini-2.5-flash-preview-05-20`` gives
    ``gemini-2.5-flash``; an id with no snapshot suffix gives nothing."""
    current = model_id
    while True:
        stripped = re.sub(SNAPSHOT, "", current, count=1)
        if stripped == current or not stripped:
            return
        yield stripped
        current = stripped


def resolve_model(spec: str, models: Mapping[str, ModelInfo], contested: Mapping[str, list[str]]) -> ModelInfo:
    """The row of ``models`` for ``vendor/model``; ``contested``: model -> the plugins that each list it.

    :raises ModelNotFound: see :meth:`PluginHost.resolve_model <agentkit.host.PluginHost.resolve_model>`.
    """
    if spec in models:
        return models[spec]
    claimants = contested.get(spec)
    if claimants:
        raise ModelNotFound(f"model {spec!r} is served by no plugin: plugins {', '.join(map(repr, claimants))} "
                            "each list it; disable or uninstall all but one (see 'agentkit plugins --check')")
    vendor, sep, model_id = spec.partition("/")
    if not sep or not vendor or not model_id:
        raise ModelNotFound(f"model {spec!r} is not of the form vendor/model, e.g. anthropic/claude-sonnet-4-6")
    rows = [row for row in models.values() if row.vendor == vendor]
    if not rows:
        vendors = sorted({row.vendor for row in models.values()}) or ["none"]
        raise ModelNotFound(
            f"no installed provider serves vendor {vendor!r} (installed vendors: {', '.join(vendors)}); "
            "install its provider plugin"
        )
    row = _known_row(model_id, rows)
    if row is not None:
        return replace(row, id=model_id, default=False)
    base = next((row for row in rows if row.default), rows[0])
    # A vendor whose every row is free (a local server) charges nothing for an unlisted model either.
    free = not any(r.input_price or r.output_price or r.cache_read_price or r.cache_write_price for r in rows)
    log.warning("model %s is in no model family the catalog knows: sent as asked, no setting refused, %s",
                spec, "free like every model of its vendor" if free else "price unknown")
    return replace(base, id=model_id, default=False, refused_settings=frozenset(), priced=free,
                   aliases=(), families=())


def _known_row(model_id: str, rows: list[ModelInfo]) -> ModelInfo | None:
    """The row an unlisted ``model_id`` belongs to: by alias, by its undated id, by its family."""
    by_id = {row.id: row for row in rows}
    aliases = {alias: row for row in reversed(rows) for alias in row.aliases}
    if model_id in aliases:
        return aliases[model_id]
    for base in snapshot_bases(model_id):
        row = by_id.get(base) or aliases.get(base)
        if row is not None:
            return row
    best: tuple[int, ModelInfo] | None = None
    for candidate in (model_id, *snapshot_bases(model_id)):
        for row in rows:
            for family in row.families:
                if (candidate == family or (candidate[len(family):len(family) + 1] in _BOUNDARY
                        and candidate.startswith(family))) and (
                        best is None or len(family) > best[0]):
                    best = (len(family), row)
    if best is not None:
        log.info("model %s has no catalog row; it takes the row of its family, %s", model_id, best[1].key)
        return best[1]
    return None
