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
