"""The incremental NDJSON decoder: one strict JSON text per line, bounded."""

from __future__ import annotations

import pytest

from agentkit.host.wire import FrameTooLarge, NDJSONDecoder, TruncatedStream, WireDecodeError


def test_values_per_line_in_any_chunking() -> None:
    raw = b'{"a": 1}\r\n\n  \n[2, 3]\n"x"\n'
    for size in (1, 2, 5, len(raw)):
        decoder = NDJSONDecoder()
        values = []
        for i in range(0, len(raw), size):
            values += decoder.feed(raw[i : i + size])
        values += decoder.close()
        assert values == [{"a": 1}, [2, 3], "x"]


def test_a_last_line_without_newline_is_truncation() -> None:
    decoder = NDJSONDecoder()
    assert decoder.feed(b'{"a": 1}\n{"b": 12') == [{"a": 1}]
    with pytest.raises(TruncatedStream):
        decoder.close()


def test_lines_are_strict_json() -> None:
    with pytest.raises(WireDecodeError, match="duplicate key"):
        NDJSONDecoder().feed(b'{"a": 1, "a": 2}\n')


def test_an_endless_line_is_refused() -> None:
    decoder = NDJSONDecoder(max_line_bytes=64)
    with pytest.raises(FrameTooLarge):
        for _ in range(100):
            decoder.feed(b'"aaaaaaaaaa')
    with pytest.raises(FrameTooLarge):
        decoder.feed(b"\n")
