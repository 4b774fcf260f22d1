"""The Agent Card: what a client learns of the served agent before it sends anything.

Built from the agent as ``agentkit run`` would build it: its name and
description (the command's options), one A2A skill per agentkit skill the
model may choose and one per enabled tool, so that a caller sees what the
agent can do. The card names one interface, JSON-RPC at protocol 1.0 (and
0.3 beside it, for clients of the previous era), at the server's own URL.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    HTTPAuthSecurityScheme,
    SecurityRequirement,
    SecurityScheme,
    StringList,
)
from a2a.utils.constants import PROTOCOL_VERSION_0_3, PROTOCOL_VERSION_1_0, TransportProtocol

if TYPE_CHECKING:
    from agentkit.host import Agent

#: The path of the JSON-RPC endpoint; the card is at the SDK's well-known path.
RPC_PATH = "/"
#: The name of the card's security scheme when the server asks for a key.
BEARER = "bearer"
#: The longest description a card repeats of a tool or skill: a card is read by every caller.
MAX_DESCRIPTION_CHARS = 1024


def agent_card(agent: Agent, *, url: str, name: str, description: str, version: str = "0.1.0",
               needs_key: bool = False) -> AgentCard:
    """The card of ``agent`` served at ``url`` (its base, as ``http://127.0.0.1:8766``).

    :param needs_key: the server asks for an API key: the card says so (an HTTP bearer scheme).
    """
    base = url.rstrip("/")
    skills = [AgentSkill(id=f"skill:{entry.skill.name}", name=entry.skill.name,
                         description=_short(entry.skill.description), tags=["skill"])
              for entry in agent.skills.invocable()]
    skills += [AgentSkill(id=f"tool:{tool.name}", name=tool.name, description=_short(tool.description),
                          tags=["tool"])
               for _, tool in sorted(agent.tools.items())]
    card = AgentCard(
        name=name,
        description=description,
        version=version,
        capabilities=AgentCapabilities(streaming=True, push_notifications=False),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=skills,
        supported_interfaces=[
            AgentInterface(protocol_binding=TransportProtocol.JSONRPC, protocol_version=version_,
                           url=base + RPC_PATH)
            for version_ in (PROTOCOL_VERSION_1_0, PROTOCOL_VERSION_0_3)
        ],
    )
    if needs_key:
        card.security_schemes[BEARER].CopyFrom(
            SecurityScheme(http_auth_security_scheme=HTTPAuthSecurityScheme(scheme="Bearer")))
        card.security_requirements.append(SecurityRequirement(schemes={BEARER: StringList()}))
    return card


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_DESCRIPTION_CHARS else text[: MAX_DESCRIPTION_CHARS - 1] + "…"
