"""JSON text made on every ``tools/call`` (the arguments' hash, the structured result's size), for less.

``json.dumps`` with options builds a ``JSONEncoder``, and ``encode`` a C
encoder with a fresh cycle dict, on every call: about 300 bytecodes per
call of the two encodings a ``tools/call`` makes. The function
:func:`one_shot` returns builds the C encoder once and keeps no cycle dict,
so nothing is shared between calls; a value too deep for it, a cycle
included, is encoded again by the encoder itself, which raises what it
always raised. The plugin API's codec kit does the same for the host's
request bodies; a plugin imports only its public names (decision 0058).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


def one_shot(encoder: json.JSONEncoder) -> Callable[[Any], str]:
    """``encoder.encode``, the same text and errors, without building a C encoder per call."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None or encoder.indent is not None:  # no C accelerator, or an indent: the encoder as it is
        return encoder.encode
    strings = json.encoder.encode_basestring_ascii if encoder.ensure_ascii else json.encoder.encode_basestring
    fast = make(None, encoder.default, strings, None, encoder.key_separator, encoder.item_separator,
                encoder.sort_keys, encoder.skipkeys, encoder.allow_nan)
    checked = encoder.encode

    def encode(value: Any) -> str:
        try:
            return "".join(fast(value, 0))
        except RecursionError:
            return checked(value)

    return encode
