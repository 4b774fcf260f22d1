"""The strict JSON decoder never raises RecursionError, whatever the input or the caller's stack.

The C scanner recurses per nesting level and shares the interpreter's
recursion limit with the caller: a caller already deep in its own stack
would see ``RecursionError`` for input well within ``max_depth``.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentkit.host.wire import WireDecodeError, loads


def at_depth(frames: int, call):
    """Run ``call()`` with about ``frames`` frames already on the stack (leave loads a dozen of its own)."""
    if frames <= 0:
        return call()
    return at_depth(frames - 1, call)


def headroom() -> int:
    depth = 0
    frame = sys._getframe()
    while frame is not None:
        depth += 1
        frame = frame.f_back
    return sys.getrecursionlimit() - depth


def nested(depth: int) -> str:
    return "[" * depth + '{"k": "\\u00e9"}' + "]" * depth


@pytest.mark.parametrize("spare", [15, 30, 60, 200])
def test_a_caller_deep_in_its_stack_gets_the_value_not_a_recursion_error(spare: int) -> None:
    text = nested(250)
    value = at_depth(headroom() - spare, lambda: loads(text))
    for _ in range(250):
        [value] = value
    assert value == {"k": "é"}


@pytest.mark.parametrize("spare", [15, 60])
def test_errors_deep_in_the_stack_are_still_wire_errors(spare: int) -> None:
    duplicate = "[" * 200 + '{"a": 1, "b": {"c": 2}, "a": 3}' + "]" * 200
    with pytest.raises(WireDecodeError, match="duplicate key 'a'") as info:
        at_depth(headroom() - spare, lambda: loads(duplicate))
    assert info.value.offset == duplicate.index('"a": 3')
    for bad in ("[" * 200 + "NaN" + "]" * 200, "[" * 200 + "1,]" + "]" * 199, "[" * 200 + '"\\ud800"' + "]" * 200):
        with pytest.raises(WireDecodeError):
            at_depth(headroom() - spare, lambda bad=bad: loads(bad))


@pytest.mark.parametrize(
    "inner",
    ["{bad: 1}", '{"bad" 1}', '{"a\x01": 1}', '{"a": 1 "b": 2}', "[1 2]", "[1,]", '{"a": }', "[tru]", '["\\x"]',
     "[NaN]", "[-Infinity]", "[1.5e400]", '{"a": 1}} ', "[]]"],
)
def test_an_error_deep_in_the_stack_has_the_words_and_offset_it_has_at_the_top(inner: str) -> None:
    """Deep in the caller's stack the iterative parser takes over; it fails as the standard one does."""
    text = "[" * 200 + inner + "]" * 200
    with pytest.raises(WireDecodeError) as at_the_top:
        loads(text)
    with pytest.raises(WireDecodeError) as deep:
        at_depth(headroom() - 60, lambda: loads(text))
    assert (str(deep.value), deep.value.offset) == (str(at_the_top.value), at_the_top.value.offset)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=10,
)


@settings(max_examples=60, deadline=None)
@given(_JSON, st.sampled_from([None, 0, 2]))
def test_deep_in_the_stack_any_document_decodes_to_what_it_does_at_the_top(value, indent) -> None:
    import json

    text = "[" * 200 + json.dumps(value, indent=indent) + "]" * 200
    assert at_depth(headroom() - 60, lambda: loads(text)) == loads(text)


@pytest.mark.parametrize("number", ["1.5", "-0.25", "2e5", "1E+2", "-3e-2", "0.5e1", "10", "-0", "0.0", "12345678901234567890"])
def test_deep_in_the_stack_a_number_keeps_its_value_and_its_type(number: str) -> None:
    """A fraction or an exponent alone makes a float, neither an int: as the standard scanner decides."""
    text = "[" * 200 + number + "]" * 200
    deep, top = at_depth(headroom() - 60, lambda: loads(text)), loads(text)
    for _ in range(200):
        [deep], [top] = deep, top
    assert (deep, type(deep)) == (top, type(top))


def test_a_generous_max_depth_is_parsed_without_recursion() -> None:
    depth = 20_000
    value = loads("[" * depth + "1" + "]" * depth, max_depth=depth)
    for _ in range(depth):
        [value] = value
    assert value == 1


