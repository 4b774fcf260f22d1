"""Line editing in ``agentkit chat``: history across sessions, multi-line input, slash-command completion."""

from __future__ import annotations

import stat
from typing import Any

from agentkit.plugin_api import UserMessage

UP = "\x1b[A"
ALT_ENTER = "\x1b\r"


def text_turn(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}]}


def user_texts(session: Any) -> list[str]:
    return [message.content[0].text for message in session.messages() if isinstance(message, UserMessage)]


def test_history_is_kept_across_chats_in_a_file_of_the_users_own(chat) -> None:
    script = chat.script([text_turn("Noted."), text_turn("Noted again.")])
    first = chat.start("--model", "faux/scripted", "--script", script)
    first.turn("remember this line")
    assert first.leave() == 0

    second = chat.start("--model", "faux/scripted", "--script", script)
    second.ready()
    second.process.send(UP)  # the previous chat's line comes back
    second.expect("remember this line")
    second.process.send("\r")
    second.expect("Noted.")
    assert second.leave() == 0
    assert user_texts(chat.session(second.session_id)) == ["remember this line"]
    history = chat.data / "chat_history"
    assert stat.S_IMODE(history.stat().st_mode) == 0o600


def test_alt_enter_starts_a_new_line_of_the_same_prompt(chat) -> None:
    terminal = chat.start("--model", "faux/scripted", "--script", chat.script([text_turn("Two lines read.")]))
    terminal.ready()
    terminal.process.send("line one" + ALT_ENTER + "line two\r")
    terminal.expect("Two lines read.")
    assert terminal.leave() == 0
    assert user_texts(chat.session(terminal.session_id)) == ["line one\nline two"]


def test_tab_completes_a_slash_command(chat) -> None:
    terminal = chat.start("--model", "faux/scripted", "--script", chat.script([text_turn("unused")]))
    terminal.ready()
    terminal.process.send("/co")
    terminal.process.send("\t")  # two commands start so: the menu offers both
    terminal.expect("/compact")
    terminal.process.send("\x15")  # Ctrl-U: clear the line
    terminal.process.send("/ex\t")
    terminal.expect("/exit")
    terminal.process.send("\r")
    assert terminal.exit_status() == 0
