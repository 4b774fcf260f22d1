"""The codec kit every wire codec encodes with (``agentkit.plugin_api.codec``)."""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import sys
import threading
from collections.abc import Sequence
from types import MappingProxyType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentkit.plugin_api import (
    DEFAULT_TOOL_CALL_ID_RULE,
    Credential,
    Message,
    ModelInfo,
    TextBlock,
    UserMessage,
    provider_member,
)
from agentkit.plugin_api.codec import (
    CodecProvider,
    IdentityCache,
    Transcript,
    TranscriptEncoder,
    array,
    chunks,
    count,
    dumps,
    error_text,
    model_rows,
)


def user(text: str) -> UserMessage:
    return UserMessage([TextBlock(text)], timestamp=0.0)


# -- dumps -------------------------------------------------------------------


def test_dumps_is_compact_utf8_and_keeps_key_order():
    assert dumps({"b": "café ✓", "a": [1, 2.5, None, True]}) == '{"b":"café ✓","a":[1,2.5,null,true]}'.encode()


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, {"t": [math.nan]}])
def test_dumps_refuses_what_is_not_json(value):
    with pytest.raises(ValueError):
        dumps(value)


_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    | st.dictionaries(st.text(max_size=5), inner, max_size=3).map(MappingProxyType),
    max_leaves=20,
)


def _reference(value: object) -> bytes:
    """``dumps`` as the standard library's own one-shot encoder writes it."""
    return json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False,
                            default=lambda v: dict(v) if isinstance(v, MappingProxyType) else None).encode(value).encode()


@settings(max_examples=150, deadline=None)
@given(_JSONISH)
def test_dumps_writes_and_refuses_exactly_what_the_standard_encoder_does(value):
    try:
        expected: bytes | type[BaseException] = _reference(value)
    except (ValueError, TypeError) as exc:
        expected = type(exc)
    if isinstance(expected, bytes):
        assert dumps(value) == expected
    else:
        with pytest.raises(expected):
            dumps(value)


def test_dumps_and_a_tool_result_refuse_a_cycle_as_the_standard_encoder_does():
    from agentkit.plugin_api import ToolResult

    cycle: list[object] = [1]
    cycle.append({"again": cycle})
    with pytest.raises(ValueError, match="Circular reference detected"):
        dumps(cycle)
    with pytest.raises(ValueError, match="Circular reference detected"):
        ToolResult.success(cycle).to_text()
    assert dumps([1, {"a": "é"}]) == '[1,{"a":"é"}]'.encode()  # the encoder is whole after a failure
    assert ToolResult.success({"n": 1.5}).to_text() == '{"ok": true, "data": {"n": 1.5}}'


def test_dumps_writes_read_only_mappings_as_objects_and_refuses_other_types():
    schema = MappingProxyType({"type": "object", "properties": MappingProxyType({"a": {"type": "string"}})})
    assert json.loads(dumps({"schema": schema})) == {"schema": {"type": "object", "properties": {"a": {"type": "string"}}}}
    with pytest.raises(TypeError, match="set is not JSON serializable"):
        dumps({"x": {1, 2}})


def test_dumps_refuses_a_lone_surrogate():
    with pytest.raises(ValueError):
        dumps("\ud800")


# -- IdentityCache -----------------------------------------------------------


def test_identity_cache_hits_by_identity_not_equality():
    cache: IdentityCache[str] = IdentityCache(8)
    first, equal = user("same"), user("same")
    assert first == equal
    assert cache.get(first, lambda: "built for first") == "built for first"
    assert cache.get(first, lambda: "rebuilt") == "built for first"
    assert cache.get(equal, lambda: "built for equal") == "built for equal"
    assert cache.peek(object()) is None


def test_identity_cache_tells_variants_apart_and_keeps_none():
    cache: IdentityCache[str | None] = IdentityCache(8)
    spec = object()
    assert cache.get(spec, lambda: "lax") == "lax"
    assert cache.get(spec, lambda: "strict", variant=True) == "strict"
    assert cache.get(spec, lambda: "again") == "lax"
    builds = []
    assert cache.get(spec, lambda: builds.append(1), variant="none") is None
    assert cache.get(spec, lambda: builds.append(1), variant="none") is None
    assert builds == [1]  # a kept None is a hit


def test_identity_cache_evicts_the_least_recently_used():
    cache: IdentityCache[int] = IdentityCache(2)
    a, b, c = object(), object(), object()
    cache.put(a, 1)
    cache.put(b, 2)
    assert cache.peek(a) == 1  # a use: b is now the oldest
    cache.put(c, 3)
    assert (cache.peek(a), cache.peek(b), cache.peek(c)) == (1, None, 3)
    assert len(cache) == 2