@pytest.mark.parametrize(
    ("text", "key", "repeat"),
    [
        ('{"a": 1, "a": 2}', "a", 9),
        ('[{"a": 1}, {"a": 2, "b": {"a": 3}, "a": 4}]', "a", 35),
        ('{"a": {"a": 1, "a": 2}, "a": 3}', "a", 15),
        ('{"s": "{\\"a\\": 1, \\"a\\": 2}", "a": 1, "a": 2}', "a", 38),
        ('{"\\u0061": 1, "a": 2}', "a", 14),
        ('{"é": 1, "\\u00e9": 2}', "é", 9),
        ('{"\\u0061": 1.5, "a": 2}', "a", 16),
    ],
)
def test_a_duplicate_is_reported_where_the_key_repeats(text: str, key: str, repeat: int) -> None:
    with pytest.raises(WireDecodeError) as info:
        loads(text)
    assert repr(key) in str(info.value)
    assert info.value.offset == len(text[:repeat].encode())
    assert text[repeat] == '"'


_KEYS = st.sampled_from(["a", "b", "é", "x y"])
_LEAF = st.one_of(st.integers(), st.text("ab\"\\{}[]:,", max_size=4))
_DOC = st.recursive(
    _LEAF,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.lists(st.tuples(_KEYS, inner), max_size=3)),
    max_leaves=12,
)


def _render(value) -> str:
    import json

    if isinstance(value, list) and value and all(isinstance(item, tuple) for item in value):
        return "{" + ", ".join(json.dumps(k) + ": " + _render(v) for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_render(item) for item in value) + "]"
    return json.dumps(value)


@settings(max_examples=300, deadline=None)
@given(_DOC)
def test_the_reported_offset_is_always_a_repeated_key_of_one_object(doc) -> None:
    text = _render(doc)
    try:
        loads(text)
    except WireDecodeError as exc:
        if "duplicate key" not in str(exc):
            raise
        # The offset is the start of a key that an earlier key of the same object repeats.
        pos = len(text.encode()[: exc.offset].decode())
        assert text[pos] == '"'
        import json

        decoder = json.JSONDecoder()
        key, _ = decoder.raw_decode(text, pos)
        assert repr(key) in str(exc)


@pytest.mark.parametrize("spare", [15, 60])
def test_where_an_error_is_found_is_told_deep_in_the_stack_too(spare: int) -> None:
    """Finding the offset of a bad literal or an overlong integer compiles nothing at error time."""
    digits = sys.get_int_max_str_digits() + 1
    cases = {
        '["NaN", NaN]': len('["NaN", '),
        '["9", -' + "9" * digits + "]": len('["9", '),
    }
    for text, offset in cases.items():
        with pytest.raises(WireDecodeError) as info:
            at_depth(headroom() - spare, lambda text=text: loads(text))
        assert info.value.offset == offset, text


#: A decoder used first deep in the caller's stack, in a fresh interpreter: ``argv`` is the text (as JSON),
#: ``str`` or ``bytes``, and the frames to leave spare. It prints the value or the error, as JSON.
FIRST_DECODE_DEEP = """
import json, sys
from agentkit.host.wire import WireDecodeError, loads

def at_depth(frames, call):
    return call() if frames <= 0 else at_depth(frames - 1, call)

def headroom():
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    return sys.getrecursionlimit() - depth

text, kind, spare = json.loads(sys.argv[1]), sys.argv[2], int(sys.argv[3])
data = text if kind == "str" else text.encode("utf-8", "surrogatepass")
try:
    print(json.dumps(["value", at_depth(headroom() - spare, lambda: loads(data))]))
except WireDecodeError as exc:
    print(json.dumps(["error", str(exc), exc.offset]))
"""

#: Texts each needing something the decoder makes only when a text first does (a pattern, or the module
#: that locates a duplicate, or the one that parses without recursing), with the string type it comes as.
FIRST_NEEDS = {
    "nested past the scanner's reach": (nested(250), "bytes"),
    "a duplicate key": ('{"a": 1, "b": [2], "a": 3}', "bytes"),
    "a duplicate key spelled two ways": ('{"\\u0061": 1, "a": 2}', "str"),
    "a NaN after a string holding one": ('["NaN", NaN]', "bytes"),
    "an integer of too many digits": ('["9", ' + "9" * (sys.get_int_max_str_digits() + 1) + "]", "bytes"),
    "nesting too deep": ("[" * 300 + "]" * 300, "bytes"),
    "many brackets, none too deep": ("[" + ",".join(["[1]"] * 300) + "]", "bytes"),
    "an escaped surrogate pair": ('["\\ud83d\\ude00"]', "bytes"),
    "an escaped lone surrogate": ('["\\ud800"]', "bytes"),
    "a str of other characters": ('["caf\u00e9"]', "str"),
    "a str holding a lone surrogate": ('["a\ud800"]', "str"),
}


