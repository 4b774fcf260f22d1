"""Where :func:`loads` says a duplicate key repeats, over documents built to confuse the search.

The repeated key also appears as a value, inside other strings, in nested and
sibling objects, spelled with escapes, and spaced before its colon. The answer
must name the key the parse met first and point at a place where that key
repeats inside one object.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agentkit.host.wire import WireDecodeError, loads

_NAMES = ["a", "b", 'a"', "/a", "é", "a\\", "a\n", "{[", "a{[b", ":", ",", "", " a"]


def _spellings(name: str) -> list[str]:
    """Every way the tests write ``name`` as a JSON string."""
    spellings = [
        json.dumps(name, ensure_ascii=False),
        json.dumps(name),
        '"' + "".join(f"\\u{ord(c):04x}" for c in name) + '"',
    ]
    if "/" in name:
        spellings.append(spellings[0].replace("/", "\\/"))
    return spellings


# A node is ("raw", json text), ("list", [nodes]) or ("object", [(name, spelling, space, node)]).
_LEAVES = st.sampled_from(['1', '"{"', '"]"', '"\\"a\\":"', '"a\\\\"', '""'] + [
    spelling for name in _NAMES for spelling in _spellings(name)
]).map(lambda text: ("raw", text))
_NODES = st.recursive(
    _LEAVES,
    lambda children: (
        st.lists(children, max_size=4).map(lambda items: ("list", items))
        | st.lists(
            st.tuples(st.sampled_from(_NAMES), st.integers(0, 3), st.sampled_from(["", " ", "\n "]), children),
            max_size=4,
        ).map(lambda pairs: ("object", pairs))
    ),
    max_leaves=10,
)


def _render(node, out: bytearray, closed: list[list[tuple[str, int]]]) -> None:
    """Write ``node`` to ``out``; append each object's (key, offset) list to ``closed`` as it closes."""
    kind, content = node
    if kind == "raw":
        out += content.encode()
    elif kind == "list":
        out += b"["
        for index, item in enumerate(content):
            out += b"," if index else b""
            _render(item, out, closed)
        out += b"]"
    else:
        out += b"{"
        keys = []
        for index, (name, spelling, space, value) in enumerate(content):
            out += b"," if index else b""
            keys.append((name, len(out)))
            spellings = _spellings(name)
            out += (spellings[spelling % len(spellings)] + space + ":").encode()
            _render(value, out, closed)
        out += b"}"
        closed.append(keys)


def _repeats(keys: list[tuple[str, int]]) -> list[tuple[str, int]]:
    seen: set[str] = set()
    repeats = []
    for name, offset in keys:
        if name in seen:
            repeats.append((name, offset))
        seen.add(name)
    return repeats


@settings(max_examples=150, deadline=None)
@given(_NODES, st.sampled_from(["", ' "a":"a":', "\x01\x01", ", NaN", ' {"a":1,"a"']))
def test_the_offset_of_a_duplicate_is_where_the_named_key_repeats(node, after: str) -> None:
    out, closed = bytearray(), []
    _render(node, out, closed)
    # What follows the value is not JSON: it must not count, whatever it holds.
    data = bytes(out) + after.encode()
    # The parse meets objects as they close; the first with a repeat names its first repeated key.
    first = next((repeats[0][0] for keys in closed if (repeats := _repeats(keys))), None)
    if first is None:
        if not after:
            loads(data)
        return
    where = {offset for keys in closed for name, offset in _repeats(keys) if name == first}
    for text in (data, data.decode()):
        with pytest.raises(WireDecodeError) as info:
            loads(text)
        assert f"duplicate key {first!r} in a JSON object at byte {info.value.offset}" in str(info.value)
        assert info.value.offset in where, (text, info.value.offset, where)


@pytest.mark.parametrize(
    ("text", "offset"),
    [
        # The key is spelled with an escape once; its plain spelling occurs twice.
        (b'[{"a":1,"\\u0061":2},{"a":3}]', 8),
        # An escaped quote makes a value look like the key.
        (b'[{"x\\"a":1,"a":2},{"a":3,"a":4}]', 25),
        (b'{"a":"a","a":{"\\u00e9":"\\"a\\":","\xc3\xa9":"a"}}', 32),
        # The key spaced before its colon.
        (b'{"a":1, "a" :2, "a":3}', 8),
        (b'[{"b":1}, {"a" : [1, {"a": 2}], "x": "\\"", "a"\n: 3}]', 43),
        # A key of punctuation passes for the end of one string and the start of the next.
        (b'{"a":1,"a":{",":"{",":":1,",":1}}', 26),
        # Brackets inside strings, and an empty string beside the key.
        (b'{"a": "]}", "b": ["[", ""], "a": 2}', 28),
        (b'[{"a": {}}, {"a": [], "": "", "a": 1}]', 30),
    ],
)
def test_the_offset_of_a_duplicate_in_hard_cases(text: bytes, offset: int) -> None:
    with pytest.raises(WireDecodeError) as info:
        loads(text)
    assert info.value.offset == offset, info.value


