"""A remote agent's card, read once while the host is built: what its tools are made of.

The card is read with a deadline and a size limit (:data:`MAX_CARD_BYTES`),
and must be an Agent Card the SDK parses, with an interface this client
speaks (JSON-RPC or HTTP+JSON) at the entry's own origin (the entry's headers,
its key, are sent nowhere else) and text among its input modes. Anything else is
a :class:`CardProblem` whose message says what is wrong with which agent.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from urllib.parse import urlsplit

import httpx
from a2a.client.card_resolver import parse_agent_card
from a2a.types import AgentCard
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH, TransportProtocol

#: The largest card read; a card lists skills, not data.
MAX_CARD_BYTES = 1024 * 1024
#: The protocol bindings this client speaks, in the order it prefers them.
BINDINGS = [TransportProtocol.JSONRPC, TransportProtocol.HTTP_JSON]


class CardProblem(Exception):
    """The card cannot be read or used; the message says why (the agent's name is added by the caller)."""


def fetch_card(url: str, headers: Mapping[str, str], timeout_s: float) -> AgentCard:
    """The card of the agent at base ``url``.

    :raises CardProblem: unreachable, an HTTP error, too large, not JSON, not an Agent Card, or unusable.
    """
    card_url = url.rstrip("/") + AGENT_CARD_WELL_KNOWN_PATH
    try:
        with httpx.Client(timeout=timeout_s, headers=dict(headers)) as http, http.stream("GET", card_url) as response:
            if response.status_code != 200:
                raise CardProblem(f"{card_url} answered HTTP {response.status_code}, not its Agent Card")
            body = bytearray()
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > MAX_CARD_BYTES:
                    raise CardProblem(f"the card at {card_url} is over {MAX_CARD_BYTES} bytes")
    except httpx.TimeoutException:
        raise CardProblem(f"{card_url} did not answer within {timeout_s:g} s (connect_timeout_s)") from None
    except httpx.HTTPError as exc:
        raise CardProblem(f"cannot reach {card_url} ({type(exc).__name__}: {exc}); is the agent running?") from None
    try:
        card = parse_agent_card(json.loads(body))
    except Exception as exc:  # JSON, the SDK's ParseError, protobuf's: all mean "no card here"
        raise CardProblem(f"{card_url} is not an Agent Card ({type(exc).__name__}: {str(exc)[:200]})") from None
    check_usable(card, card_url)
    return same_origin(card, url, card_url)


def same_origin(card: AgentCard, url: str, where: str) -> AgentCard:
    """``card`` with only the interfaces at ``url``'s origin: the entry's headers (its key) go nowhere else.

    :raises CardProblem: every interface this client speaks is at another origin.
    """
    origin = _origin(url)
    kept = [interface for interface in card.supported_interfaces
            if interface.protocol_binding in BINDINGS and _origin(interface.url) == origin]
    if not kept:
        elsewhere = sorted({interface.url for interface in card.supported_interfaces})
        raise CardProblem(f"the card at {where} sends calls to {', '.join(elsewhere)}, not to {origin}: the entry's "
                          "headers go only to its own url's origin; set url to the agent's own address")
    del card.supported_interfaces[:]
    card.supported_interfaces.extend(kept)
    return card


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    try:
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError:
        port = None
    return parts.scheme, (parts.hostname or "").lower(), port


def check_usable(card: AgentCard, where: str) -> None:
    """:raises CardProblem: no name, no interface this client speaks, or no text input."""
    if not card.name:
        raise CardProblem(f"the card at {where} has no name: it is not an Agent Card")
    if not any(interface.protocol_binding in BINDINGS for interface in card.supported_interfaces):
        offered = sorted({interface.protocol_binding for interface in card.supported_interfaces}) or ["none"]
        raise CardProblem(f"the card at {where} offers {', '.join(offered)}; this client speaks "
                          f"{' or '.join(BINDINGS)}")
    modes = list(card.default_input_modes)
    if modes and not any(mode in ("text", "text/plain") or mode.startswith("text/") for mode in modes):
        raise CardProblem(f"the agent at {where} takes no text (its input modes: {', '.join(modes)})")