def test_identity_cache_keeps_what_get_builds_within_its_bound():
    cache: IdentityCache[int] = IdentityCache(2)
    a, b, c = object(), object(), object()
    assert (cache.get(a, lambda: 1), cache.get(b, lambda: 2)) == (1, 2)
    assert cache.get(a, lambda: 10) == 1  # a hit, and a use: b is now the oldest
    assert cache.get(c, lambda: 3) == 3
    assert (cache.peek(a), cache.peek(b), cache.peek(c)) == (1, None, 3)
    assert len(cache) == 2


def test_identity_cache_refuses_a_bound_below_one():
    with pytest.raises(ValueError, match="max_entries must be 1 or more"):
        IdentityCache(0)


def test_identity_cache_under_concurrent_threads_never_mixes_values_up():
    """Many threads hit, miss and evict on a small shared cache at once: every answer is the
    value built from that very object, nothing raises, and the bound holds."""
    cache: IdentityCache[tuple[int, str]] = IdentityCache(16)
    objects = [object() for _ in range(64)]
    failures: list[BaseException] = []
    start = threading.Barrier(8)
    interval = sys.getswitchinterval()

    def hammer(seed: int) -> None:
        try:
            start.wait()
            for step in range(3000):
                obj = objects[(seed * 31 + step * 7) % len(objects)]
                variant = "b" if step % 3 == 0 else "a"
                got = cache.get(obj, lambda o=obj, v=variant: (id(o), v), variant=variant)
                assert got == (id(obj), variant)
                peeked = cache.peek(obj, variant)
                assert peeked is None or peeked == (id(obj), variant)
        except BaseException as exc:
            failures.append(exc)

    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        threads = [threading.Thread(target=hammer, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert failures == []
    assert len(cache) <= 16


# -- TranscriptEncoder --------------------------------------------------------


class Recorder:
    """A wire whose state is the texts encoded so far; records what each step was given."""

    def __init__(self) -> None:
        self.steps: list[tuple[tuple[str, ...] | None, list[str]]] = []

    def extend(self, done: tuple[str, ...] | None, new: Sequence[Message]) -> tuple[str, ...]:
        texts = [message.content[0].text for message in new]
        self.steps.append((done, texts))
        return (*(done or ()), *texts)


def test_the_transcript_encoder_encodes_only_the_messages_appended():
    wire = Recorder()
    encoder = TranscriptEncoder(wire.extend)
    transcript = [user("a"), user("b")]
    assert encoder.encode(transcript) == ("a", "b")
    transcript += [user("c")]
    assert encoder.encode(transcript) == ("a", "b", "c")
    assert encoder.encode(list(transcript)) == ("a", "b", "c")  # the same transcript again: no step
    assert wire.steps == [(None, ["a", "b"]), (("a", "b"), ["c"])]


def test_the_transcript_encoder_starts_over_when_history_is_rewritten():
    wire = Recorder()
    encoder = TranscriptEncoder(wire.extend)
    first = user("a")
    encoder.encode([first, user("b"), user("c")])
    wire.steps.clear()
    # An equal message that is not the one encoded is a rewrite, and so is a shorter transcript.
    assert encoder.encode([first, user("b"), user("c"), user("d")]) == ("a", "b", "c", "d")
    assert encoder.encode([first]) == ("a",)
    assert wire.steps == [(None, ["a", "b", "c", "d"]), (None, ["a"])]


def test_the_transcript_encoder_keeps_sessions_apart():
    wire = Recorder()
    encoder = TranscriptEncoder(wire.extend, max_sessions=4)
    one, two = [user("a1")], [user("a2")]
    encoder.encode(one)
    encoder.encode(two)
    wire.steps.clear()
    one.append(user("b1"))
    assert encoder.encode(one) == ("a1", "b1")
    assert encoder.encode(two) == ("a2",)
    assert wire.steps == [(("a1",), ["b1"])]
    assert encoder.encode([]) == ()


# A history of one session as the host might send it: each request appends, or rewrites from
# some point on (compaction, a retried turn), or starts another session.
_ACTIONS = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.integers(1, 3)),
        st.tuples(st.just("rewrite"), st.integers(0, 5)),
        st.tuples(st.just("switch"), st.integers(0, 2)),
    ),
    max_size=25,
)


