"""A model a turn's request may go to: what an agent's fallback models are made of."""

from __future__ import annotations

from agentkit.plugin_api import ModelInfo, Provider

from ._repair import TranscriptRepair

__all__ = ["Route"]


class Route:
    """A model a turn's request may go to: its catalog row, its wire's codec, and the repair for its wire.

    An agent's fallback models (``AgentConfig(model=[...])``) are routes; a
    request sent along one is built for that model alone, its transcript
    repaired for that model as a model switch repairs it (:mod:`._repair`).

    A plain class, not a dataclass: a turn makes one and reads its three fields, nothing compares,
    hashes or copies one, and declaring it a frozen slotted dataclass (the class made twice) was
    0.35 M instructions of a first use (``bench/_first_use.py`` under callgrind).
    """

    __slots__ = ("model", "provider", "transcript_repair")

    def __init__(self, model: ModelInfo, provider: Provider, transcript_repair: TranscriptRepair) -> None:
        self.model = model
        self.provider = provider
        self.transcript_repair = transcript_repair
