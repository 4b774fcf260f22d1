"""Random ids: what ``uuid.uuid4().hex`` gives, checked against the standard library's ``uuid``."""

from __future__ import annotations

import uuid

from agentkit.host._ids import random_hex

SAMPLES = 2000


def test_each_id_reads_back_as_a_random_version_4_uuid():
    for _ in range(SAMPLES):
        made = random_hex()
        read = uuid.UUID(hex=made)
        assert (read.version, read.variant) == (4, uuid.RFC_4122)
        assert read.hex == made  # 32 lowercase hex digits, as uuid4().hex


def test_every_bit_outside_the_version_and_variant_varies():
    ids = [int(random_hex(), 16) for _ in range(SAMPLES)]
    assert len(set(ids)) == SAMPLES
    fixed = {76, 77, 78, 79, 62, 63}  # uuid4's version nibble and variant bits, counted from the low end
    for bit in set(range(128)) - fixed:
        seen = {value >> bit & 1 for value in ids}
        assert seen == {0, 1}, f"bit {bit} never changes"
