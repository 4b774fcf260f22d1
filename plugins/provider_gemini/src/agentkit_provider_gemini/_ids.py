"""Tool-call ids and thought signatures: what this wire lacks or adds, kept in canonical blocks.

**Ids.** A ``functionCall`` part usually has no ``id``; results pair with calls
by position (the N ``functionResponse`` parts of a user turn answer the N
calls of the model turn before it, in order). The canonical transcript still
needs an id per call, so one is synthesized when the wire sends none::

    gemini_<24 hex digits of sha256(salt, responseId, ordinal, name, arguments)>

``salt`` is the model key and the transcript length of the request (the turn's
position), ``ordinal`` the call's position among the response's calls and
``arguments`` the canonical argument text. Nothing in it depends on how the
response was cut into chunks, nor on a counter: the streamed and the whole
response give the same id, and so does decoding the same bytes twice. An id
the wire did send is kept as it is and sent back (``functionCall.id`` and
``functionResponse.id``); a synthesized one is never sent, since the model
did not make it.

**Signatures.** Any part may carry a ``thoughtSignature`` (encrypted
reasoning), which must come back on the same part when the transcript is
replayed to the same model. On a thought part it is the
:class:`~agentkit.plugin_api.ThinkingBlock`'s ``signature``; a thought part
without one gets :data:`UNSIGNED_THOUGHT` instead, which is not a signature
and is never sent: it marks thinking this wire accepts back as it is (a
``thought: true`` part), so that the host's repair pass keeps it for the same
model instead of turning it into visible text (for another model it becomes
text like any thinking). On any other part
(a ``functionCall``, text, an empty text part) it travels as a *signature
carrier*: ``ThinkingBlock("", signature, redacted=True)`` placed right AFTER
the block of the part it belongs to. The encoder puts the signature back on
that part. A carrier is opaque reasoning like any redacted thinking: the
host's repair pass keeps it for the same model and drops it for any other.
"""

from __future__ import annotations

import hashlib

from agentkit.plugin_api import ContentBlock, ThinkingBlock

#: The ``signature`` of a thought part that came without one (never sent).
UNSIGNED_THOUGHT = "gemini:unsigned-thought"

#: Prefix of a synthesized tool-call id (never sent back on the wire).
SYNTHESIZED_PREFIX = "gemini_"


def synthesized_id(salt: str, response_id: str, ordinal: int, name: str, arguments: str) -> str:
    """The canonical id of a call that arrived without one; see the module docstring."""
    seed = "\x00".join((salt, response_id, str(ordinal), name, arguments))
    return (
        SYNTHESIZED_PREFIX + hashlib.sha256(seed.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    )


def wire_id(tool_use_id: str) -> str | None:
    """The id to send in ``functionCall.id``/``functionResponse.id``, or ``None`` (synthesized)."""
    if not tool_use_id or tool_use_id.startswith(SYNTHESIZED_PREFIX):
        return None
    return tool_use_id


def carrier(signature: str) -> ThinkingBlock:
    """The block that keeps the thought signature of the part before it."""
    return ThinkingBlock("", signature, redacted=True)


def is_carrier(block: ContentBlock) -> bool:
    return (
        isinstance(block, ThinkingBlock)
        and block.redacted
        and not block.thinking
        and bool(block.signature)
    )


def wire_signature(signature: str | None) -> str | None:
    """The ``thoughtSignature`` to send for a thinking block's ``signature``, or ``None``."""
    return signature if signature and signature != UNSIGNED_THOUGHT else None
