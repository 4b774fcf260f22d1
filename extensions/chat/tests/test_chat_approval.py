"""What the person approves is what runs: the authorization question shows the whole call, controls visible."""

from __future__ import annotations

import re
from typing import Any

from agentkit.plugin_api import ToolResultMessage

#: As wide as the pseudo-terminal the chat fixture starts (conftest.COLUMNS).
COLUMNS = 240

QUESTION = "[y]es once, [a]lways (this session), [n]o:"
SHOW_FIRST = "[s]how the whole call, [n]o:"
#: The innocent start, padded past 80 characters (with what a cut line ends with) so that a line cut there
#: hides the rest.
PADDED = 'ls -la src && echo "listing' + "…" * 80 + '" ; rm -rf VICTIM'
#: A second line the terminal would erase (carriage return, then erase-line) if it were written raw.
ERASED = "echo listing\ntouch PWNED #\r\x1b[2K"


def execute(command: str) -> dict[str, Any]:
    return {"content": [{"type": "tool_use", "name": "execute", "arguments": {"command": command}}]}


def text_turn(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}]}


def results(chat: Any, session_id: str) -> list[ToolResultMessage]:
    return [message for message in chat.session(session_id).messages() if isinstance(message, ToolResultMessage)]


def test_the_question_shows_the_whole_command_and_approving_runs_exactly_it(chat) -> None:
    (chat.root / "src").mkdir()
    (chat.root / "VICTIM").mkdir()
    script = chat.script([execute(PADDED), text_turn("Listed.")])
    terminal = chat.start("--model", "faux/scripted", "--script", script, "--plain")
    terminal.prompt("list src")
    asked = terminal.expect(QUESTION)
    assert "; rm -rf VICTIM" in asked.split("→ execute")[-1]  # in the question, not only in the model's turn
    terminal.answer("y")
    terminal.expect("Listed.")
    assert terminal.leave() == 0
    assert not (chat.root / "VICTIM").exists()  # what ran is what was shown
    assert [result.is_error for result in results(chat, terminal.session_id)] == [False]


def test_newlines_and_escape_sequences_in_a_call_are_shown_never_interpreted(chat) -> None:
    script = chat.script([execute(ERASED), text_turn("Done.")])
    terminal = chat.start("--model", "faux/scripted", "--script", script, "--plain")
    terminal.prompt("list")
    asked = terminal.expect(QUESTION).split("→ execute")[-1]
    assert "echo listing␊touch PWNED #␍␛[2K" in asked
    assert "\x1b[2K" not in asked and "\r\x1b" not in asked
    terminal.answer("y")
    terminal.expect("Done.")
    assert terminal.leave() == 0
    assert (chat.root / "PWNED").exists()  # approved as shown, run as shown


def test_a_call_longer_than_the_screen_is_shown_whole_before_yes_counts(chat) -> None:
    hidden = ": " + "x" * (COLUMNS * 60) + "; touch LATE"  # sixty screen lines; the terminal has fifty
    script = chat.script([execute(hidden), text_turn("Done.")])
    terminal = chat.start("--model", "faux/scripted", "--script", script, "--plain")
    terminal.prompt("go")
    first = terminal.expect(SHOW_FIRST)
    assert "; touch LATE" not in first and "not shown" in first
    terminal.answer("y")  # not shown whole: not an approval
    terminal.expect(re.compile(r"was not shown whole"))
    terminal.expect(SHOW_FIRST)
    assert not (chat.root / "LATE").exists()
    terminal.answer("s")
    whole = terminal.expect(QUESTION)
    assert "x; touch LATE" in whole.replace("\r\n", "").replace("\n", "")
    terminal.answer("y")
    terminal.expect("Done.")
    assert terminal.leave() == 0
    assert (chat.root / "LATE").exists()


def test_refusing_a_long_call_unseen_runs_nothing(chat) -> None:
    hidden = ": " + "x" * (COLUMNS * 60) + "; touch LATE"
    script = chat.script([execute(hidden), text_turn("Refused.")])
    terminal = chat.start("--model", "faux/scripted", "--script", script, "--plain")
    terminal.prompt("go")
    terminal.expect(SHOW_FIRST)
    terminal.answer("n")
    terminal.expect("Refused.")
    assert terminal.leave() == 0
    assert not (chat.root / "LATE").exists()
    assert [result.is_error for result in results(chat, terminal.session_id)] == [True]


def test_without_a_terminal_the_whole_call_is_written_before_the_answer_is_read(agentkit, tmp_path) -> None:
    import json

    (tmp_path / "VICTIM").mkdir()
    script = tmp_path / "turns.json"
    script.write_text(json.dumps([execute(PADDED), text_turn("Listed.")]))
    result = agentkit.inline("chat", "--model", "faux/scripted", "--script", str(script), "--root", str(tmp_path),
                             input="list\ny\n", env={"AGENTKIT_DATA_DIR": str(tmp_path / "data")}, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    question = result.stdout.split("[tool] execute")[-1]
    assert "; rm -rf VICTIM" in question.split(QUESTION)[0]
    assert not (tmp_path / "VICTIM").exists()
