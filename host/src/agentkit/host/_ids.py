"""Random identifiers for sessions, runs and artifacts, without importing :mod:`uuid`.

``uuid`` imports :mod:`platform` to learn which system it runs on, and the two
cost a first use (``bench/_first_use.py``) a twentieth of its instructions to
make two identifiers. :func:`random_hex` gives what ``uuid.uuid4().hex`` gives:
the 32 hex digits of a random version-4 UUID, from the same source
(:func:`os.urandom`), so every id keeps its shape and ``uuid.UUID(hex=...)``
still reads it.
"""

from __future__ import annotations

from os import urandom


def random_hex() -> str:
    """``uuid.uuid4().hex``: 32 lowercase hex digits of 122 random bits, marked version 4, RFC 4122 variant."""
    octets = bytearray(urandom(16))
    octets[6] = octets[6] & 0x0F | 0x40  # the version, 4, in the high nibble of the seventh octet
    octets[8] = octets[8] & 0x3F | 0x80  # the variant, 0b10, in the top two bits of the ninth
    return octets.hex()
