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
