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


@pytest.mark.parametrize("chunks", [[b'"' + b"a" * 14 + b'"\n'], [b'"' + b"a" * 14, b'"\n'], [b'"' + b"a" * 14 + b'"', b"\n"]])
def test_a_line_exactly_at_the_bound_is_accepted_in_any_chunking(chunks) -> None:
    decoder = NDJSONDecoder(max_line_bytes=16)
    values = []
    for chunk in chunks:
        values += decoder.feed(chunk)
    assert values == ["a" * 14] and decoder.close() == []


@pytest.mark.parametrize("chunks", [[b'"' + b"a" * 15 + b'"\n'], [b'"' + b"a" * 15 + b'"'], [b'"a', b"a" * 15]])
def test_one_byte_past_the_bound_is_refused_and_the_decoder_stays_stopped(chunks) -> None:
    decoder = NDJSONDecoder(max_line_bytes=16)
    with pytest.raises(FrameTooLarge) as first:
        for chunk in chunks:
            decoder.feed(chunk)
    reason = str(first.value)
    assert reason.startswith("an NDJSON line ") and reason.endswith(
        "; raise the decoder's bound if the peer is trusted")
    with pytest.raises(FrameTooLarge) as again:
        decoder.feed(b'"fine"\n')
    assert str(again.value) == f"the NDJSON decoder stopped after an earlier error: {reason}"


def test_a_bad_line_stops_the_decoder_naming_the_error() -> None:
    decoder = NDJSONDecoder()
    with pytest.raises(WireDecodeError) as first:
        decoder.feed(b"[1,]\n")
    with pytest.raises(FrameTooLarge) as again:
        decoder.feed(b"[1]\n")
    assert str(again.value) == f"the NDJSON decoder stopped after an earlier error: {first.value}"


def test_only_spaces_tabs_and_carriage_returns_make_a_blank_line() -> None:
    decoder = NDJSONDecoder()
    assert decoder.feed(b" \t\r\n") == []
    with pytest.raises(WireDecodeError):
        decoder.feed(b"\x0c\n")


def test_a_truncated_last_line_says_how_long_it_was() -> None:
    decoder = NDJSONDecoder()
    decoder.feed(b'{"b": 12')
    with pytest.raises(TruncatedStream) as info:
        decoder.close()
    assert str(info.value) == (
        "the NDJSON stream ended in the middle of a line (8 bytes without a newline); the partial line was discarded")


def test_a_blank_unterminated_tail_is_not_truncation() -> None:
    decoder = NDJSONDecoder()
    assert decoder.feed(b"1\n \t\r") == [1]
    assert decoder.close() == []


def test_closing_after_a_raised_error_adds_nothing() -> None:
    decoder = NDJSONDecoder()
    with pytest.raises(WireDecodeError):
        decoder.feed(b'[1,]\n{"partial')
    assert decoder.close() == []


def test_the_depth_bound_applies_to_each_line() -> None:
    decoder = NDJSONDecoder(max_depth=2)
    assert decoder.feed(b"[[1]]\n") == [[[1]]]
    with pytest.raises(WireDecodeError, match="nest"):
        decoder.feed(b"[[[1]]]\n")


def test_only_spaces_tabs_and_carriage_returns_are_a_blank_tail() -> None:
    for tail in (b"X", b"\x0c", b"\x0b"):
        decoder = NDJSONDecoder()
        assert decoder.feed(b"1\n" + tail) == [1]
        with pytest.raises(TruncatedStream):
            decoder.close()


def test_a_line_of_other_bytes_is_decoded_not_skipped() -> None:
    with pytest.raises(WireDecodeError):
        NDJSONDecoder().feed(b"X\n")


def test_an_unterminated_tail_exactly_at_the_bound_waits_for_its_newline() -> None:
    decoder = NDJSONDecoder(max_line_bytes=16)
    assert decoder.feed(b'1\n"' + b"a" * 14 + b'"') == [1]
    assert decoder.feed(b"\n") == ["a" * 14]


def test_an_unterminated_tail_past_the_bound_is_refused_naming_the_bound() -> None:
    decoder = NDJSONDecoder(max_line_bytes=16)
    with pytest.raises(FrameTooLarge) as info:
        decoder.feed(b'\n"' + b"a" * 16)
    assert str(info.value) == (
        "an NDJSON line is longer than 16 bytes and has not ended; raise the decoder's bound if the peer is trusted")


def test_a_bound_raised_past_the_json_default_admits_lines_up_to_it() -> None:
    from agentkit.host.wire.json import DEFAULT_MAX_BYTES

    decoder = NDJSONDecoder(max_line_bytes=DEFAULT_MAX_BYTES + 16)
    [value] = decoder.feed(b'"' + b"a" * DEFAULT_MAX_BYTES + b'"\n')
    assert len(value) == DEFAULT_MAX_BYTES
