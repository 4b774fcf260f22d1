"""What the strict JSON decoder promises about its cost, pinned by counts that cannot flake.

The decoder promises that refusing a duplicate key costs about what accepting the
document would (a few C-speed passes over the bytes, never a second, slower parse),
that its depth pre-scan runs at C speed and lets a shallow text through early, and
that a text is encoded or searched only when it has to be. Timing would flake on a
loaded machine, so these tests count instead: a profiler, active only around one
``loads`` call, records which Python frames of the decoder run (by module) and
which C functions the decoder calls (by name, with what they were called on). Most tests compare two
documents that must cost the same, or one that must cost less than another,
rather than a number of calls that any harmless change would move.
"""

from __future__ import annotations

import gc
import sys
from collections import Counter
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

import pytest

from agentkit.host.wire import WireDecodeError, loads

DECODER = "agentkit.host.wire."
ITERATIVE = "agentkit.host.wire._iterative"


@dataclass
class Cost:
    """What one ``loads`` call ran: Python frames by module, C calls by name, what was encoded."""

    python: Counter[str] = field(default_factory=Counter)
    c: Counter[str] = field(default_factory=Counter)
    encoded: list[int] = field(default_factory=list)  # lengths of the strs encoded

    @property
    def calls(self) -> int:
        return sum(self.python.values()) + sum(self.c.values())


def cost_of(data: bytes | str, **bounds: int) -> Cost:
    """Decode ``data`` (a refusal is fine) under a profiler and say what it ran."""
    cost = Cost()

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        # Only the decoder's own work: a tool that wraps its functions (a tracer, a
        # mutation tester) adds frames and C calls of its own around them.
        module = frame.f_globals.get("__name__", "?")
        if not module.startswith(DECODER):
            return
        if event == "call":
            cost.python[module] += 1
        elif event == "c_call":
            name = getattr(arg, "__name__", "?")
            cost.c[name] += 1
            if name == "encode" and isinstance(getattr(arg, "__self__", None), str):
                cost.encoded.append(len(arg.__self__))

    # Once unwatched first, so that nothing done only the first time (a cache filled, a
    # module imported) is counted; and no garbage collection while watched, so that no
    # finalizer of another test's objects runs inside the count.
    collecting = gc.isenabled()
    for watched in (False, True):
        gc.disable()
        previous = sys.getprofile()
        if watched:
            sys.setprofile(profile)
        try:
            loads(data, **bounds)
        except WireDecodeError:
            pass
        finally:
            sys.setprofile(previous)
            if collecting:
                gc.enable()
    return cost


# A duplicate key, then each way the parse can end: the whole text parsed, a syntax
# error, a refused constant, an integer of too many digits. Each duplicate is found
# in the part that parsed; the error after it is what gets the document refused.
DUPLICATE_THEN = {
    "the end": '{"a": [1, {"b": 2}], "z": "text", "a": 3}',
    "a syntax error": '[{"a": [1, {"b": 2}], "a": 3}, "text", }',
    "a refused constant": '[{"a": [1, {"b": 2}], "a": 3}, "text", NaN]',
    "a long integer": '[{"a": [1, {"b": 2}], "a": 3}, "text", ' + "7" * 5000 + "]",
}


@pytest.mark.parametrize("kind", [bytes, str])
@pytest.mark.parametrize("ending", list(DUPLICATE_THEN))
def test_refusing_a_duplicate_key_never_runs_the_slower_exact_parse(ending: str, kind: type) -> None:
    text = DUPLICATE_THEN[ending]
    data = text.encode() if kind is bytes else text
    with pytest.raises(WireDecodeError, match="duplicate key 'a' in a JSON object at byte"):
        loads(data)
    cost = cost_of(data)
    assert cost.python[ITERATIVE] == 0


@pytest.mark.parametrize("ending", list(DUPLICATE_THEN))
def test_refusing_a_duplicate_key_in_bytes_never_encodes_the_text_again(ending: str) -> None:
    data = DUPLICATE_THEN[ending].encode()
    cost = cost_of(data)
    # An offset is measured by encoding the text before it; the whole text is never encoded.
    assert all(length < len(data) for length in cost.encoded), cost.encoded


def test_a_str_within_the_bound_at_four_bytes_a_character_is_not_encoded_to_be_measured() -> None:
    text = '["' + "é" * 14 + '"]'  # 18 characters, 32 bytes
    # At four bytes a character it could be 72 bytes: only a smaller bound needs the exact size.
    assert cost_of(text, max_bytes=4 * len(text)).encoded == []
    assert cost_of(text, max_bytes=10 * len(text)).encoded == []
    assert loads(text, max_bytes=4 * len(text)) == ["é" * 14]


def test_an_ascii_str_is_checked_with_less_work_than_one_with_other_characters() -> None:
    # ASCII holds no surrogate: it is not searched for one.
    ascii_text, other_text = '["' + "e" * 40 + '"]', '["' + "é" * 40 + '"]'
    assert cost_of(ascii_text).calls < cost_of(other_text).calls


def test_a_text_as_long_as_the_depth_limit_costs_what_a_shorter_one_does() -> None:
    # Every level needs a character: a text no longer than the limit is not even counted.
    at_limit, shorter = "[1,2,34]", "[1,2,3]"
    assert len(at_limit) == 8
    assert cost_of(at_limit, max_depth=8).calls == cost_of(shorter, max_depth=8).calls


def test_a_text_with_few_brackets_is_checked_with_less_work_than_one_with_many_in_strings() -> None:
    # Counting brackets, those in strings too, is the cheapest check: a text with no
    # more than the limit is let through on the count, without looking for strings.
    few = '[[["' + "x" * 40 + '"]]]'  # three brackets, the limit
    many_in_strings = '[[["' + "[{" * 20 + '"]]]'  # three levels, forty brackets in a string
    assert cost_of(few, max_depth=3).calls < cost_of(many_in_strings, max_depth=3).calls


def test_brackets_at_the_limit_cost_what_fewer_brackets_do() -> None:
    at_limit, fewer = '[[["' + "x" * 40 + '"]]]', '[["' + "x" * 41 + '"]]'
    assert cost_of(at_limit, max_depth=3).calls == cost_of(fewer, max_depth=3).calls


def test_levels_at_the_limit_with_many_brackets_in_strings_cost_what_fewer_levels_do() -> None:
    # Once strings are set aside, a text with no more opening brackets than the limit
    # cannot be too deep: it is let through without following the levels.
    at_limit = '[[[["' + "[" * 20 + '"]]]]'
    fewer = '[[["' + "[" * 21 + '"]]]'
    assert cost_of(at_limit, max_depth=4).calls == cost_of(fewer, max_depth=4).calls


@pytest.mark.parametrize("max_depth", [2, 3])
def test_a_text_within_the_depth_limit_costs_the_same_c_calls_however_many_brackets(max_depth: int) -> None:
    # Many brackets, none deeper than the limit (or exactly at it): the levels are
    # followed at C speed, never walked token by token.
    inner = "[" * (max_depth - 1) + "1" + "]" * (max_depth - 1)
    few = "[" + ",".join([inner] * 3) + "]"
    many = "[" + ",".join([inner] * 30) + "]"
    assert loads(many, max_depth=max_depth) == loads(few, max_depth=max_depth)[:1] * 30
    assert cost_of(few, max_depth=max_depth).c == cost_of(many, max_depth=max_depth).c
