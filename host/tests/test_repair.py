"""Send-time transcript repair: the view the wire gets is valid, and the history is never changed.

Damaged transcripts are generated (failed and aborted responses with and
without tool calls, missing, duplicated, orphaned and late results, thinking
from other models, long and odd tool-call ids, images) and every repaired
view must be *valid* for each installed wire, as defined in
:func:`assert_valid`, and must encode with that wire's codec.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest
from host_helpers import make_agent
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentkit.host import PluginHost
from agentkit.host._repair import (
    IMAGE_OMITTED,
    MISSING_RESULT,
    id_matches,
    repair,
    rewrite_tool_call_id,
    tool_call_id_rule,
)
from agentkit.plugin_api import (
    AssistantMessage,
    BlockEnd,
    ImageBlock,
    Message,
    ModelInfo,
    ProviderRequest,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolResultMessage,
    ToolSpec,
    ToolUseBlock,
    UserMessage,
)

HOST = PluginHost.discover()
TOOLS = [ToolSpec("read", "Read a file.", {"type": "object", "properties": {"path": {"type": "string"}}})]
FOREIGN = ("othervendor", "other-wire", "other-model")


def targets() -> list[ModelInfo]:
    """One row per installed wire (its default row), plus a row without image input."""
    rows: dict[str, ModelInfo] = {}
    for row in HOST.models.values():
        if row.api not in rows or (row.default and not rows[row.api].default):
            rows[row.api] = row
    chosen = list(rows.values())
    chosen += [row for row in HOST.models.values() if not row.image_input][:1]
    return chosen


TARGETS = targets()


def _target_id(row: ModelInfo) -> str:
    return row.key


# -- what "valid" means --------------------------------------------------------------


def assert_valid(view: list[Message], target: ModelInfo, rule: tuple[str, int]) -> None:
    """A transcript every wire accepts, for ``target``:

    * it starts with a user message (the histories here all do);
    * no assistant message ended in ``error`` or ``aborted``, and none is empty;
    * the tool calls of one assistant message have distinct ids, each matching
      the wire's rule (alphabet and length);
    * an assistant message with calls is followed immediately by exactly one
      result per call and nothing else before the next user or assistant
      message: each call answered exactly once, in the next results;
    * no tool result anywhere else (no orphans);
    * no thinking block without a signature; no thinking block at all from
      another model (it became text), so no foreign signature is sent;
    * no image when the target takes no image input.
    """
    assert view and isinstance(view[0], UserMessage)
    index = 0
    while index < len(view):
        message = view[index]
        if isinstance(message, ToolResultMessage):
            raise AssertionError(f"orphan tool result {message.tool_use_id!r} at {index}")
        if isinstance(message, AssistantMessage):
            assert message.stop_reason not in (StopReason.ERROR, StopReason.ABORTED)
            assert message.content, "empty assistant message"
            same = (message.provider, message.api, message.model) == (target.vendor, target.api, target.id)
            for block in message.content:
                if isinstance(block, ThinkingBlock):
                    assert same, "thinking from another model was sent as thinking"
                    assert block.signature, "unsigned thinking was sent as thinking"
            ids = [call.id for call in message.tool_calls]
            assert len(ids) == len(set(ids)), f"duplicate call ids {ids}"
            for call_id in ids:
                assert id_matches(call_id, rule), f"id {call_id!r} breaks the wire rule {rule}"
            answered: list[str] = []
            while index + 1 < len(view) and isinstance(view[index + 1], ToolResultMessage):
                index += 1
                answered.append(view[index].tool_use_id)
            assert sorted(answered) == sorted(ids), f"calls {ids} answered by {answered}"
        if not target.image_input:
            blocks = message.content
            assert not any(isinstance(block, ImageBlock) for block in blocks)
        index += 1


def assert_wire_valid(api: str, body: Any, rule: tuple[str, int]) -> None:
    """The same rules, read from what the codec actually produced, for the wires we know."""
    pattern = re.compile(f"{rule[0]}{{1,{rule[1]}}}")
    if api == "anthropic-messages":
        messages = body["messages"]
        for position, message in enumerate(messages):
            uses = [b["id"] for b in message["content"] if b.get("type") == "tool_use"]
            for use in uses:
                assert pattern.fullmatch(use), use
            if message["role"] == "user":
                results = [b["tool_use_id"] for b in message["content"] if b.get("type") == "tool_result"]
                previous = messages[position - 1] if position else {"content": []}
                made = [b["id"] for b in previous["content"] if b.get("type") == "tool_use"]
                assert sorted(results) == sorted(made), (results, made)
            elif uses:
                following = messages[position + 1]
                assert following["role"] == "user"
    elif api == "openai-completions":
        messages = body["messages"]
        for position, message in enumerate(messages):
            if message["role"] == "assistant" and message.get("tool_calls"):
                ids = [call["id"] for call in message["tool_calls"]]
                for call_id in ids:
                    assert pattern.fullmatch(call_id), call_id
                answered = []
                for following in messages[position + 1 :]:
                    if following["role"] != "tool":
                        break
                    answered.append(following["tool_call_id"])
                assert sorted(answered) == sorted(ids)
            if message["role"] == "tool":
                assert messages[position - 1]["role"] in ("tool", "assistant")


def encode(target: ModelInfo, view: list[Message]) -> Any:
    provider = HOST.providers[target.api]
    wire = provider.encode(ProviderRequest(model=target, messages=view, system="Be brief.", tools=TOOLS, max_tokens=1000))
    body = wire.body
    return json.loads(body) if isinstance(body, (bytes, bytearray)) else body


# -- generated damaged transcripts ---------------------------------------------------

VALID_ID = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-", min_size=1, max_size=40)
ODD_ID = st.one_of(
    VALID_ID,
    st.text(min_size=1, max_size=90),  # anything: dots, colons, pipes, unicode
    st.builds(lambda n: "toolu_" + "x" * n, st.integers(30, 120)),
    st.sampled_from(["call|fc_1", "functions.read:0", "a.b", "a:b", "réf", "0"]),
)
IMAGE = ImageBlock("iVBORw0KGgo=", "image/png")


@st.composite
def thinking_blocks(draw: Any) -> ThinkingBlock:
    text = draw(st.sampled_from(["", "  ", "Let me think.", "Weighing both options."]))
    kind = draw(st.sampled_from(["signed", "unsigned", "empty-signature", "redacted"]))
    if kind == "signed":
        return ThinkingBlock(text or "thought", "sig-abc")
    if kind == "unsigned":
        return ThinkingBlock(text, None)
    if kind == "empty-signature":
        return ThinkingBlock(text, "")
    return ThinkingBlock("", "opaque-data", redacted=True)


@st.composite
def exchanges(draw: Any, target: ModelInfo, rule: tuple[str, int]) -> list[Message]:
    """An assistant message and what followed it: results (some missing, doubled, late, orphaned)."""
    same = draw(st.booleans())
    vendor, api, model = (target.vendor, target.api, target.id) if same else FOREIGN
    stop = draw(st.sampled_from(list(StopReason)))
    ids_strategy = st.from_regex(f"{rule[0]}{{1,{rule[1]}}}", fullmatch=True) if same else ODD_ID
    ids = draw(st.lists(ids_strategy, max_size=3, unique=True))
    content: list[Any] = draw(st.lists(thinking_blocks(), max_size=2))
    if draw(st.booleans()):
        content.append(TextBlock(draw(st.sampled_from(["Let me look.", "Done."]))))
    content += [ToolUseBlock(call_id, "read", '{"path": "a.py"}') for call_id in ids]
    out: list[Message] = [
        AssistantMessage(content, stop, provider=vendor, api=api, model=model,
                         error_message="boom" if stop in (StopReason.ERROR, StopReason.ABORTED) else None)
    ]
    late: list[Message] = []
    for call_id in ids:
        fate = draw(st.sampled_from(["answer", "answer", "missing", "twice", "late"]))
        with_image = draw(st.booleans())
        result = ToolResultMessage(call_id, "read", [TextBlock("contents")] + ([IMAGE] if with_image else []))
        if fate == "answer":
            out.append(result)
        elif fate == "twice":
            out += [result, ToolResultMessage(call_id, "read", [TextBlock("again")])]
        elif fate == "late":
            late.append(result)
    results = out[1:]
    out = out[:1] + draw(st.permutations(results))
    if draw(st.booleans()):
        out.append(ToolResultMessage(draw(ODD_ID), "read", [TextBlock("from nowhere")]))
    if late:
        out.append(UserMessage.text("and then?"))
        out += late
    return out


@st.composite
def histories(draw: Any, target: ModelInfo, rule: tuple[str, int]) -> list[Message]:
    history: list[Message] = [UserMessage([TextBlock("look at this"), IMAGE])]
    for _ in range(draw(st.integers(1, 4))):
        history += draw(exchanges(target, rule))
        if draw(st.booleans()):
            history.append(UserMessage.text("go on"))
    return history


@pytest.mark.parametrize("target", TARGETS, ids=_target_id)
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_repaired_transcript_is_valid_for_the_wire_and_encodes(target: ModelInfo, data: Any) -> None:
    provider = HOST.providers[target.api]
    rule = tool_call_id_rule(provider)
    history = data.draw(histories(target, rule))
    before = copy.deepcopy([message.to_dict() for message in history])

    view = repair(history, target=target, provider=provider)

    assert [message.to_dict() for message in history] == before, "repair changed the history"
    assert_valid(view, target, rule)
    assert_wire_valid(target.api, encode(target, view), rule)
    # Same-model ids are the model's own: never rewritten.
    own = {call.id for message in history if isinstance(message, AssistantMessage)
           and message.model == target.id and message.api == target.api for call in message.tool_calls}
    sent_own = {call.id for message in view if isinstance(message, AssistantMessage)
                and message.model == target.id and message.api == target.api for call in message.tool_calls}
    assert sent_own <= own
    # Repair is deterministic: the same history gives the same view (the prompt cache stays warm).
    assert [m.to_dict() for m in repair(history, target=target, provider=provider)] == [m.to_dict() for m in view]


# -- each rule, on a small example ---------------------------------------------------

ANTHROPIC = HOST.models["anthropic/claude-opus-5-5"]
OPENAI = HOST.models["openai/gpt-4.1"]


def same(*content: Any, stop: StopReason = StopReason.TOOL_USE, target: ModelInfo = ANTHROPIC) -> AssistantMessage:
    return AssistantMessage(list(content), stop, provider=target.vendor, api=target.api, model=target.id)


def foreign(*content: Any, stop: StopReason = StopReason.TOOL_USE) -> AssistantMessage:
    vendor, api, model = FOREIGN
    return AssistantMessage(list(content), stop, provider=vendor, api=api, model=model)


def result(call_id: str, text: str = "ok") -> ToolResultMessage:
    return ToolResultMessage(call_id, "read", [TextBlock(text)])


def fix(history: list[Message], target: ModelInfo = ANTHROPIC) -> list[Message]:
    return repair(history, target=target, provider=HOST.providers[target.api])


def test_an_aborted_batch_loses_its_calls_and_their_results() -> None:
    """Ctrl-C during a batch, then resume: the aborted response and its answers are not sent."""
    history = [
        UserMessage.text("fix it"),
        same(TextBlock("reading"), ToolUseBlock("toolu_1", "read", "{}"), ToolUseBlock("toolu_2", "read", "{}"),
             stop=StopReason.ABORTED),
        result("toolu_1", "aborted"),
        UserMessage.text("continue"),
    ]
    view = fix(history)
    assert [type(message).__name__ for message in view] == ["UserMessage", "UserMessage"]
    assert len(history) == 4


def test_an_error_response_without_calls_is_dropped() -> None:
    history = [UserMessage.text("hi"), same(TextBlock("partial"), stop=StopReason.ERROR), UserMessage.text("again")]
    assert [m.role for m in fix(history)] == ["user", "user"]


def test_unanswered_calls_get_a_synthetic_error_result_at_each_boundary_and_at_the_end() -> None:
    history = [
        UserMessage.text("go"),
        same(ToolUseBlock("toolu_a", "read", "{}"), ToolUseBlock("toolu_b", "read", "{}")),
        result("toolu_b"),
        UserMessage.text("and?"),
        same(ToolUseBlock("toolu_c", "read", "{}")),
    ]
    view = fix(history)
    assert [(m.role, getattr(m, "tool_use_id", None)) for m in view] == [
        ("user", None), ("assistant", None), ("tool_result", "toolu_a"), ("tool_result", "toolu_b"),
        ("user", None), ("assistant", None), ("tool_result", "toolu_c"),
    ]
    synthetic = [m for m in view if isinstance(m, ToolResultMessage) and m.tool_use_id != "toolu_b"]
    assert all(m.is_error and m.text == MISSING_RESULT and m.tool_name == "read" for m in synthetic)
    # Stamped with the time of the call, so that the same history gives the same bytes on every turn.
    assert [m.timestamp for m in synthetic] == [history[1].timestamp, history[4].timestamp]


def test_orphan_and_duplicate_results_are_dropped() -> None:
    history = [
        UserMessage.text("go"),
        same(ToolUseBlock("toolu_a", "read", "{}")),
        result("toolu_a", "first"),
        result("toolu_a", "second"),
        result("toolu_zzz"),
    ]
    view = fix(history)
    assert [m.text for m in view if isinstance(m, ToolResultMessage)] == ["first"]


def test_thinking_from_another_model_becomes_text_and_redacted_thinking_goes() -> None:
    history = [
        UserMessage.text("go"),
        foreign(ThinkingBlock("I should read it.", "their-signature"), ThinkingBlock("", "blob", redacted=True),
                TextBlock("Reading."), stop=StopReason.STOP),
    ]
    (_, message) = fix(history)
    assert [block.to_dict() for block in message.content] == [
        {"type": "text", "text": "I should read it."}, {"type": "text", "text": "Reading."},
    ]


def test_own_signed_thinking_is_kept_and_unsigned_thinking_becomes_text_or_goes() -> None:
    signed = ThinkingBlock("mine", "my-signature")
    history = [
        UserMessage.text("go"),
        same(signed, ThinkingBlock("no signature", None), ThinkingBlock("", ""), ThinkingBlock("empty sig", ""),
             TextBlock("ok"), stop=StopReason.STOP),
    ]
    (_, message) = fix(history)
    assert message.content[0] is signed
    assert [block.to_dict() for block in message.content[1:]] == [
        {"type": "text", "text": "no signature"}, {"type": "text", "text": "empty sig"}, {"type": "text", "text": "ok"},
    ]


def test_foreign_ids_are_rewritten_in_call_and_result_alike_and_deterministically() -> None:
    long_id = "call_" + "x" * 60 + "|fc_0123"
    history = [UserMessage.text("go"), foreign(ToolUseBlock(long_id, "read", "{}")), result(long_id)]
    first = fix(history, OPENAI)
    call = first[1].tool_calls[0]
    assert call.id != long_id and len(call.id) <= 40 and re.fullmatch("[A-Za-z0-9_-]+", call.id)
    assert first[2].tool_use_id == call.id
    assert fix(history, OPENAI)[1].tool_calls[0].id == call.id
    # Two ids that differ only in characters the wire refuses stay two ids.
    twins = [UserMessage.text("go"), foreign(ToolUseBlock("a.b", "read", "{}"), ToolUseBlock("a:b", "read", "{}"))]
    ids = [c.id for c in fix(twins)[1].tool_calls]
    assert len(set(ids)) == 2


def test_ids_of_the_same_model_are_never_rewritten() -> None:
    """Even when they would break the default rule, the model's own ids are its wire's ids."""
    odd = "call.with.dots:" + "9" * 70
    history = [UserMessage.text("go"), same(ToolUseBlock(odd, "read", "{}"), target=OPENAI), result(odd)]
    view = fix(history, OPENAI)
    assert view[1] is history[1] and view[2] is history[2]


def test_images_become_a_note_for_a_model_without_image_input() -> None:
    blind = next(row for row in HOST.models.values() if not row.image_input)
    history = [
        UserMessage([TextBlock("what is this?"), IMAGE]),
        same(ToolUseBlock("call_1", "read", "{}"), target=blind),
        ToolResultMessage("call_1", "read", [TextBlock("a chart"), IMAGE]),
    ]
    view = fix(history, blind)
    note = {"type": "text", "text": IMAGE_OMITTED}
    assert [block.to_dict() for block in view[0].content] == [{"type": "text", "text": "what is this?"}, note]
    assert [block.to_dict() for block in view[2].content] == [{"type": "text", "text": "a chart"}, note]
    assert isinstance(history[0].content[1], ImageBlock)
    seeing = fix(history, ANTHROPIC)  # a model that sees images gets them, in the same messages
    assert seeing[0] is history[0] and seeing[2] is history[2]


def test_a_clean_transcript_is_passed_through_as_the_same_objects() -> None:
    history = [UserMessage.text("go"), same(ToolUseBlock("toolu_1", "read", "{}")), result("toolu_1"),
               same(TextBlock("done"), stop=StopReason.STOP)]
    view = fix(history)
    assert all(new is old for new, old in zip(view, history, strict=True))


def test_a_provider_declares_its_own_id_rule() -> None:
    class Strict:
        api = "strict-wire"
        tool_call_id_rule = ("[a-z0-9]", 9)

    history = [UserMessage.text("go"), foreign(ToolUseBlock("toolu_ABCDEFGHIJKLMNOP", "read", "{}")),
               result("toolu_ABCDEFGHIJKLMNOP")]
    view = repair(history, target=ANTHROPIC, provider=Strict())
    new_id = view[1].tool_calls[0].id
    assert re.fullmatch("[a-z0-9]{1,9}", new_id) and view[2].tool_use_id == new_id


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        # Readable: the allowed characters kept (others become "_"), then "_" and a digest.
        (("[a-zA-Z0-9_-]", 64), r"functions_read_0_[0-9a-f]{12}"),
        (("[a-zA-Z0-9_-]", 20), r"functio_[0-9a-f]{12}"),
        # No room for a prefix: the digest alone, cut to the length.
        (("[a-z0-9_]", 9), r"[0-9a-f]{9}"),
    ],
)
def test_a_rewritten_id_keeps_what_the_wire_allows_and_ends_in_a_digest(rule: tuple[str, int], expected: str) -> None:
    assert re.fullmatch(expected, rewrite_tool_call_id("functions.read:0", rule))


def test_an_id_rule_without_hex_digits_is_refused_naming_the_fix() -> None:
    with pytest.raises(ValueError, match="must allow hex digits; fix the provider's tool_call_id_rule"):
        rewrite_tool_call_id("a.b", ("[g-z]", 20))


# -- through the agent ---------------------------------------------------------------


def test_resume_after_an_aborted_response_sends_neither_its_calls_nor_the_aborted_turn(tmp_path: Any) -> None:
    """The response is cut (Ctrl-C) after a tool call arrived; the next run's request has no trace of it."""
    agent, script = make_agent(
        [{"content": [{"type": "tool_use", "name": "read", "arguments": {"path": "a"}}], "hang": True},
         {"content": [{"type": "text", "text": "fresh start"}]}],
        root=tmp_path, tools=[],
    )

    def cut_after_the_call(event: Any) -> None:
        if isinstance(event, BlockEnd) and isinstance(event.block, ToolUseBlock):
            agent.abort()

    unsubscribe = agent.subscribe(cut_after_the_call)
    first = agent.run_sync("read a")
    unsubscribe()
    assert first.outcome == "aborted"
    assert any(isinstance(m, AssistantMessage) and m.tool_calls for m in agent.history)

    second = agent.run_sync("never mind, say hi")
    assert second.outcome == "completed"
    sent = script.requests[1].messages
    assert [m.role for m in sent] == ["user", "user"]
    assert [m.content[0].text for m in sent] == ["read a", "never mind, say hi"]


