"""The incremental SSE decoder: WHATWG event-stream rules, chunking, bounds.

Recorded streams: anthropics/anthropic-sdk-python (MIT), its streaming test
fixtures, kept in ``testdata/anthropic-sdk-python/`` (see its ``PROVENANCE.md``).
The parsing rules are the HTML standard's "Interpreting an event stream".
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentkit.host.wire import FrameTooLarge, SSEDecoder, SSEMessage, TruncatedStream

SDK_STREAMS = Path(__file__).resolve().parents[3] / "testdata" / "anthropic-sdk-python"


def decode(*chunks: bytes, **bounds: int) -> list[SSEMessage]:
    decoder = SSEDecoder(**bounds)
    out: list[SSEMessage] = []
    for chunk in chunks:
        out += decoder.feed(chunk)
    out += decoder.close()
    return out


def split(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def test_recorded_anthropic_streams_decode_the_same_in_any_chunking() -> None:
    files = sorted(SDK_STREAMS.glob("*.txt"))
    assert len(files) == 7, files
    for path in files:
        # The fixtures were trimmed after the last event's data line; a live
        # stream ends every event with a blank line.
        raw = path.read_bytes().rstrip(b"\n") + b"\n\n"
        whole = decode(raw)
        assert len(whole) == raw.count(b"event: "), path.name
        assert whole[0].event == "message_start"
        assert whole[-1].event == "message_stop"
        for message in whole:
            assert json.loads(message.data)["type"] == message.event
        for size in (1, 2, 3, 5, 64):
            assert decode(*split(raw, size)) == whole, (path.name, size)
        crlf = raw.replace(b"\n", b"\r\n")
        assert decode(*split(crlf, 7)) == whole


def test_a_recorded_stream_cut_before_its_blank_line_loses_only_the_last_event() -> None:
    raw = (SDK_STREAMS / "basic_response.txt").read_bytes()
    raw = raw.rstrip(b"\n")
    decoder = SSEDecoder()
    events = decoder.feed(raw)
    assert events[-1].event != "message_stop"
    with pytest.raises(TruncatedStream):
        decoder.close()


@pytest.mark.parametrize("end", [b"\n", b"\r", b"\r\n"])
def test_every_line_ending(end: bytes) -> None:
    stream = end.join([b"event: e", b"data: a", b"data: b", b"", b"data: c", b"", b""])
    assert decode(stream) == [SSEMessage("e", "a\nb"), SSEMessage(None, "c")]


def test_a_crlf_split_across_chunks_is_one_line_end() -> None:
    # Read as two line ends, the LF would be a blank line dispatching "a" alone.
    assert decode(b"data: a\r", b"\ndata: b\r", b"\n\r\n") == [SSEMessage(None, "a\nb")]


def test_a_leading_bom_is_dropped_even_split_across_chunks() -> None:
    assert decode(b"\xef\xbb\xbfdata: x\n\n") == [SSEMessage(None, "x")]
    assert decode(b"\xef", b"\xbb", b"\xbfdata: x\n\n") == [SSEMessage(None, "x")]


def test_a_bom_after_the_start_is_not_dropped() -> None:
    # Only the stream's first bytes may be a BOM; later it makes an unknown field.
    assert decode(b"data: x\n\n\xef\xbb\xbfdata: y\n\n") == [SSEMessage(None, "x")]


def test_comments_unknown_fields_and_space_after_colon() -> None:
    stream = b": keep-alive\nfoo: bar\ndata:  two spaces\ndata:none\n\n"
    assert decode(stream) == [SSEMessage(None, " two spaces\nnone")]


def test_a_field_without_colon_has_an_empty_value() -> None:
    # The standard's own example: "data" alone twice makes data "\n".
    assert decode(b"data\n\ndata\ndata\n\n") == [SSEMessage(None, ""), SSEMessage(None, "\n")]


def test_an_event_without_data_is_not_dispatched_and_resets_the_name() -> None:
    assert decode(b"event: lonely\n\ndata: x\n\n") == [SSEMessage(None, "x")]


def test_id_persists_and_retry_must_be_digits() -> None:
    stream = b"id: 7\nretry: 1500\ndata: a\n\ndata: b\nretry: 1x\n\nid: bad\x00id\ndata: c\n\n"
    assert decode(stream) == [
        SSEMessage(None, "a", "7", 1500),
        SSEMessage(None, "b", "7", None),
        SSEMessage(None, "c", "7", None),
    ]


def test_invalid_utf8_is_replaced_not_fatal() -> None:
    assert decode(b"data: \xff\n\n") == [SSEMessage(None, "\ufffd")]


def test_a_multibyte_character_split_across_chunks_survives() -> None:
    raw = "data: héllo 😀\n\n".encode()
    assert decode(*split(raw, 1)) == [SSEMessage(None, "héllo 😀")]


def test_truncated_final_event_is_discarded_not_dispatched() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: whole\n\ndata: half") == [SSEMessage(None, "whole")]
    with pytest.raises(TruncatedStream):
        decoder.close()
    decoder = SSEDecoder()
    decoder.feed(b"data: complete line but no blank line\n")
    with pytest.raises(TruncatedStream):
        decoder.close()


def test_a_clean_end_and_a_trailing_comment_are_not_truncation() -> None:
    decoder = SSEDecoder()
    decoder.feed(b"data: x\n\n: bye\n")
    assert decoder.close() == []


def test_an_endless_line_is_refused_without_buffering_it() -> None:
    decoder = SSEDecoder(max_line_bytes=100)
    with pytest.raises(FrameTooLarge):
        for _ in range(1000):
            decoder.feed(b"data: " + b"x" * 10)
    with pytest.raises(FrameTooLarge):  # the framing is lost: no more input
        decoder.feed(b"\n\n")


def test_a_long_line_inside_one_chunk_is_refused() -> None:
    with pytest.raises(FrameTooLarge):
        SSEDecoder(max_line_bytes=100).feed(b"data: " + b"x" * 200 + b"\n\n")


def test_an_event_growing_past_its_bound_is_refused() -> None:
    decoder = SSEDecoder(max_line_bytes=100, max_event_bytes=1000)
    with pytest.raises(FrameTooLarge):
        for _ in range(200):
            decoder.feed(b"data: " + b"y" * 50 + b"\n")


_LINES = st.lists(
    st.one_of(
        st.just(""),
        st.builds(lambda v: "data: " + v, st.text("ab é:\x00", max_size=8)),
        st.builds(lambda v: "event: " + v, st.text("xy", max_size=3)),
        st.builds(lambda v: "id: " + v, st.text("12", max_size=3)),
        st.just(": comment"),
        st.just("retry: 10"),
    ),
    max_size=20,
)


@settings(max_examples=300, deadline=None)
@given(
    lines=_LINES,
    end=st.sampled_from(["\n", "\r", "\r\n"]),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=10),
)
def test_chunking_never_changes_the_events(lines: list[str], end: str, cuts: list[int]) -> None:
    raw = (end.join(lines) + end + end).encode()
    points = sorted({c for c in cuts if c < len(raw)} | {0, len(raw)})
    chunks = [raw[a:b] for a, b in itertools.pairwise(points)]
    assert decode(*chunks) == decode(raw)


def test_an_overlong_unfinished_tail_after_a_line_end_is_refused() -> None:
    decoder = SSEDecoder(max_line_bytes=100)
    # The event before the bad tail is delivered; the error comes with the next call.
    assert decoder.feed(b"data: a\n\n" + b"x" * 200) == [SSEMessage(None, "a")]
    assert isinstance(decoder.error, FrameTooLarge)
    with pytest.raises(FrameTooLarge):
        decoder.feed(b"\n")


def test_an_event_exactly_at_its_bound_is_accepted_every_time() -> None:
    # Each data line counts its bytes and the LF that joins it; the count starts
    # again with every event, so the second event may be as large as the first.
    line = b"data: " + b"y" * 9 + b"\n"
    assert decode(line + b"\n" + line + b"\n", max_event_bytes=10) == [
        SSEMessage(None, "y" * 9),
        SSEMessage(None, "y" * 9),
    ]
    with pytest.raises(FrameTooLarge):
        decode(b"data: " + b"y" * 10 + b"\n\n", max_event_bytes=10)


def test_a_stream_of_only_part_of_a_bom_ends_clean() -> None:
    assert decode(b"\xef\xbb") == []


def test_part_of_a_bom_after_the_start_is_a_truncated_line() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: x\n\n\xef") == [SSEMessage(None, "x")]
    with pytest.raises(TruncatedStream):
        decoder.close()


def test_the_truncation_error_says_what_was_lost() -> None:
    decoder = SSEDecoder()
    decoder.feed(b"data: half")
    with pytest.raises(TruncatedStream) as caught:
        decoder.close()
    assert str(caught.value) == (
        "the SSE stream ended in the middle of an event (no blank line after it); "
        "the partial event was discarded"
    )


def test_a_bound_error_names_the_fix_and_every_later_call_names_it_again() -> None:
    decoder = SSEDecoder(max_line_bytes=100)
    with pytest.raises(FrameTooLarge) as caught:
        decoder.feed(b"x" * 200)
    reason = "an SSE line is longer than 100 bytes and has not ended"
    assert str(caught.value) == reason + "; raise the decoder's bound if the peer is trusted"
    # Even input that would be well formed is refused: the framing is lost.
    with pytest.raises(FrameTooLarge) as again:
        decoder.feed(b"\n\ndata: ok\n\n")
    assert str(again.value) == f"the SSE decoder stopped after an earlier error: {reason}"
    assert decoder.close() == []  # the error was raised already; nothing is truncated


def test_an_empty_stream_ends_clean() -> None:
    assert SSEDecoder().close() == []


def test_a_bom_at_the_start_of_a_later_chunk_is_not_dropped() -> None:
    # Only the stream's first chunk may start with a BOM, wherever the chunks are cut.
    decoder = SSEDecoder()
    assert decoder.feed(b"data: x\n\n") == [SSEMessage(None, "x")]
    assert decoder.feed(b"\xef\xbb\xbfdata: y\n\n") == []
    assert decoder.close() == []


def test_an_unfinished_line_exactly_at_its_bound_waits_for_its_end() -> None:
    line = b"data: abcd"  # 10 bytes
    decoder = SSEDecoder(max_line_bytes=10)
    assert decoder.feed(line) == []  # a chunk without a line end
    assert decoder.feed(b"\n\n") == [SSEMessage(None, "abcd")]
    assert decoder.feed(b"data: x\n\n" + line) == [SSEMessage(None, "x")]  # a tail after a line end
    assert decoder.feed(b"\n\n") == [SSEMessage(None, "abcd")]
    assert decoder.close() == []


def test_invalid_utf8_in_an_event_name_or_id_is_replaced_not_fatal() -> None:
    assert decode(b"event: \xff\nid: \xfe\ndata: x\n\n") == [SSEMessage("\ufffd", "x", "\ufffd")]


def test_only_the_lf_right_after_a_cr_is_taken_as_its_pair() -> None:
    # The CR ends the line; the LF of the next chunk completes the CRLF; the LF of
    # the chunk after that is a blank line of its own and dispatches the event.
    assert decode(b"data: a\r", b"\n", b"\n") == [SSEMessage(None, "a")]


@settings(max_examples=200, deadline=None)
@given(
    lines=_LINES,
    end=st.sampled_from(["\n", "\r", "\r\n"]),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=10),
    bound=st.sampled_from([None, 8, 24]),
)
def test_feed_fields_gives_feed_s_events_and_errors_as_tuples(
    lines: list[str], end: str, cuts: list[int], bound: int | None
) -> None:
    # Two decoders fed the same chunks, one through each door: the same events, in the same
    # order, and the same error at the same call (a small bound makes some streams fail).
    raw = (end.join(lines) + end + end).encode()
    points = sorted({c for c in cuts if c < len(raw)} | {0, len(raw)})
    bounds = {} if bound is None else {"max_event_bytes": bound}
    messages, fields = SSEDecoder(**bounds), SSEDecoder(**bounds)
    for a, b in itertools.pairwise(points):
        try:
            expected = [(m.event, m.data, m.id, m.retry) for m in messages.feed(raw[a:b])]
        except FrameTooLarge as exc:
            with pytest.raises(FrameTooLarge, match=re.escape(str(exc))):
                fields.feed_fields(raw[a:b])
            return
        assert fields.feed_fields(raw[a:b]) == expected


def test_the_event_close_discards_leaves_nothing_behind() -> None:
    # The truncated event is reported once; a decoder fed again after close() builds its
    # next event from nothing: no name, retry or data of the discarded one, and the
    # whole event bound (a data line of exactly the bound is accepted).
    decoder = SSEDecoder(max_event_bytes=10)
    assert decoder.feed(b"event: half\nretry: 5\ndata: 123\n") == []
    with pytest.raises(TruncatedStream):
        decoder.close()
    assert decoder.close() == []
    line = b"data: " + b"y" * 9 + b"\n\n"  # nine bytes and the LF: exactly the bound
    assert decoder.feed(line + b"data: next") == [SSEMessage(None, "y" * 9)]