@pytest.mark.parametrize(
    "text",
    [
        b'[{"a": {}, "a": 1}, {"a": 2}] "a": "a":',
        b'[{"a": {}, "a": 1}, {"a": 2}]\x01\x01',
        b'[{"a": {}, "a": 1}, {"a": 2}, "\x01\x01"]',
        b'[{"a": {}, "a": 1}, {"a": 2}, NaN, "a": "a":]',
        b'[{"a": {}, "a": 1}, {"a": 2}, ' + b"1" * 5000 + b', "a": "a":]',
    ],
)
def test_a_duplicate_met_before_an_error_is_reported_where_it_repeats(text: bytes) -> None:
    with pytest.raises(WireDecodeError, match="duplicate key 'a'") as info:
        loads(text)
    assert info.value.offset == 11


# Names whose one spelling needs no ambiguous escape (``\u``, ``\/``, ``\"``).
_PLAIN_NAMES = ["a", "b", "é", "a\\", "a\n", "a{[b", ",a", "a:", ""]
_PLAIN_LEAVES = st.sampled_from(['1', '"{"', '"]"', '"a\\\\"', '""', '"x\\n"'] + [
    json.dumps(name, ensure_ascii=False) for name in _PLAIN_NAMES
]).map(lambda text: ("raw", text))
_PLAIN_NODES = st.recursive(
    _PLAIN_LEAVES,
    lambda children: (
        st.lists(children, max_size=4).map(lambda items: ("list", items))
        | st.lists(
            st.tuples(st.sampled_from(_PLAIN_NAMES), st.just(0), st.sampled_from(["", " ", "\n "]), children),
            max_size=4,
        ).map(lambda pairs: ("object", pairs))
    ),
    max_leaves=10,
)


@settings(max_examples=100, deadline=None)
@given(_PLAIN_NODES)
# Empty containers between the keys, and a nested object that holds the key once.
@example(("list", [("object", [("a", 0, "", ("list", [])), ("a", 0, "", ("object", []))]), ("object", [("a", 0, "", ("raw", "1"))])]))
@example(("object", [("a", 0, "", ("object", [("a", 0, "", ("raw", "1"))])), ("a", 0, "", ("raw", "1"))]))
@example(("object", [("a", 0, "", ("list", [("object", [("a", 0, "", ("raw", "1"))])])), ("a", 0, "", ("raw", "1"))]))
@example(("list", [
    ("object", [("a", 0, "", ("object", [("a", 0, "", ("raw", "1"))])), ("a", 0, "", ("raw", "1"))]),
    ("object", [("a", 0, "", ("raw", "1"))]),
]))
def test_a_duplicate_is_found_without_a_second_parse_when_every_key_has_one_spelling(node) -> None:
    # Refusing a duplicate must cost about what accepting the document does: the
    # byte search answers by itself (the exact parse, several times slower, is
    # only for texts where an escape can spell a key two ways).
    from agentkit.host.wire import _duplicates

    out, closed = bytearray(), []
    _render(node, out, closed)
    repeats = [_repeats(keys) for keys in closed]
    first = next((found[0][0] for found in repeats if found), None)
    if first is None:
        return
    where = {offset for found in repeats for name, offset in found if name == first}
    assert _duplicates.locate(bytes(out), first) in where


def test_a_duplicate_met_by_one_thread_is_never_another_threads() -> None:
    # The parses of two threads interleave (the scanner lets go of the interpreter at every object
    # when the switch interval is tiny): each must be judged on its own text, the clean one accepted
    # and the one with a duplicate refused, naming its own key.
    import sys
    import threading

    clean = json.dumps([{"k": i, "v": [i]} for i in range(300)])
    repeated = "[" + ",".join('{"a": 1, "b": {"c": 2, "c": 3}}' for _ in range(300)) + "]"
    verdicts: dict[str, list[str]] = {"clean": [], "repeated": []}
    together = threading.Barrier(2)

    def parse(name: str, text: str) -> None:
        together.wait()
        for _ in range(120):
            try:
                loads(text)
                verdicts[name].append("accepted")
            except WireDecodeError as exc:
                verdicts[name].append(str(exc).split(" in a JSON")[0])

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=parse, args=("clean", clean)),
                   threading.Thread(target=parse, args=("repeated", repeated))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert verdicts == {"clean": ["accepted"] * 120, "repeated": ["duplicate key 'c'"] * 120}
