"""The strict JSON decoder against JSONTestSuite and the holes it closes.

JSONTestSuite: nst/JSONTestSuite (MIT), ``test_parsing/``, kept in
``data/jsontestsuite/`` beside this file (see its ``PROVENANCE.md``); ``y_``
must be accepted, ``n_`` rejected, ``i_`` either way but never a crash or a hang.
"""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentkit.host.wire import WireDecodeError, loads
from agentkit.plugin_api.errors import ProviderError

_SUITE = Path(__file__).parent / "data" / "jsontestsuite" / "test_parsing"
_CASES = sorted(_SUITE.iterdir())


def _expected(name: str) -> bool | None:
    # Explicit override: the suite accepts duplicate keys, we reject them,
    # because accepting lets the peer pick which of two values we see.
    if name.startswith("y_object_duplicated_key"):
        return False
    if name.startswith("y_"):
        return True
    if name.startswith("n_"):
        return False
    return None


def test_the_whole_suite_is_here() -> None:
    assert len(_CASES) == 318, _SUITE


@pytest.mark.parametrize("path", _CASES, ids=[p.name for p in _CASES])
def test_json_test_suite(path: Path) -> None:
    data = path.read_bytes()
    expected = _expected(path.name)
    try:
        loads(data)
        accepted = True
    except WireDecodeError:
        accepted = False
    if expected is not None:
        assert accepted is expected


def test_duplicate_keys_are_rejected_at_any_depth_with_the_offset() -> None:
    with pytest.raises(WireDecodeError) as info:
        loads(b'{"x": [1, {"a": {"b": 1, "b": 2}}]}')
    assert "'b'" in str(info.value)
    # The offset points at the repeated key itself.
    assert info.value.offset == 25
    assert "byte 25" in str(info.value)


def test_a_key_repeated_in_sibling_objects_is_not_a_duplicate() -> None:
    assert loads(b'[{"a": 1}, {"a": 2}]') == [{"a": 1}, {"a": 2}]


@pytest.mark.parametrize("text", [b"NaN", b"[Infinity]", b'{"a": -Infinity}', b"[1e999]"])
def test_non_finite_numbers_are_rejected(text: bytes) -> None:
    with pytest.raises(WireDecodeError):
        loads(text)


def test_integers_are_exact_and_key_order_is_kept() -> None:
    value = loads(b'{"z": 123456789012345678901234567890, "a": 1.5, "m": -0}')
    assert value["z"] == 123456789012345678901234567890
    assert list(value) == ["z", "a", "m"]


def test_deep_nesting_is_a_clean_error_not_a_recursion() -> None:
    with pytest.raises(WireDecodeError, match="deeper than 256"):
        loads(b"[" * 100_000)
    with pytest.raises(WireDecodeError, match="deeper than 3"):
        loads(b'[[[{"a": 1}]]]', max_depth=3)
    assert loads(b'[[["[[[[[[[[["]]]', max_depth=3) == [[["[[[[[[[[["]]]


def test_size_is_checked_before_parsing() -> None:
    with pytest.raises(WireDecodeError, match="larger than"):
        loads(b"[" + b"1," * 100 + b"1]", max_bytes=64)
    with pytest.raises(WireDecodeError, match="larger than"):
        loads('"' + "é" * 40 + '"', max_bytes=64)


def test_errors_name_the_byte_offset() -> None:
    with pytest.raises(WireDecodeError) as info:
        loads('{"é": 1,}'.encode())
    assert info.value.offset == 9
    with pytest.raises(WireDecodeError) as info:
        loads(b'{"a": "\xff"}')
    assert info.value.offset == 7


@pytest.mark.parametrize("text", [b'"\\ud800"', b'{"\\udc00": 1}', b'["\\ud800\\u0041"]'])
def test_lone_surrogate_escapes_are_rejected(text: bytes) -> None:
    with pytest.raises(WireDecodeError, match="surrogate"):
        loads(text)