@pytest.mark.parametrize("case", list(FIRST_NEEDS))
def test_what_a_text_first_needs_is_made_without_a_recursion_error_deep_in_the_callers_stack(case: str) -> None:
    """A fresh interpreter, so that nothing the text needs was made before (here other tests made it all)."""
    text, kind = FIRST_NEEDS[case]
    data = text if kind == "str" else text.encode("utf-8", "surrogatepass")
    try:
        expected = ["value", loads(data)]
    except WireDecodeError as exc:
        expected = ["error", str(exc), exc.offset]
    # Ten frames spare, fewer than the fifteen promised: with ten, each of these overflows where it is made.
    out = subprocess.run([sys.executable, "-c", FIRST_DECODE_DEEP, json.dumps(text), kind, "10"],
                         capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout) == expected


def _outcomes_in_a_fresh_interpreter(code: str, texts: list[str]) -> list[list]:
    out = subprocess.run([sys.executable, "-c", code, *map(json.dumps, texts)],
                         capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


def _outcome(text: str) -> list:
    try:
        return ["value", loads(text)]
    except WireDecodeError as exc:
        return ["error", str(exc), exc.offset]


#: A process that can start no thread (out of them, or where threads are not allowed).
WITHOUT_THREADS = """
import _thread, json, sys

def refuse(*args):
    raise RuntimeError("can't start new thread")

_thread.start_new_thread = refuse
from agentkit.host.wire import WireDecodeError, loads
outcomes = []
for text in map(json.loads, sys.argv[1:]):
    try:
        outcomes.append(["value", loads(text)])
    except WireDecodeError as exc:
        outcomes.append(["error", str(exc), exc.offset])
print(json.dumps(outcomes))
"""


def test_a_process_that_can_start_no_thread_decodes_and_refuses_as_any_other() -> None:
    texts = [text for text, _ in FIRST_NEEDS.values()]
    assert _outcomes_in_a_fresh_interpreter(WITHOUT_THREADS, texts) == [_outcome(text) for text in texts]


#: Texts first met while the interpreter shuts down (in a finalizer), where a new thread would never run.
AT_SHUTDOWN = """
import json, os, sys
from agentkit.host.wire import WireDecodeError, loads

class Finalizer:
    # What the finalizer uses is held here: by the time it runs, the module's globals may be gone.
    def __init__(self):
        self.texts, self.loads, self.error, self.dumps, self.write = (
            list(map(json.loads, sys.argv[1:])), loads, WireDecodeError, json.dumps, os.write)

    def __del__(self):
        outcomes = []
        for text in self.texts:
            try:
                outcomes.append(["value", self.loads(text)])
            except self.error as exc:
                outcomes.append(["error", str(exc), exc.offset])
        self.write(1, self.dumps(outcomes).encode())

kept_to_the_end = Finalizer()
"""


def test_a_duplicate_key_first_met_while_the_interpreter_shuts_down_is_still_refused_with_a_wire_error() -> None:
    """Locating a duplicate needs a module of the decoder's, which can no longer be imported then: the text
    is refused with the decoder's own error, saying why, rather than with ImportError."""
    [(kind, message, offset)] = _outcomes_in_a_fresh_interpreter(AT_SHUTDOWN, ['{"a": 1, "b": [2], "a": 3}'])
    assert (kind, offset) == ("error", None)
    assert "'locate_duplicate'" in message and "interpreter shuts down" in message


def test_a_module_of_the_decoders_missing_from_the_install_is_an_import_error_not_a_verdict_on_the_text() -> None:
    code = ("import sys; sys.modules['agentkit.host.wire._duplicates'] = None\n"
            "from agentkit.host.wire import loads\n"
            "loads(b'{\"a\": 1, \"a\": 2}')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         stdin=subprocess.DEVNULL)
    assert out.returncode == 1
    assert out.stderr.rstrip().splitlines()[-1].startswith("ModuleNotFoundError: import of agentkit.host.wire._duplicates")


def test_a_text_first_met_while_the_interpreter_shuts_down_is_decoded_not_waited_on_forever() -> None:
    """Its patterns are compiled where it is met. (A module can no longer be imported then: Python has
    dropped its import system.)"""
    texts = ['["NaN", NaN]', '["caf\u00e9"]', '["\\ud83d\\ude00"]', "[" * 300 + "]" * 300]
    assert _outcomes_in_a_fresh_interpreter(AT_SHUTDOWN, texts) == [_outcome(text) for text in texts]
