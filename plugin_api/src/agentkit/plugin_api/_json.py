"""``JSONEncoder.encode`` without building an encoder per call.

``json.JSONEncoder.encode`` makes a new C encoder on every call, with a fresh
dict to detect cycles: about half the cost of a small message. The encoder
:func:`one_shot` returns is made once and keeps no cycle dict, so nothing is
shared between calls (safe from any thread). A value it cannot finish
because it nests too deep, a cycle included, is encoded again by the
original encoder, which raises what it always raised (``ValueError:
Circular reference detected`` for a cycle): the output and the errors are
``encoder.encode``'s.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json import encoder as _stdlib
from typing import Any

__all__ = ["one_shot"]


def one_shot(encoder: json.JSONEncoder) -> Callable[[Any], str]:
    """A function that returns ``encoder.encode(value)``, for less."""
    make = getattr(_stdlib, "c_make_encoder", None)
    if make is None or encoder.indent is not None:  # no C accelerator: the encoder as it is
        return encoder.encode
    strings = _stdlib.encode_basestring_ascii if encoder.ensure_ascii else _stdlib.encode_basestring
    fast = make(None, encoder.default, strings, None, encoder.key_separator, encoder.item_separator,
                encoder.sort_keys, encoder.skipkeys, encoder.allow_nan)
    checked = encoder.encode

    def encode(value: Any) -> str:
        try:
            return "".join(fast(value, 0))
        except RecursionError:
            return checked(value)

    return encode
