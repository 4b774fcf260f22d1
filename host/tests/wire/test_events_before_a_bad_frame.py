"""Every complete event before a bad frame is delivered, however the bytes are chunked.

Fed in one chunk or in many, an SSE or NDJSON stream that holds good events,
then a bad frame, then more events, yields exactly the good events before the
bad one and then an error: never fewer (lost events), never more (events after
a frame whose framing is lost).
"""

from __future__ import annotations

import itertools
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from agentkit.host.wire import NDJSONDecoder, SSEDecoder, WireError

MAX_LINE = 64
MAX_EVENT = 256

_WORDS = st.text("abc xyz:é", min_size=1, max_size=10)


def drain(decoder, chunks: list[bytes]) -> tuple[list, WireError | None]:
    got: list = []
    try:
        for chunk in chunks:
            got += decoder.feed(chunk)
        got += decoder.close()
    except WireError as exc:
        return got, exc
    return got, None


def chunked(raw: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(raw) + 1) for c in cuts} | {0, len(raw)})
    return [raw[a:b] for a, b in itertools.pairwise(points)]


_SSE_BAD = {
    "long line": b"data: " + b"x" * (MAX_LINE + 10) + b"\n\n",
    "long unterminated line": b"data: " + b"x" * (MAX_LINE + 10),
    "big event": b"".join(b"data: " + b"y" * 40 + b"\n" for _ in range(MAX_EVENT // 40 + 2)) + b"\n",
}


@settings(max_examples=300, deadline=None)
@given(
    before=st.lists(_WORDS, max_size=6),
    after=st.lists(_WORDS, min_size=1, max_size=3),
    bad=st.sampled_from(sorted(_SSE_BAD)),
    end=st.sampled_from([b"\n", b"\r\n", b"\r"]),
    cuts=st.lists(st.integers(min_value=0, max_value=2000), max_size=12),
)
def test_sse_delivers_every_event_before_a_bad_frame(before, after, bad, end, cuts) -> None:
    def events(words: list[str]) -> bytes:
        return b"".join(b"data: " + w.encode() + end + end for w in words)

    bad_frame = _SSE_BAD[bad].replace(b"\n", end)
    raw = events(before) + bad_frame + events(after)
    for chunks in (chunked(raw, cuts), [raw]):
        got, error = drain(SSEDecoder(max_line_bytes=MAX_LINE, max_event_bytes=MAX_EVENT), chunks)
        assert [message.data for message in got] == before
        assert error is not None


_NDJSON_BAD = {
    "invalid json": b'{"a": }\n',
    "duplicate key": b'{"a": 1, "a": 2}\n',
    "long line": b'"' + b"z" * (MAX_LINE + 10) + b'"\n',
    "long unterminated line": b'"' + b"z" * (MAX_LINE + 10),
    "nan": b"[NaN]\n",
}


@settings(max_examples=300, deadline=None)
@given(
    before=st.lists(
        st.one_of(_WORDS, st.integers(-999, 999), st.dictionaries(st.sampled_from("ab"), st.integers(-999, 999))),
        max_size=6,
    ),
    after=st.lists(_WORDS, min_size=1, max_size=3),
    bad=st.sampled_from(sorted(_NDJSON_BAD)),
    cuts=st.lists(st.integers(min_value=0, max_value=2000), max_size=12),
)
def test_ndjson_delivers_every_value_before_a_bad_line(before, after, bad, cuts) -> None:
    def lines(values: list) -> bytes:
        return b"".join(json.dumps(value).encode() + b"\n" for value in values)

    raw = lines(before) + _NDJSON_BAD[bad] + lines(after)
    for chunks in (chunked(raw, cuts), [raw]):
        got, error = drain(NDJSONDecoder(max_line_bytes=MAX_LINE), chunks)
        assert got == before
        assert error is not None


def test_the_kept_error_is_visible_before_the_next_call() -> None:
    decoder = NDJSONDecoder()
    assert decoder.feed(b'1\n2\n{"bad"\n3\n') == [1, 2]
    assert decoder.error is not None and "invalid JSON" in str(decoder.error)
