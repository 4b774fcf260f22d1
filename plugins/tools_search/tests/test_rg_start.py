"""What the rg backend asks of ripgrep: nothing for a page that fills in the first files it
reads, and no more than one line of a binary file.

ripgrep is replaced by a script that records that it ran and then fails (the
backend then answers natively, saying so), or by one that keeps a copy of what
ripgrep printed: what the script saw is what the user of the rg backend pays for.
"""

from __future__ import annotations

import stat

import pytest
from agentkit_tools_search import ripgrep


@pytest.fixture
def recording_rg(tmp_path):
    ran = tmp_path / "rg-ran"
    script = tmp_path / "bin" / "rg"
    script.parent.mkdir()
    script.write_text(f"#!/bin/sh\ntouch '{ran}'\necho 'rg: broken on purpose' >&2\nexit 2\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script, ran


@pytest.fixture
def head(monkeypatch):
    monkeypatch.setattr(ripgrep, "NATIVE_HEAD_FILES", 4)


def test_a_page_filled_in_the_first_files_never_starts_rg(workspace, recording_rg, head):
    script, ran = recording_rg
    for n in range(10):
        workspace.write(f"f{n}.txt", "hit\n" * 3)
    result = workspace.search("rg", str(script), pattern="hit", max_matches=5)
    native = workspace.search("native", pattern="hit", max_matches=5)
    assert result.metadata["backend"] == "rg" and not ran.exists()
    assert result.data == native.data and result.data["truncated"]


def test_a_page_not_filled_there_is_ripgrep_s(workspace, recording_rg, head):
    script, ran = recording_rg
    for n in range(10):
        workspace.write(f"f{n}.txt", "hit\n" * 3)
    result = workspace.search("rg", str(script), pattern="hit", max_matches=20)
    assert ran.exists() and result.metadata["backend"].startswith("native (rg failed")


def test_only_ripgrep_matches_it_so_ripgrep_reads_the_first_files(workspace, recording_rg, head):
    script, ran = recording_rg
    workspace.write("f.txt", "hit\n")
    workspace.search("rg", str(script), pattern=r"\p{Greek}")
    assert ran.exists()


def test_ripgrep_prints_at_most_one_line_of_a_binary_file(workspace, rg, tmp_path):
    log = tmp_path / "rg-output"
    wrapper = tmp_path / "bin" / "rg-tee"
    wrapper.parent.mkdir()
    wrapper.write_text(f"#!/bin/sh\n'{rg}' \"$@\" | tee -a '{log}'\n")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    workspace.write("archive.dat", b"\x00" + b"hit in the archive\n" * 50)
    workspace.write("notes.txt", b"a hit\n" * 3)
    result = workspace.search("rg", str(wrapper), pattern="hit")
    assert [m["file"] for m in result.data["matches"]] == ["notes.txt"] * 3
    about_the_archive = [line for line in log.read_bytes().split(b"\n") if b"archive.dat" in line]
    assert len(about_the_archive) <= 1


@pytest.fixture
def logging_rg(rg, tmp_path):
    """ripgrep itself, each invocation's arguments logged one per line."""
    log = tmp_path / "rg-calls"
    wrapper = tmp_path / "bin" / "rg-log"
    wrapper.parent.mkdir()
    wrapper.write_text(f"#!/bin/sh\necho \"$*\" >> '{log}'\nexec '{rg}' \"$@\"\n")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    return wrapper, log


def test_the_lines_a_page_shows_are_matched_here_where_the_pattern_translates(
    workspace, logging_rg, head, monkeypatch
):
    monkeypatch.setattr(ripgrep, "NATIVE_LINES", True)
    wrapper, log = logging_rg
    for n in range(12):
        workspace.write(f"f{n:02d}.txt", "a hit\nnothing\n" * 3)
    workspace.write("g.dat", b"\x00" + b"hit in the archive\n" * 5)
    result = workspace.search("rg", str(wrapper), pattern="hit", max_matches=25, context_lines=1)
    native = workspace.search("native", pattern="hit", max_matches=25, context_lines=1)
    assert result.metadata["backend"] == "rg" and result.data == native.data
    calls = log.read_text().splitlines()
    # ripgrep counted past the first files; nobody asked it for lines.
    assert calls and all("--count" in call and "--json" not in call for call in calls)


def test_ripgrep_shows_the_lines_of_a_pattern_only_it_can_match(workspace, logging_rg, head, monkeypatch):
    monkeypatch.setattr(ripgrep, "NATIVE_LINES", True)
    wrapper, log = logging_rg
    workspace.write("f.txt", "alpha\n\u03bb\u03bf\u03b3\n")
    result = workspace.search("rg", str(wrapper), pattern=r"\p{Greek}+")
    assert [(m["file"], m["line"]) for m in result.data["matches"]] == [("f.txt", 2)]
    assert any("--json" in call for call in log.read_text().splitlines())


def test_after_the_first_files_read_here_ripgrep_starts_once_per_large_chunk(
    workspace, logging_rg, monkeypatch
):
    # Each start compiles the regex again: the pages that fill early were answered by the
    # head, so ripgrep is not started for a few dozen files at a time after it.
    monkeypatch.setattr(ripgrep, "NATIVE_HEAD_FILES", 64)
    wrapper, log = logging_rg
    for n in range(700):
        workspace.write(f"d{n // 100}/f{n:03d}.txt", "nothing here\n")
    result = workspace.search("rg", str(wrapper), pattern=r"absent_\w+")
    assert result.data["files_searched"] == 700 and result.data["matches"] == []
    assert len(log.read_text().splitlines()) <= 2
