"""What the chat writes: streamed text, thinking, usage, themes, plain output and control bytes made visible."""

from __future__ import annotations

import re
from typing import Any

import pytest
from agentkit_chat._screen import THEMES, Screen

from agentkit.host.cli.support import visible

HOSTILE_TOOL = """
from agentkit.plugin_api import Tool, hookimpl

def hostile() -> str:
    '''Answer with escape sequences.'''
    return "\\x1b[31mred\\x1b[0m and \\x1b]0;retitled\\x07"

@hookimpl
def agentkit_register_tools(register):
    register(Tool.from_function(hostile))
"""
#: The bidirectional formatting characters, which reorder what a line shows.
BIDI = {chr(code) for code in (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))}
#: A foreground or background colour in a Select Graphic Rendition sequence (30-38, 40-48, 90-107).
COLOUR = re.compile(r"\x1b\[(?:[0-9]*;)*(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])(?:;[0-9]*)*m")


def text_turn(text: str, **extra: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], **extra}


def test_control_bytes_from_the_model_and_from_tools_are_shown_never_executed(chat, site_dir) -> None:
    site_dir("hostile-plugin", entry_points={"agentkit.tools": {"hostile": "hostileplugin"}},
             requires=["agentkit-plugin-api>=0.1"], files={"hostileplugin.py": HOSTILE_TOOL})
    script = chat.script([
        {"content": [{"type": "tool_use", "name": "hostile", "arguments": {}}]},
        text_turn("clear\x1b[2J the screen\rand\x9b31m more \u202eright to left"),
    ])
    terminal = chat.start("--model", "faux/scripted", "--script", script, site=site_dir.site)
    shown = terminal.turn("go")
    assert terminal.leave() == 0
    assert "␛[31mred␛[0m and ␛]0;retitled␇" in shown
    assert "clear␛[2J the screen␍and<U+009B>31m more <U+202E>right to left" in shown
    for executable in ("\x1b[31mred", "\x1b]0;", "\x07", "\x1b[2J", "\r and", "\x9b", "\u202e"):
        assert executable not in shown


def test_thinking_is_dimmed_and_usage_is_shown_per_turn_and_for_the_session(chat) -> None:
    usage = {"input": 1200, "output": 80}
    script = chat.script([
        {"content": [{"type": "thinking", "thinking": "pondering deeply"}, {"type": "text", "text": "One."}],
         "usage": usage},
        text_turn("Two.", usage=usage),
    ])
    terminal = chat.start("--model", "faux/scripted", "--script", script)
    first = terminal.turn("first")
    assert "\x1b[2;3m" in first.split("pondering deeply")[0]  # dim (and italic) in the dark theme
    terminal.expect(re.compile(r"session: 1,200 in, 80 out, \$\d+\.\d{4}"))
    second = terminal.turn("second")
    assert "Two." in second
    terminal.expect(re.compile(r"80 out, \$\d+\.\d{4} · session: 2,400 in, 160 out, \$\d+\.\d{4}"))
    assert terminal.leave() == 0


@pytest.mark.parametrize(("how", "env", "args"), [("NO_COLOR", {"NO_COLOR": "1"}, ()), ("--plain", {}, ("--plain",))])
def test_no_color_or_plain_writes_no_colour_in_a_terminal(chat, how: str, env: dict[str, str], args: tuple[str, ...]) -> None:
    script = chat.script([{"content": [{"type": "thinking", "thinking": "hmm"},
                                       {"type": "tool_use", "name": "list_files", "arguments": {}}]},
                          text_turn("Listed.")])
    terminal = chat.start("--model", "faux/scripted", "--script", script, *args, env=env)
    shown = terminal.turn("list")
    assert terminal.leave() == 0
    assert "[thinking] hmm" in shown and "[tool] list_files" in shown and "[done] list_files" in shown
    assert COLOUR.search(shown) is None, f"colour with {how}: {shown!r}"


def test_themes_colour_the_same_roles_differently(chat) -> None:
    script = chat.script([{"content": [{"type": "tool_use", "name": "list_files", "arguments": {}}]},
                          text_turn("Listed.")] * 2)
    shown = {}
    for theme in ("dark", "light"):
        terminal = chat.start("--model", "faux/scripted", "--script", script, "--theme", theme)
        shown[theme] = terminal.turn("list")
        assert terminal.leave() == 0
    assert f"\x1b[{THEMES['dark']['tool']}m→ list_files" in shown["dark"]
    assert f"\x1b[{THEMES['light']['tool']}m→ list_files" in shown["light"]
    assert THEMES["dark"]["tool"] != THEMES["light"]["tool"]


def test_an_unknown_theme_is_a_usage_error(agentkit, tmp_path) -> None:
    result = agentkit.inline("chat", "--model", "faux/scripted", "--theme", "neon", cwd=tmp_path)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "neon" in result.stderr and "Traceback" not in result.stderr


def test_without_a_terminal_the_output_is_plain_text(agentkit, tmp_path) -> None:
    script = tmp_path / "turns.json"
    script.write_text('[{"content": [{"type": "tool_use", "name": "list_files", "arguments": {}}]},'
                      ' {"content": [{"type": "text", "text": "Listed \\u001b[1mit\\u001b[0m."}]}]')
    result = agentkit.inline("chat", "--model", "faux/scripted", "--script", str(script), "--root", str(tmp_path),
                             input="list the files\n/cost\n", env={"AGENTKIT_DATA_DIR": str(tmp_path / "data")},
                             cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout
    lines = result.stdout.splitlines()
    assert "> list_files the files" not in lines and "> list the files" in lines
    assert "[tool] list_files" in lines and "Listed ␛[1mit␛[0m." in lines
    assert any(line.startswith("session: 0 in, 0 out, $") for line in lines)


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_every_theme_styles_only_known_roles(theme: str) -> None:
    roles = {"prompt", "thinking", "tool", "ok", "error", "usage", "note", "user", "status",
             "heading1", "heading", "strong", "emphasis", "strike", "link", "code", "quote"}
    assert set(THEMES[theme]) <= roles
    assert (theme == "plain") == (not THEMES[theme])


def test_visible_leaves_no_control_character_but_newline_and_tab() -> None:
    from hypothesis import given
    from hypothesis import strategies as st

    @given(st.text())
    def check(text: str) -> None:
        shown = visible(text)
        assert not any((ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0 or c in BIDI for c in shown)
        assert shown.count("\n") == text.count("\n") and shown.count("\t") == text.count("\t")

    check()


def test_a_plain_screen_writes_text_as_given(tmp_path) -> None:
    import io

    stream = io.StringIO()
    screen = Screen(stream, "plain")
    screen.write("partial")
    screen.line("whole", "error")
    assert stream.getvalue() == "partial\nwhole\n"
