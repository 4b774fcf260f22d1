"""The example plugin's own tests, as its author would write them."""

from __future__ import annotations

import pytest
from agentkit_tools_wordcount import word_count

from agentkit.plugin_api import ToolContext, ToolError


def test_counts_lines_words_and_characters(tmp_path):
    (tmp_path / "notes.txt").write_text("one two\nthree\n")
    assert word_count("notes.txt", ToolContext(root=tmp_path)) == {"lines": 2, "words": 3, "characters": 14}


def test_refuses_paths_outside_the_workspace(tmp_path):
    with pytest.raises(ToolError) as caught:
        word_count("../outside.txt", ToolContext(root=tmp_path))
    assert caught.value.error == "path_not_allowed"


def test_refuses_a_link_that_leads_outside(tmp_path):
    root = tmp_path / "workspace"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("outside\n")
    (root / "link.txt").symlink_to(tmp_path / "secret.txt")
    with pytest.raises(ToolError) as caught:
        word_count("link.txt", ToolContext(root=root))
    assert caught.value.error == "path_not_allowed"


def test_follows_a_link_that_stays_inside(tmp_path):
    (tmp_path / "real.txt").write_text("a b\n")
    (tmp_path / "alias.txt").symlink_to("real.txt")
    assert word_count("alias.txt", ToolContext(root=tmp_path))["words"] == 2


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(ToolError) as caught:
        word_count("nope.txt", ToolContext(root=tmp_path))
    assert caught.value.error == "not_found"
