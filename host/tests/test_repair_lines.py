"""The repaired transcript an agent keeps from turn to turn: one line while the history grows.

What a codec relies on (:class:`~agentkit.plugin_api.codec.Transcript`): two
transcripts of one ``line`` begin with the same ``stable`` message objects, and
the line is replaced when a message that was sent is removed or replaced. The
calls still open at the end are answered after the stable part, in the view only.
"""

from __future__ import annotations

from test_repair import ANTHROPIC, HOST, IMAGE, result, same

from agentkit.host._repair import IMAGE_OMITTED, MISSING_RESULT, TranscriptRepair
from agentkit.plugin_api import (
    Message,
    StopReason,
    TextBlock,
    ToolResultMessage,
    ToolUseBlock,
    UserMessage,
)


def incremental() -> TranscriptRepair:
    return TranscriptRepair(ANTHROPIC, HOST.providers[ANTHROPIC.api])


def test_a_growing_history_stays_one_line_whose_stable_part_is_what_was_sent_before() -> None:
    repair = incremental()
    history: list[Message] = [UserMessage.text("go"), same(ToolUseBlock("toolu_1", "read", "{}"))]
    first = repair(history)
    # The open call is answered after the stable part, by a synthetic result stamped with its call.
    assert first.line is not None and first.stable == 2 and first[:2] == history
    [missing] = first[2:]
    assert isinstance(missing, ToolResultMessage) and missing.is_error and missing.text == MISSING_RESULT
    assert missing.timestamp == history[1].timestamp

    history.append(result("toolu_1"))
    second = repair(history)
    assert second.line is first.line and second.stable == 2
    assert [m is h for m, h in zip(second, history, strict=True)] == [True, True, True]

    history.append(UserMessage.text("next"))
    third = repair(history)
    assert third.line is first.line and third.stable == 4 == len(third)
    assert all(m is h for m, h in zip(third, history, strict=True))


def test_a_sent_message_removed_or_replaced_starts_a_new_line() -> None:
    repair = incremental()
    history: list[Message] = [UserMessage.text("go"), same(TextBlock("hi"), stop=StopReason.STOP),
                              UserMessage.text("more")]
    before = repair(history)
    history[1] = same(TextBlock("hello"), stop=StopReason.STOP)
    replaced = repair(history)
    assert replaced.line is not before.line and replaced.stable == 3
    assert replaced[1].text == "hello"
    del history[2]
    removed = repair(history)
    assert removed.line is not replaced.line and len(removed) == removed.stable == 2


def test_a_message_that_was_never_sent_goes_without_starting_a_new_line() -> None:
    repair = incremental()
    history: list[Message] = [UserMessage.text("go"), same(TextBlock("hi"), stop=StopReason.STOP),
                              result("toolu_nobody")]  # an orphan: dropped from the view
    before = repair(history)
    assert len(before) == before.stable == 2
    del history[2]
    after = repair(history)
    assert after.line is before.line and list(after) == list(before)


def test_a_history_replaced_from_its_first_message_is_repaired_from_scratch() -> None:
    repair = incremental()
    repair([UserMessage.text("old"), same(ToolUseBlock("toolu_old", "read", "{}"))])
    history: list[Message] = [UserMessage.text("new"), same(TextBlock("fresh"), stop=StopReason.STOP)]
    view = repair(history)
    assert list(view) == history and view.stable == 2


def test_a_user_image_reaches_a_model_that_sees_images_as_the_same_message() -> None:
    history: list[Message] = [UserMessage([TextBlock("what is this?"), IMAGE])]
    assert incremental()(history)[0] is history[0]
    blind = next(row for row in HOST.models.values() if not row.image_input)
    [note] = TranscriptRepair(blind, HOST.providers[blind.api])(history)
    assert [block.to_dict() for block in note.content] == [
        {"type": "text", "text": "what is this?"}, {"type": "text", "text": IMAGE_OMITTED}]
