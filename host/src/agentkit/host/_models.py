"""Which catalog row a model name means.

Catalog rows come from each provider's ``catalog()``. An agent names its row
as ``vendor/model``; a model released after its plugin gets a clone of the
vendor's default row. (The row that *served* a response is pricing's
question: :func:`agentkit.host.runtime.pricing.served_row`.)
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace

from agentkit.plugin_api import ModelInfo

from .errors import ModelNotFound

__all__ = ["resolve_model"]

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
    base = next((row for row in rows if row.default), rows[0])
    log.warning("model %s is not in the catalog; using the limits and prices of %s", spec, base.key)
    return replace(base, id=model_id, default=False)
