"""A model a turn's request may go to: what an agent's fallback models are made of."""

from __future__ import annotations

from agentkit.plugin_api import ModelInfo, Provider
from agentkit.plugin_api._dataclass import dataclass

from ._repair import TranscriptRepair

__all__ = ["Route"]


@dataclass(frozen=True, slots=True)
class Route:
    """A model a turn's request may go to: its catalog row, its wire's codec, and the repair for its wire.

    An agent's fallback models (``AgentConfig(model=[...])``) are routes; a
    request sent along one is built for that model alone, its transcript
    repaired for that model as a model switch repairs it (:mod:`._repair`).
    """

    model: ModelInfo
    provider: Provider
    transcript_repair: TranscriptRepair