@pytest.mark.parametrize("target", TARGETS[:2], ids=_target_id)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_repairing_a_growing_transcript_turn_by_turn_gives_the_same_view(target: ModelInfo, data: Any) -> None:
    """The incremental repair the agent keeps equals a fresh repair at every step, even after an edit."""
    from agentkit.host._repair import TranscriptRepair

    provider = HOST.providers[target.api]
    history = data.draw(histories(target, tool_call_id_rule(provider)))
    cuts = sorted(data.draw(st.lists(st.integers(1, len(history)), min_size=1, max_size=6)))
    incremental = TranscriptRepair(target, provider)
    for cut in [*cuts, len(history)]:
        prefix = history[:cut]
        assert [m.to_dict() for m in incremental(prefix)] == [m.to_dict() for m in repair(prefix, target=target,
                                                                                          provider=provider)]
    # An embedder rewrites a message in the middle: the view follows the new history.
    position = data.draw(st.integers(0, len(history) - 1))
    edited = [*history[:position], UserMessage.text("edited"), *history[position + 1 :]]
    assert [m.to_dict() for m in incremental(edited)] == [m.to_dict() for m in repair(edited, target=target,
                                                                                     provider=provider)]


def test_a_long_session_repairs_only_its_new_messages() -> None:
    """Counted, not timed: at depth, a turn hands the codec the same repaired objects as the turn before."""
    from agentkit.host._repair import TranscriptRepair

    history: list[Message] = [UserMessage.text("go")]
    incremental = TranscriptRepair(ANTHROPIC, HOST.providers[ANTHROPIC.api])
    previous: list[Message] = []
    for turn in range(50):
        history.append(foreign(ToolUseBlock(f"functions.read:{turn}", "read", "{}")))
        history.append(result(f"functions.read:{turn}"))
        view = incremental(history)
        # Everything but the newest exchange is the very same objects as last turn.
        if turn:
            assert all(new is old for new, old in zip(view[:-2], previous, strict=True))
        previous = view