@settings(max_examples=60, deadline=None)
@given(_ACTIONS)
def test_the_transcript_encoder_always_agrees_with_encoding_from_scratch(actions):
    wire = Recorder()
    encoder = TranscriptEncoder(wire.extend, max_sessions=2)
    sessions: list[list[Message]] = [[user("s0")], [user("s1")], [user("s2")]]
    current = 0
    made = 0
    for action, amount in actions:
        transcript = sessions[current]
        if action == "append":
            for _ in range(amount):
                made += 1
                transcript.append(user(f"m{made}"))
        elif action == "rewrite":
            keep = min(amount, len(transcript) - 1) + 1
            made += 1
            sessions[current] = transcript = [*transcript[:keep], user(f"r{made}")]
        else:
            current = amount
            transcript = sessions[current]
        expected = tuple(message.content[0].text for message in transcript)
        assert encoder.encode(transcript) == expected


def test_the_transcript_encoder_never_changes_a_kept_state():
    """Two requests that extend one kept state differently each get their own result."""

    def extend(done: list[str] | None, new: Sequence[Message]) -> list[str]:
        return [*(done or []), *(m.content[0].text for m in new)]

    encoder = TranscriptEncoder(extend)
    base = [user("a")]
    encoder.encode(base)
    assert encoder.encode([*base, user("x")]) == ["a", "x"]
    assert encoder.encode([*base, user("y")]) == ["a", "y"]


# -- Transcript: a line's messages are checked only past the part it vouches for ----------


def texts(messages: Sequence[Message]) -> tuple[str, ...]:
    return tuple(message.content[0].text for message in messages)


def test_a_transcript_of_the_same_line_is_checked_only_past_its_stable_part():
    """Counted, not timed: the vouched-for messages are not looked at, so a turn does not walk the history."""
    wire = Recorder()
    encoder = TranscriptEncoder(wire.extend)
    line = object()
    head, rest = [user("a"), user("b"), user("c")], user("open")
    encoder.encode(Transcript([*head, rest], line=line, stable=3))
    # A producer that broke its promise (replaced "b" on the same line) shows what is not
    # compared: the stable part is taken on trust, only the kept rest ("open") is compared.
    liar = Transcript([head[0], user("B"), head[2], rest, user("d")], line=line, stable=3)
    wire.steps.clear()
    assert encoder.encode(liar) == ("a", "b", "c", "open", "d")
    assert wire.steps == [(("a", "b", "c", "open"), ["d"])]
    # The rest is compared: another one there starts over.
    wire.steps.clear()
    assert encoder.encode(Transcript([*head, user("open2")], line=line, stable=3)) == ("a", "b", "c", "open2")
    assert wire.steps == [(None, ["a", "b", "c", "open2"])]


def test_a_transcript_changed_in_place_claims_nothing_and_is_compared_message_by_message():
    wire = Recorder()
    encoder = TranscriptEncoder(wire.extend)
    line = object()
    messages = [user("a"), user("b"), user("c")]
    encoder.encode(Transcript(messages, line=line, stable=3))
    for change in (
        lambda t: t.__setitem__(1, user("B")),
        lambda t: t.__setitem__(slice(1, 2), [user("B")]),
        lambda t: (t.pop(1), t.insert(1, user("B"))),
        lambda t: (t.remove(t[1]), t.insert(1, user("B"))),
        lambda t: (t.__delitem__(1), t.insert(1, user("B"))),
        lambda t: (t.reverse(), t.reverse(), t.__setitem__(1, user("B"))),
    ):
        edited = Transcript(messages, line=line, stable=3)
        change(edited)
        assert edited.line is None and edited.stable == 0
        assert encoder.encode(edited) == ("a", "B", "c")
        assert encoder.encode(Transcript(messages, line=line, stable=3)) == ("a", "b", "c")
    grown = Transcript(messages, line=line, stable=3)
    grown += [user("d")]
    assert grown.line is None and encoder.encode(grown) == ("a", "b", "c", "d")


def test_a_transcript_of_another_line_or_further_back_on_its_line_is_compared_or_encoded_again():
    wire = Recorder()
    encoder = TranscriptEncoder(wire.extend)
    line = object()
    messages = [user("a"), user("b"), user("c")]
    encoder.encode(Transcript(messages, line=line, stable=3))
    wire.steps.clear()
    # Another line vouches for nothing the encoder kept: encoded from the start.
    assert encoder.encode(Transcript(messages, line=object(), stable=3)) == ("a", "b", "c")
    # A plain list after a line vouches for nothing either; a line after a plain list is
    # compared message by message.
    grown = [*messages, user("d")]
    assert encoder.encode(grown) == ("a", "b", "c", "d")
    assert encoder.encode(Transcript(grown, line=line, stable=1)) == ("a", "b", "c", "d")
    assert wire.steps == [(None, ["a", "b", "c"]), (None, ["a", "b", "c", "d"])]
    with pytest.raises(ValueError, match="stable must be between 0 and the 1 messages"):
        Transcript([user("a")], line=line, stable=2)


