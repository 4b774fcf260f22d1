"""The testing kit, used as a user would: a scripted run, a model that is a function, captured requests
and transcript assertions that fail with a diff."""

from __future__ import annotations

import json
from pathlib import Path

import agentkit_provider_faux
import pytest

from agentkit.host import Agent, AgentConfig, Connection
from agentkit.plugin_api import Tool
from agentkit.testing import (
    ANY,
    FunctionModel,
    Script,
    ScriptedRequest,
    Turn,
    Usage,
    assert_transcript,
    assistant,
    text,
    thinking,
    tool_call,
    tool_result,
    user,
    write_script,
)


def shout(words: str) -> str:
    """Say it louder."""
    return words.upper()


def agent(tmp_path: Path, transport: object) -> Agent:
    return Agent(AgentConfig(model="faux/scripted", root=tmp_path, tools=["shout"], extra_tools=[Tool.from_function(shout)],
                             connection=Connection(transport=transport)))


def test_the_kit_is_the_scripted_provider_itself() -> None:
    assert Script is agentkit_provider_faux.Script and Turn is agentkit_provider_faux.Turn


def test_a_scripted_run_matches_the_transcript_it_was_scripted_for(tmp_path: Path) -> None:
    script = Script([Turn([tool_call("shout", {"words": "hi"})]), Turn([text("done")], usage=Usage(input=3, output=1))])
    result = agent(tmp_path, script).run_sync("go")
    assert_transcript(result.messages, [
        user("go"),
        assistant(tool_call("shout", {"words": "hi"}), stop_reason="tool_use"),
        tool_result('{"ok": true, "data": "HI"}', name="shout", is_error=False),
        assistant("done", stop_reason="stop"),
    ])
    assert result.usage.input == 3 and result.usage.output == 1


def test_a_different_run_fails_with_a_diff_of_the_messages_that_differ(tmp_path: Path) -> None:
    script = Script([Turn([tool_call("shout", {"words": "hi"})]), Turn([text("done")])])
    result = agent(tmp_path, script).run_sync("go")
    with pytest.raises(AssertionError) as failure:
        assert_transcript(result.messages, [
            user("go"),
            assistant(tool_call("shout", {"words": "bye"})),
            tool_result(ANY),
            assistant("done"),
        ])
    lines = str(failure.value).splitlines()
    assert "- assistant(tool_call('shout', {'words': 'bye'}))" in lines
    assert "+ assistant(tool_call('shout', {'words': 'hi'}))" in lines
    assert "  user('go')" in lines and "  assistant('done')" in lines  # the same, shown once


def test_a_transcript_of_another_length_fails(tmp_path: Path) -> None:
    result = agent(tmp_path, Script([Turn([text("done")])])).run_sync("go")
    with pytest.raises(AssertionError, match=r"\+ assistant\('done'\)"):
        assert_transcript(result.messages, [user("go")])


def test_a_function_model_answers_from_the_request(tmp_path: Path) -> None:
    def model(request: ScriptedRequest) -> Turn | str:
        if request.messages[-1].role == "user":
            return Turn([tool_call("shout", {"words": "quiet"})])
        return f"the tool said {request.messages[-1].content[0].text}"  # type: ignore[union-attr]

    function = FunctionModel(model)
    result = agent(tmp_path, function).run_sync("go")
    assert result.final_message.content[0].text == 'the tool said {"ok": true, "data": "QUIET"}'  # type: ignore[union-attr]
    assert function.request_count == 2 and [len(r.messages) for r in function.requests] == [1, 3]
    assert function.requests[0].tool_names == ["shout"]


def test_every_request_is_captured(tmp_path: Path) -> None:
    script = Script([Turn([tool_call("shout", {"words": "a"})]), Turn([text("done")])], keep_requests=None)
    agent(tmp_path, script).run_sync("go")
    assert script.request_count == 2
    first, second = script.requests
    assert_transcript(first.messages, [user("go")])
    assert_transcript(second.messages, [user("go"), assistant(tool_call("shout", {"words": "a"})), tool_result(ANY)])


def test_a_script_that_runs_out_ends_the_run_with_an_error(tmp_path: Path) -> None:
    result = agent(tmp_path, Script([Turn([tool_call("shout", {"words": "a"})])])).run_sync("go")
    assert result.outcome == "error"
    assert "the script ran out: its 1 turn was played" in str(result.error)


@pytest.mark.parametrize(("turns", "message"), [
    ([{"content": [{"type": "text", "text": "a"}]}, ["hello"]], "turn 2: expected an object"),
    ([{"content": [{"type": "image"}]}], "turn 1, content[0].type: unknown block type"),
    ([{"content": [], "usage": {"output": -1}}], "turn 1, usage.output: expected a count"),
])
def test_plain_turns_that_are_malformed_name_the_turn_and_the_key(turns: list, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        Script(turns)


def test_a_written_script_plays_the_turns_it_was_given(tmp_path: Path) -> None:
    turns = [
        Turn([thinking("which?", None), tool_call("shout", {"words": "a"}, id="call_x"), tool_call("shout", "{bad")],
             stop_reason="length", raw_stop_reason="max_tokens", usage=Usage(input=3, cost=0.5), delay=0.01),
        Turn([], status=529, error="overloaded"),
        Turn([text("partial")], error="broke", hang=True),
    ]
    file = write_script(tmp_path / "turns.json", [*turns, "done"])
    assert Script(json.loads(file.read_text(encoding="utf-8"))).turns == [*turns, Turn([text("done")])]


def test_a_malformed_turn_is_refused_before_the_file_is_written(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="content"):
        write_script(tmp_path / "turns.json", [{"content": "hello"}])
    assert not (tmp_path / "turns.json").exists()
