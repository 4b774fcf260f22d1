"""Answers rendered as Markdown on a terminal, written as they are everywhere else (a pipe, --plain, NO_COLOR)."""

from __future__ import annotations

import os
import re
from typing import Any

import pytest
from agentkit_chat._screen import THEMES

ANSWER = """# Release notes

Some **bold** words, an *emphasis* and `inline code`.
See [the guide](https://example.org/guide).

- first item
- second item
  1. nested one

> a quoted line

```python
def f():
    return 1
```

| name | size |
|------|------|
| a    | 10   |
"""
BOLD = f"\x1b[{THEMES['dark']['strong']}m"


def text_turn(text: str, **extra: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], **extra}


def test_an_answer_is_rendered_as_markdown_on_a_terminal(chat) -> None:
    script = chat.script([text_turn(ANSWER)])
    terminal = chat.start("--model", "faux/scripted", "--script", script)
    raw = terminal.turn("notes")
    assert terminal.leave() == 0
    lines = terminal.lines(raw)
    assert "Release notes" in lines and not any(line.startswith("# ") for line in lines)
    assert "Some bold words, an emphasis and inline code." in lines  # the markers are gone
    assert "See the guide (https://example.org/guide)." in lines  # the address is shown, never hidden
    assert "• first item" in lines and "• second item" in lines
    assert any(re.fullmatch(r"\s+1\. nested one", line) for line in lines)
    assert "│ a quoted line" in lines
    code = lines.index("def f():")  # code as written, between its fences, for copying
    assert lines[code - 1] == "```python" and lines[code + 1] == "    return 1" and lines[code + 2] == "```"
    assert any(re.fullmatch(r"name\s+│\s+size", line) for line in lines)
    assert any(re.fullmatch(r"a\s+│\s+10", line) for line in lines)
    assert f"{BOLD}bold" in raw and f"\x1b[{THEMES['dark']['heading1']}mRelease notes" in raw


def test_markup_cannot_smuggle_a_control_character_through_the_renderer(chat) -> None:
    script = chat.script([text_turn("an entity &#x1b;[31mred&#27;]0;title&#7; and `\x1b[2J`\n")])
    terminal = chat.start("--model", "faux/scripted", "--script", script)
    raw = terminal.turn("go")
    assert terminal.leave() == 0
    # The parser decodes a reference to a control character as U+FFFD (CommonMark); a raw one is shown.
    assert "\ufffd[31mred\ufffd]0;title\ufffd" in raw and "␛[2J" in raw
    for executable in ("\x1b[31m", "\x1b]0;", "\x07", "\x1b[2J"):
        assert executable not in raw


@pytest.mark.parametrize(("how", "env", "args"), [("NO_COLOR", {"NO_COLOR": "1"}, ()), ("--plain", {}, ("--plain",))])
def test_plain_output_on_a_terminal_keeps_the_markdown_as_written(chat, how: str, env: dict[str, str],
                                                                  args: tuple[str, ...]) -> None:
    script = chat.script([text_turn(ANSWER)])
    terminal = chat.start("--model", "faux/scripted", "--script", script, *args, env=env)
    raw = terminal.turn("notes")
    assert terminal.leave() == 0
    assert "# Release notes" in raw and "Some **bold** words" in raw and "[the guide](https://example.org/guide)" in raw
    assert BOLD not in raw.split("# Release notes")[1], how


def test_piped_output_keeps_the_markdown_as_written(agentkit, tmp_path) -> None:
    from agentkit.testing import write_script

    script = write_script(tmp_path / "turns.json", [text_turn(ANSWER)])
    result = agentkit.inline("chat", "--model", "faux/scripted", "--script", str(script), "--root", str(tmp_path),
                             input="notes\n", env={"AGENTKIT_DATA_DIR": str(tmp_path / "data")}, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout
    assert ANSWER.strip() in result.stdout


def test_a_continued_conversation_shows_its_earlier_answers_rendered(chat) -> None:
    script = chat.script([text_turn("Some **bold** words."), text_turn("More.")])
    first = chat.start("--model", "faux/scripted", "--script", script)
    first.turn("one")
    assert first.leave() == 0
    again = chat.start("--resume", "--script", script)
    shown = again.expect("\x1b[?2004h")  # the history, up to the first prompt
    again.process.send("\x04")
    assert again.exit_status() == 0
    assert "Some bold words." in again.lines(shown) and f"{BOLD}bold" in shown


class _Terminal:
    """A stream that says it is a terminal of ``columns`` x ``rows``, keeping what was written."""

    def __init__(self, columns: int, rows: int) -> None:
        self.written: list[str] = []
        self.columns, self.rows = columns, rows

    def write(self, text: str) -> int:
        self.written.append(text)
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True


def _stream_answer(text: str, pieces: list[int], columns: int, rows: int, monkeypatch) -> list[str]:
    import shutil

    from agentkit_chat._answer import MarkdownAnswer
    from agentkit_chat._screen import Screen

    from .conftest import screen_lines

    terminal = _Terminal(columns, rows)
    monkeypatch.setattr(shutil, "get_terminal_size", lambda *args: os.terminal_size((columns, rows)))
    answer = MarkdownAnswer(Screen(terminal, "dark"))  # type: ignore[arg-type]
    start = 0
    for cut in [*sorted(pieces), len(text)]:
        answer.feed(text[start:cut])
        start = cut
    answer.finish()
    return screen_lines("".join(terminal.written), columns)


def test_an_answer_streamed_in_any_pieces_ends_as_it_does_given_whole(monkeypatch) -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    whole = _stream_answer(ANSWER, [], 240, 50, monkeypatch)

    @settings(max_examples=60, deadline=None)
    @given(st.lists(st.integers(min_value=0, max_value=len(ANSWER)), max_size=25))
    def check(pieces: list[int]) -> None:
        assert _stream_answer(ANSWER, pieces, 240, 50, monkeypatch) == whole

    check()
    assert "• first item" in whole and "def f():" in whole


def test_an_open_block_taller_than_the_screen_is_written_once(monkeypatch) -> None:
    paragraph = "\n".join(f"line {n} of a long paragraph" for n in range(40))
    lines = _stream_answer(paragraph, list(range(0, len(paragraph), 7)), 20, 10, monkeypatch)
    shown = [line for line in lines if line]
    wrapped = [part for n in range(40) for text in [f"line {n} of a long paragraph"] for part in (text[:20], text[20:])]
    assert shown == wrapped  # each line once, wrapped by the terminal: no half-erased draft left above
