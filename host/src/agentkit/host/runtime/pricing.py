"""Pricing: the cost of a response, computed once, at the prices of the model that served it.

The runtime prices each response as it ends (one call of its ``pricing``
per response, see :class:`ProviderRuntime`), and nothing prices it again.
The row is the one the wire names as having served the response when that
is another row of the requested vendor (a fallback, or a dated snapshot such
as ``claude-haiku-4-5-20251001``), else the requested row.

A cost the wire reported itself is its bill and is kept. Decoders leave the
cost at zero unless the wire reported one, so zero means "not reported":
a response is never re-priced by comparing two computed costs.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Mapping
from typing import Any, TypeAlias, TypeVar

from agentkit.plugin_api import AssistantMessage, ModelInfo, Usage

__all__ = ["PriceResponse", "Pricing", "cost_of", "served_row"]

_D = TypeVar("_D", AssistantMessage, Usage)

#: How a runtime prices a response: ``(message, requested row) -> message with its cost``.
PriceResponse: TypeAlias = Callable[[AssistantMessage, ModelInfo], AssistantMessage]


def cost_of(usage: Usage, model: ModelInfo) -> float:
    """US dollars for ``usage`` at ``model``'s prices (per million tokens), cache reads and writes included.

    The one-hour cache write (a part of ``cache_write``) is priced at
    ``cache_write_1h_price``, the rest of the write at ``cache_write_price``.
    """
    long_write = min(usage.cache_write_1h, usage.cache_write)
    return (
        usage.input * model.input_price
        + usage.output * model.output_price
        + usage.cache_read * model.cache_read_price
        + (usage.cache_write - long_write) * model.cache_write_price
        + long_write * model.cache_write_1h_price
    ) / 1_000_000


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


class Pricing:
    """Prices a response at the catalog row of the model that served it.

    :param models: the catalog, ``vendor/model -> row`` (an agent passes
        :attr:`PluginHost.models <agentkit.host.PluginHost.models>`). Without
        it only the requested row and its snapshots are known, so a response
        is priced at the requested row.
    """

    def __init__(self, models: Mapping[str, ModelInfo] | None = None) -> None:
        self.models: Mapping[str, ModelInfo] = models if models is not None else {}

    def __call__(self, message: AssistantMessage, requested: ModelInfo) -> AssistantMessage:
        """``message`` with its cost; a cost the wire reported is kept as it is."""
        usage = self._priced_usage(message, requested)
        return message if usage is None else _replaced(message, usage=usage)

    def _priced_usage(self, message: AssistantMessage, requested: ModelInfo) -> Usage | None:
        """``message``'s usage with its cost; ``None`` when it stays as it is."""
        usage = message.usage
        if usage.cost:
            return None
        row = served_row(message, requested, self.models)
        if not row.priced:  # no prices: the cost is unknown, never zero
            return _replaced(usage, cost=None)
        cost = cost_of(usage, row)
        return _replaced(usage, cost=cost) if cost else None


#: By dataclass: its ``__init__`` fields' names, in order, and a getter of all their values at once.
_INIT_FIELDS: dict[type, tuple[tuple[str, ...], operator.attrgetter[Any]] | None] = {}


def _replaced(value: _D, **changes: Any) -> _D:
    """``dataclasses.replace(value, **changes)``, for less: priced once per response, so its cost counts.

    The values are read by one ``attrgetter`` and passed by position; a
    dataclass with a keyword-only field is left to ``dataclasses.replace``.
    """
    kind = type(value)
    if kind not in _INIT_FIELDS:
        fields = [field for field in dataclasses.fields(value) if field.init]
        names = tuple(field.name for field in fields)
        positional = not any(field.kw_only for field in fields) and len(names) > 1
        _INIT_FIELDS[kind] = (names, operator.attrgetter(*names)) if positional else None
    known = _INIT_FIELDS[kind]
    if known is None:
        return dataclasses.replace(value, **changes)
    names, getter = known
    values = list(getter(value))
    for name, changed in changes.items():
        values[names.index(name)] = changed
    return kind(*values)