def test_ids_holding_lone_surrogates_are_rewritten_apart() -> None:
    rule = ("[a-zA-Z0-9_-]", 64)
    first, second = rewrite_tool_call_id("id\ud800", rule), rewrite_tool_call_id("id\udc00", rule)
    assert first != second and id_matches(first, rule) and id_matches(second, rule)


def test_foreign_calls_keep_their_name_and_stay_the_same_objects_when_their_ids_fit() -> None:
    fitting = [UserMessage.text("go"), foreign(ToolUseBlock("toolu_1", "read", "{}"), stop=StopReason.TOOL_USE),
               result("toolu_1")]
    assert fix(fitting)[1] is fitting[1]
    odd = [UserMessage.text("go"), foreign(ToolUseBlock("call|fc.1", "read", "{}")), result("call|fc.1")]
    assert [call.name for call in fix(odd)[1].tool_calls] == ["read"]


def test_an_image_in_an_assistant_message_becomes_a_note_only_for_a_model_without_image_input() -> None:
    blind = next(row for row in HOST.models.values() if not row.image_input)
    history = [UserMessage.text("draw"), foreign(TextBlock("here"), IMAGE, stop=StopReason.STOP)]
    assert [block.to_dict() for block in fix(history, blind)[1].content] == [
        {"type": "text", "text": "here"}, {"type": "text", "text": IMAGE_OMITTED}]
    assert fix(history, ANTHROPIC)[1] is history[1]
