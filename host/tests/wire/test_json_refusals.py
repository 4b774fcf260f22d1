"""What the strict JSON decoder says when it refuses: the words and the byte offset, and its bounds.

The words are what a user reads in the run's error (``stop_reason=error`` and
this text), so each refusal is checked whole; each size bound admits exactly
its limit and refuses one byte more, whatever the type of the input.
"""

from __future__ import annotations

import pytest

from agentkit.host.wire import WireDecodeError, loads


def refusal(data: bytes | bytearray | memoryview | str, **bounds: int) -> tuple[str, int | None]:
    with pytest.raises(WireDecodeError) as caught:
        loads(data, **bounds)
    return str(caught.value), caught.value.offset


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
def test_bytes_of_exactly_the_bound_are_decoded_and_one_more_is_refused_naming_both_sizes(kind: type) -> None:
    text = b'["' + b"a" * 60 + b'"]'  # 64 bytes
    assert loads(kind(text), max_bytes=64) == ["a" * 60]
    assert refusal(kind(text), max_bytes=63) == ("JSON text is 64 bytes, larger than the 63 allowed", None)


@pytest.mark.parametrize(
    "text",
    [
        '["' + "a" * 60 + '"]',  # one byte a character
        '["' + "é" * 30 + '"]',  # two
        '["' + "😀" * 15 + '"]',  # four
    ],
)
def test_a_str_of_exactly_the_bound_in_utf8_bytes_is_decoded_and_one_byte_more_is_refused(text: str) -> None:
    assert len(text.encode()) == 64
    assert loads(text, max_bytes=64) == [text[2:-2]]
    assert refusal(text, max_bytes=63) == ("JSON text is larger than 63 bytes", None)


def test_a_str_of_four_byte_characters_is_measured_in_bytes_not_characters() -> None:
    # 17 characters but 62 bytes: within the bound counted in characters, even three bytes a character.
    text = '"' + "😀" * 15 + '"'
    assert len(text) * 3 < 61 < len(text.encode())
    assert refusal(text, max_bytes=61) == ("JSON text is larger than 61 bytes", None)


def test_a_byte_order_mark_is_refused_at_byte_0() -> None:
    assert refusal(b"\xef\xbb\xbf{}") == ("JSON text starts with a UTF-8 byte order mark at byte 0", 0)


def test_invalid_utf8_is_refused_where_it_starts() -> None:
    assert refusal(b'["ok", "\xe2\x82"]') == ("JSON text is not valid UTF-8 at byte 8", 8)


def test_a_raw_lone_surrogate_in_a_str_is_refused_at_its_utf8_offset() -> None:
    assert refusal('["é", "\udc00"]') == ("lone surrogate in JSON text at byte 8", 8)


def test_an_escaped_lone_surrogate_is_refused_naming_the_range() -> None:
    assert refusal(b'{"k": "\\ud800"}') == ("JSON string holds an escaped lone surrogate (\\ud800-\\udfff)", None)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b'{"a": 1,}', ("invalid JSON at byte 8: Expecting property name enclosed in double quotes", 8)),
        (b'["\xc3\xa9" 1]', ("invalid JSON at byte 6: Expecting ',' delimiter", 6)),
        (b'{"a": 1} x', ("invalid JSON at byte 9: Extra data", 9)),
        (b"", ("invalid JSON at byte 0: Expecting value", 0)),
    ],
)
def test_text_that_is_not_json_is_refused_with_the_scanners_words_and_the_byte_offset(
    data: bytes, expected: tuple[str, int]
) -> None:
    assert refusal(data) == expected


def test_a_duplicate_key_before_a_syntax_error_is_what_is_reported() -> None:
    assert refusal(b'[{"a": 1, "a": 2}, ]') == ("duplicate key 'a' in a JSON object at byte 10", 10)
    assert refusal('{"é": 1, "é": 2} x') == ("duplicate key 'é' in a JSON object at byte 10", 10)


@pytest.mark.parametrize("kind", [bytes, str])
def test_a_duplicate_key_before_a_refused_constant_or_long_integer_is_what_is_reported(kind: type) -> None:
    def data(text: str) -> bytes | str:
        return text.encode() if kind is bytes else text

    assert refusal(data('[{"é": 1, "é": 2}, NaN]')) == ("duplicate key 'é' in a JSON object at byte 11", 11)
    assert refusal(data('[{"é": 1, "é": 2}, ' + "1" * 5000 + "]")) == (
        "duplicate key 'é' in a JSON object at byte 11",
        11,
    )


def test_nesting_past_the_bound_is_refused_at_the_first_bracket_too_deep() -> None:
    assert refusal('["é", [[1]]]', max_depth=2) == ("JSON nests deeper than 2 levels at byte 8", 8)
    assert loads('["é", [[1]]]', max_depth=3) == ["é", [[1]]]


def test_a_level_closed_inside_a_deep_list_counts_down_by_one_only() -> None:
    # Depths 1 2 3 2 3 4: the closing bracket at 3 leaves the list at depth 2, not at the top.
    assert refusal("[[[], [[]]]]", max_depth=3) == ("JSON nests deeper than 3 levels at byte 7", 7)