# A producer as the host is one: an append-only sequence per line, a new line when it rewrites,
# each request that sequence plus a changing rest; and consumers that change a request in place.
_LINE_ACTIONS = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.integers(1, 3)),
        st.tuples(st.just("rest"), st.integers(0, 2)),
        st.tuples(st.just("rewrite"), st.integers(0, 4)),
        st.tuples(st.just("edit"), st.integers(0, 6)),
        st.tuples(st.just("plain"), st.integers(0, 0)),
    ),
    max_size=30,
)


@settings(max_examples=80, deadline=None)
@given(_LINE_ACTIONS)
def test_transcripts_of_lines_always_encode_as_from_scratch(actions):
    wire = Recorder()
    encoder = TranscriptEncoder(wire.extend, max_sessions=2)
    first = user("s")
    sequence: list[Message] = [first]
    line = object()
    rest: list[Message] = []
    for made, (action, amount) in enumerate(actions, 1):
        if action == "append":
            sequence += [user(f"m{made}.{i}") for i in range(amount)]
        elif action == "rest":
            rest = [user(f"r{made}.{i}") for i in range(amount)]
        elif action == "rewrite":
            keep = min(amount, len(sequence) - 1) + 1
            sequence = [*sequence[:keep], user(f"w{made}")]
            line = object()
        messages: Sequence[Message] = Transcript([*sequence, *rest], line=line, stable=len(sequence))
        if action == "edit":
            position = min(amount, len(messages) - 1)
            messages[position] = user(f"e{made}")  # type: ignore[index]
        elif action == "plain":
            messages = list(messages)
        assert encoder.encode(messages) == texts(messages)


# -- small helpers ------------------------------------------------------------


def test_array_puts_commas_between_items_for_one_join():
    assert b"".join(array([b"1", b"{}", b'"x"'])) == b'[1,{},"x"]'
    assert b"".join(array([])) == b"[]"
    assert b"".join(array([b"1", b"2"], open=b"", close=b"")) == b"1,2"


@pytest.mark.parametrize(("value", "expected"), [(7, 7), (0, 0), (-3, 0), (True, 0), ("12", 0), (None, 0), (1.5, 0)])
def test_count_keeps_only_positive_integers(value, expected):
    assert count(value) == expected


def test_error_text_names_the_message_and_its_details():
    assert error_text({"message": "Slow down", "type": "rate_limit", "code": 429}) == "Slow down (rate_limit, 429)"
    assert error_text({"message": "Gone", "status": "NOT_FOUND"}, details=("status", "code")) == "Gone (NOT_FOUND)"
    assert error_text({"code": "server_error", "type": "error"}, details=("code", "type"), most=1) == (
        "the server reported an error (server_error)"
    )
    assert error_text("boom") == "boom"
    assert error_text(None) == "the server reported an error"


def test_the_kit_is_not_loaded_by_importing_the_plugin_api():
    code = "import sys, agentkit.plugin_api; print('agentkit.plugin_api.codec' in sys.modules)"
    assert subprocess.check_output([sys.executable, "-c", code], text=True).strip() == "False"


def test_a_codec_provider_serves_its_models_with_bearer_auth_and_the_protocol_defaults():
    row = ModelInfo(vendor="acme", id="m1", api="acme", base_url="http://acme.invalid", context_window=8, max_output=4)

    class Acme(CodecProvider):
        api = "acme"
        models = (row,)

    provider = Acme()
    assert provider.catalog() == (row,)
    assert provider.credential_env == ()
    assert provider.auth_headers(Credential("api_key", "k-1")) == {"Authorization": "Bearer k-1"}
    assert provider_member(provider, "tool_call_id_rule") == DEFAULT_TOOL_CALL_ID_RULE
    assert provider_member(provider, "conformance_responder") is None


def test_model_rows_name_each_value_by_its_column():
    (row,) = model_rows(("id", "context_window", "max_output"), [("m1", 8192, 1024)],
                        vendor="acme", api="acme", base_url="http://acme.invalid", image_input=True)
    assert (row.key, row.context_window, row.max_output, row.image_input) == ("acme/m1", 8192, 1024, True)
    with pytest.raises(ValueError):
        model_rows(("id", "context_window"), [("m1", 8192, 1024)], vendor="a", api="a", base_url="x")