def test_a_surrogate_pair_is_one_character() -> None:
    assert loads(b'"\\ud834\\udd1e"') == "\U0001d11e"


def test_trailing_data_and_bom_are_rejected() -> None:
    with pytest.raises(WireDecodeError):
        loads(b'{"a": 1} x')
    with pytest.raises(WireDecodeError):
        loads(b"\xef\xbb\xbf{}")


def test_errors_are_provider_errors() -> None:
    assert issubclass(WireDecodeError, ProviderError)


def test_a_str_holding_a_raw_lone_surrogate_is_rejected() -> None:
    with pytest.raises(WireDecodeError, match="surrogate"):
        loads('["ok", "\ud800"]')
    assert loads('["ok", "é"]') == ["ok", "é"]


def test_the_cheap_depth_exit_does_not_hide_deep_nesting() -> None:
    # Many brackets inside strings plus real nesting just over the limit.
    deep = "[" * 5 + '"' + "[" * 300 + '"' + "]" * 5
    assert loads(deep, max_depth=5) == [[[[["[" * 300]]]]]
    with pytest.raises(WireDecodeError, match="deeper than 4"):
        loads(deep, max_depth=4)


_JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=5), children, max_size=5)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(_JSON_VALUES)
def test_what_the_standard_encoder_writes_decodes_to_the_same_value(value) -> None:
    text = json.dumps(value, ensure_ascii=False)
    try:
        raw = text.encode("utf-8")
    except UnicodeEncodeError:
        return  # hypothesis text may hold lone surrogates: not UTF-8 at all
    decoded = loads(raw)
    assert decoded == value
    assert json.dumps(decoded) == json.dumps(value)  # key order too


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=64) | st.text(alphabet='[]{}",:0123456789.eE+-tfnrul \\', max_size=64))
def test_any_input_is_a_value_or_a_wire_decode_error(data) -> None:
    with contextlib.suppress(WireDecodeError):
        loads(data)


def test_an_integer_past_the_digit_limit_is_a_clean_error_with_its_offset() -> None:
    with pytest.raises(WireDecodeError, match="more than 4300 digits") as info:
        loads(b'["' + b"9" * 5000 + b'", ' + b"9" * 5000 + b"]")
    assert info.value.offset == 5005
    assert loads(b"9" * 4000) == int("9" * 4000)


@pytest.mark.parametrize(
    ("text", "offset", "problem"),
    [
        ("NaN", 0, "NaN is not JSON"),
        ('["NaN", -Infinity]', 8, "-Infinity is not JSON"),
        ("[1e400, 1e400]", 1, "number 1e400 is out of the range of a float"),
        # A long number is cut to its first 40 characters in the words.
        ("[1." + "0" * 50 + "e400]", 1, "number 1." + "0" * 38 + " is out of the range of a float"),
    ],
)
def test_a_constant_or_an_infinite_number_is_refused_where_it_first_stands(
    text: str, offset: int, problem: str
) -> None:
    with pytest.raises(WireDecodeError) as caught:
        loads(text)
    assert (str(caught.value), caught.value.offset) == (
        f"invalid JSON at byte {offset}: {problem}",
        offset,
    )


def test_the_integer_past_the_digit_limit_is_the_one_reported() -> None:
    limit = sys.get_int_max_str_digits()
    # A minus sign is not a digit: the first integer is exactly at the limit.
    text = "[-" + "1" * limit + ", " + "2" * (limit + 1) + "]"
    with pytest.raises(WireDecodeError) as caught:
        loads(text)
    assert caught.value.offset == text.index("2")


def test_depth_is_counted_back_down_one_level_per_closing_bracket() -> None:
    # Closed lists before a deep one do not lower how deep it nests.
    assert loads("[[], [[]]]", max_depth=3) == [[], [[]]]
    with pytest.raises(WireDecodeError) as caught:
        loads("[[], [[[]]]]", max_depth=3)
    assert caught.value.offset == 7
