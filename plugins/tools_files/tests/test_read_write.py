"""read_file numbering, limits and markers; write_file parents and byte counts."""

from __future__ import annotations

import base64
import re
import subprocess

import pytest
from agentkit_tools_files.limits import READ_LIMITS

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def _numbered(content: str) -> dict[int, str]:
    rows = {}
    for row in content.split("\n"):
        match = re.match(r"^\s*(\d+)\t(.*)$", row)
        if match:
            rows[int(match.group(1))] = match.group(2)
    return rows


def test_line_numbers_match_an_editors(workspace):
    # Form feed, vertical tab, U+2028 and \x1c are not line breaks in an editor
    # (str.splitlines would split there); CRLF, LF and a lone CR are.
    text = "one\x0cstill one\r\ntwo\u2028still two\rthree\x1cstill\nfour\x0bstill\n"
    workspace.write("f.txt", text)
    result = workspace.call("read_file", path="f.txt")
    assert result.ok
    assert _numbered(result.data["content"]) == {
        1: "one\x0cstill one",
        2: "two\u2028still two",
        3: "three\x1cstill",
        4: "four\x0bstill",
    }


def test_head_limit_marker_names_the_continuing_call(workspace):
    workspace.write("big.txt", "".join(f"line {n}\n" for n in range(1, 8001)))
    first = workspace.call("read_file", path="big.txt")
    assert first.data["content"].endswith(
        "[Showing lines 1-2000 of 8000. Use offset=2001 to continue.]"
    )
    assert max(_numbered(first.data["content"])) == 2000
    second = workspace.call("read_file", path="big.txt", offset=2001)
    rows = _numbered(second.data["content"])
    assert min(rows) == 2001 and rows[2001] == "line 2001"
    assert second.data["content"].endswith("Use offset=4001 to continue.]")


def test_byte_limit_stops_before_50_kb(workspace):
    workspace.write("wide.txt", "".join(f"{n:04d}" + "x" * 200 + "\n" for n in range(1, 1001)))
    result = workspace.call("read_file", path="wide.txt")
    content = result.data["content"]
    body = content.rsplit("\n\n[", 1)[0]
    assert len(body.encode()) <= READ_LIMITS.bytes
    last = max(_numbered(content))
    assert (
        f"[Showing lines 1-{last} of 1000 (50 KB limit). Use offset={last + 1} to continue.]"
        in content
    )
    assert result.metadata["truncated_by"] == "bytes"


def test_limit_and_offset_select_a_window(workspace):
    workspace.write("f.txt", "a\nb\nc\nd\n")
    result = workspace.call("read_file", path="f.txt", offset=2, limit=2)
    assert _numbered(result.data["content"]) == {2: "b", 3: "c"}
    assert "Use offset=4 to continue." in result.data["content"]
    past = workspace.call("read_file", path="f.txt", offset=9)
    assert past.error == "offset_out_of_range"


def test_an_overlong_line_gets_its_own_marker_with_a_working_workaround(workspace):
    long_line = "y" * (READ_LIMITS.bytes + 10)
    workspace.write("min.js", f"first\n{long_line}\nthird\n")
    first = workspace.call("read_file", path="min.js")
    assert "Use offset=2 to continue." in first.data["content"]
    result = workspace.call("read_file", path="min.js", offset=2)
    content = result.data["content"]
    command = re.search(r"with: (sed .*)\]", content).group(1)
    assert command == "sed -n '2p' min.js | head -c 51200"
    shown = subprocess.run(command, shell=True, cwd=workspace.root, capture_output=True, check=True)
    assert shown.stdout == long_line[:51200].encode()
    assert "Use offset=3 to continue." in content
    assert _numbered(workspace.call("read_file", path="min.js", offset=3).data["content"]) == {
        3: "third"
    }


def test_binary_and_images_are_detected_by_content_not_extension(workspace):
    workspace.write("looks_like.txt", b"\x7fELF\x02\x01\x00\x00binary")
    workspace.write("picture.dat", PNG)
    workspace.write("plain.png", "just text\n")
    binary = workspace.call("read_file", path="looks_like.txt")
    assert not binary.ok and binary.error == "binary_file"
    image = workspace.call("read_file", path="picture.dat")
    assert image.ok and image.images and image.images[0].mime_type == "image/png"
    assert base64.b64decode(image.images[0].data) == PNG
    text = workspace.call("read_file", path="plain.png")
    assert text.ok and _numbered(text.data["content"]) == {1: "just text"}


def test_bom_is_reported_not_shown(workspace):
    workspace.write("bom.txt", "\ufeffhello\r\n")
    result = workspace.call("read_file", path="bom.txt")
    assert result.data == {"content": "     1\thello", "encoding": "utf-8-sig"}


def test_missing_file_and_directory_are_errors_with_a_fix(workspace):
    assert workspace.call("read_file", path="nope.txt").error == "not_found"
    (workspace.root / "d").mkdir()
    result = workspace.call("read_file", path="d")
    assert result.error == "is_a_directory" and "list_files" in result.detail


def test_write_creates_parents_and_reports_bytes(workspace):
    result = workspace.call("write_file", path="deep/er/new.txt", content="héllo\n")
    assert result.ok
    assert result.data == {"written": "deep/er/new.txt", "bytes": len("héllo\n".encode())}
    assert (workspace.root / "deep/er/new.txt").read_text() == "héllo\n"
    again = workspace.call("write_file", path="deep/er/new.txt", content="")
    assert again.data["bytes"] == 0 and (workspace.root / "deep/er/new.txt").read_bytes() == b""


def test_write_keeps_the_file_mode(workspace):
    script = workspace.write("run.sh", "#!/bin/sh\n")
    script.chmod(0o755)
    workspace.call("write_file", path="run.sh", content="#!/bin/sh\necho hi\n")
    assert script.stat().st_mode & 0o777 == 0o755


def test_a_new_file_gets_the_mode_any_new_file_gets(workspace):
    # Not the 0o600 of a temporary file: the usual 0o666 less the umask.
    workspace.call("write_file", path="new.txt", content="x\n")
    touched = workspace.write("touched.txt", "x\n")
    assert (workspace.root / "new.txt").stat().st_mode & 0o777 == touched.stat().st_mode & 0o777
    assert [p.name for p in sorted(workspace.root.iterdir())] == ["new.txt", "touched.txt"]


def test_offset_zero_means_the_start(workspace):
    workspace.write("f.txt", "a\nb\n")
    assert _numbered(workspace.call("read_file", path="f.txt", offset=0).data["content"]) == {
        1: "a",
        2: "b",
    }


def test_a_fifo_is_refused_without_blocking(workspace):
    import os

    os.mkfifo(workspace.root / "pipe")
    assert workspace.call("read_file", path="pipe").error == "not_a_regular_file"


@pytest.mark.parametrize("name", ["a" * 255, "é" * 127])
def test_a_file_with_the_longest_name_the_system_allows_can_be_written_and_edited(workspace, name):
    assert workspace.call("write_file", path=name, content="old\n").ok
    edited = workspace.call("edit_file", path=name, edits=[{"old_string": "old", "new_string": "new"}])
    assert edited.ok, edited
    assert (workspace.root / name).read_text() == "new\n"
    assert [entry.name for entry in workspace.root.iterdir()] == [name]
