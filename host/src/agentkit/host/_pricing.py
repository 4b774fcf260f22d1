"""The cost of a response: its usage at the prices of the model that served it.

The wire may name another catalog row of the same vendor than the one asked
for (a fallback, a dated snapshot; see :func:`._models.served_row`): the
bill is that row's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from agentkit.plugin_api import AssistantMessage, ModelInfo, Usage

from ._models import served_row

__all__ = ["cost_of", "with_served_cost"]


def cost_of(usage: Usage, model: ModelInfo) -> float:
    """US dollars for ``usage`` at ``model``'s prices (per million tokens), cache reads and writes included."""
    return (
        usage.input * model.input_price
        + usage.output * model.output_price
        + usage.cache_read * model.cache_read_price
        + usage.cache_write * model.cache_write_price
    ) / 1_000_000


def with_served_cost(
    message: AssistantMessage, requested: ModelInfo, models: Mapping[str, ModelInfo]
) -> AssistantMessage:
    """``message`` with its cost at the serving model's prices.

    A cost the wire reported itself (one that is not the requested row's
    arithmetic) is kept: the wire knows best.
    """
    row = served_row(message, requested, models)
    if row is requested:
        return message
    usage = message.usage
    at_requested = cost_of(dataclasses.replace(usage, cost=0.0), requested)
    if usage.cost and usage.cost != at_requested:
        return message
    cost = cost_of(usage, row)
    if cost == usage.cost:
        return message
    return dataclasses.replace(message, usage=dataclasses.replace(usage, cost=cost))