_COLUMNS = ("id", "context_window", "max_output", "input_price", "reasoning_levels", "refused_settings",
            "aliases", "default")
_TABLE = [(f"m{i}", 8192 * (i + 1), 1024, 0.5 * i, ("low",) if i % 2 else (), frozenset({"seed"} if i % 3 else ()),
           (f"m{i}-2025",), i == 0) for i in range(20)]


def _common() -> dict:
    return {"vendor": "acme", "api": "acme", "base_url": "http://acme.invalid", "options": {"compat": "x"},
            "image_input": True}


def test_model_rows_are_the_rows_the_class_makes_from_the_same_values():
    common = _common()
    rows = model_rows(_COLUMNS, _TABLE, **common)
    made = [ModelInfo(**common, **dict(zip(_COLUMNS, row, strict=True))) for row in _TABLE]
    assert rows == tuple(made)
    for row, expected in zip(rows, made, strict=True):
        assert type(row) is ModelInfo
        assert [getattr(row, f.name) for f in dataclasses.fields(ModelInfo)] == [
            getattr(expected, f.name) for f in dataclasses.fields(ModelInfo)]
        assert repr(row) == repr(expected)
    # What __init__ makes for each row (a default factory's value) is each row's own; what the table
    # gives all rows is the object given, as __init__ keeps it.
    assert rows[0].headers == {} and rows[0].headers is not rows[1].headers
    assert all(row.options is common["options"] for row in rows)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rows[0].id = "m9"  # type: ignore[misc]


@pytest.mark.parametrize(("columns", "row", "common"), [
    (("id", "context_window", "max_output", "colour"), ("m", 1, 1, "red"), {}),
    (("id", "context_window"), ("m", 1), {}),
    (("id", "context_window", "max_output"), ("m", 1, 1), {"id": "n"}),
    (("id", "context_window", "max_output", "id"), ("m", 1, 1, "n"), {}),
    (("id", "context_window", "max_output", "headers"), ("m", 1, 1, {"x-a": "1"}), {"priced": False}),
])
def test_model_rows_of_odd_columns_end_as_the_class_makes_them(columns, row, common):
    """An unknown, missing or repeated field fails with the class's own words; anything else is its row."""
    common = {"vendor": "a", "api": "a", "base_url": "x", **common}
    try:
        expected: object = ModelInfo(**common, **dict(zip(columns, row, strict=True)))
    except TypeError as exc:
        expected = str(exc)
    try:
        got: object = model_rows(columns, [row], **common)[0]
    except TypeError as exc:
        got = str(exc)
    assert got == expected


def test_model_rows_run_no_python_code_per_field():
    """A provider's catalog is made at every start of a process that loads it: a row is one Python call,
    not a call per field through ``__init__``, which the 17th row would also compile."""
    model_rows(_COLUMNS, _TABLE, **_common())  # what is read once, at the first catalog
    calls = []

    def profile(frame, event, arg):
        if event == "call":
            calls.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        rows = model_rows(_COLUMNS, _TABLE * 5, **_common())
    finally:
        sys.setprofile(None)
    assert len(rows) == 100
    assert len(calls) <= len(rows) + 10, sorted(set(calls))


def test_chunks_cut_text_into_pieces_of_the_size():
    assert chunks("abcdefg", 3) == ["abc", "def", "g"]
    assert chunks("", 3) == []


def test_the_transcript_encoder_under_concurrent_threads_gives_each_request_its_own_transcript():
    """Threads grow their own sessions and share one, through one encoder with room for few
    sessions: every answer is what encoding that transcript from scratch gives."""
    wire = Recorder()
    encoder = TranscriptEncoder(wire.extend, max_sessions=2)
    shared = [user("shared")]
    failures: list[BaseException] = []
    start = threading.Barrier(6)

    def grow(seed: int) -> None:
        try:
            start.wait()
            own: list[Message] = [user(f"s{seed}")]
            for step in range(200):
                own.append(user(f"{seed}-{step}"))
                for transcript in (own, shared[: 1 + step % 3]):
                    expected = tuple(m.content[0].text for m in transcript)
                    assert encoder.encode(list(transcript)) == expected
        except BaseException as exc:
            failures.append(exc)

    shared += [user("a"), user("b")]
    threads = [threading.Thread(target=grow, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
