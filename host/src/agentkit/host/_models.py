"""Which catalog row a model name means: the one asked for, and the one that answered.

Catalog rows come from each provider's ``catalog()``. A request names a row
as ``vendor/model`` (:func:`resolve_model`, which clones the vendor's default
row for a model released after its plugin); a response may name the model
that served it, a dated snapshot or a fallback (:func:`served_row`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace

from agentkit.plugin_api import AssistantMessage, ModelInfo

from .errors import ModelNotFound

__all__ = ["resolve_model", "served_row"]

log = logging.getLogger("agentkit.host")


def resolve_model(spec: str, models: Mapping[str, ModelInfo], contested: Mapping[str, list[str]]) -> ModelInfo:
    """The row of ``models`` for ``vendor/model``; ``contested``: model -> the plugins that each list it.

    :raises ModelNotFound: see :meth:`PluginHost.resolve_model <agentkit.host.PluginHost.resolve_model>`.
    """
    if spec in models:
        return models[spec]
    claimants = contested.get(spec)
    if claimants:
        raise ModelNotFound(f"model {spec!r} is served by no plugin: plugins {', '.join(map(repr, claimants))} "
                            "each list it; disable or uninstall all but one (see 'agentkit plugins')")
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
    base = next((row for row in rows if row.default), rows[0])
    log.warning("model %s is not in the catalog; using the limits and prices of %s", spec, base.key)
    return replace(base, id=model_id, default=False)


def served_row(message: AssistantMessage, requested: ModelInfo, models: Mapping[str, ModelInfo]) -> ModelInfo:
    """The catalog row of the model that served ``message``.

    ``response_model`` names it when the wire says so; a dated snapshot name
    (``claude-haiku-4-5-20251001``) matches the row it extends. A name that is
    no row of the requested vendor leaves the requested row.
    """
    served = message.response_model
    if not served or served == requested.id:
        return requested
    exact = models.get(f"{requested.vendor}/{served}")
    if exact is not None:
        return exact
    # The longest row id the name extends: "gpt-4o-mini-2024-07-18" is a
    # gpt-4o-mini, not a gpt-4o. The requested row competes too (it may be a
    # clone that is not in the catalog).
    rows = [row for row in models.values() if row.vendor == requested.vendor] + [requested]
    candidates = [row for row in rows if served.startswith(row.id + "-")]
    best = max(candidates, key=lambda row: len(row.id), default=requested)
    return requested if best.key == requested.key else best
