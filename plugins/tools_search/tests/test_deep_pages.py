"""A page deep into a large result set costs what the files before it cost, and no more.

Counts, not times: how many files a deep page reads (on both backends, the
files up to the one holding the match after the page), and how many of them
the native backend matched with its expression exact for every character
(only those holding more than ASCII; an ASCII text takes the faster one, which
finds the same lines). bench/bench_search.py has the timed figure.
"""

from __future__ import annotations

from agentkit_tools_search.native import search_native
from agentkit_tools_search.query import FileList, Query

FILES = 60
LINES = 20  # matching lines per file


def _tree(workspace) -> None:
    for n in range(FILES):
        body = "".join(f"value_{line} = compute_{line}(x)\n" for line in range(LINES))
        if n == 7:
            body += "naïve_value = 1\n"  # one file that is not ASCII
        workspace.write(f"src/m{n:03d}.py", body)


def test_a_deep_page_reads_only_the_files_up_to_the_one_after_it(workspace, backend):
    _tree(workspace)
    result = backend(workspace, pattern=r"\w+_\d", offset=900, max_matches=100)
    assert result.ok, result.detail
    matches = result.data["matches"]
    # Matches 900 to 999; the 1,000th (the sign that there are more) is the last of file 50.
    assert len(matches) == 100 and result.data["truncated"]
    first, last = matches[0], matches[-1]
    assert (first["file"], first["line"]) == ("src/m044.py", 20)
    assert (last["file"], last["line"]) == ("src/m049.py", 19)
    assert result.data["files_searched"] == 50


def test_ascii_files_take_the_fast_expression_and_find_the_same_lines(workspace, rg):
    _tree(workspace)
    files = [f"src/m{n:03d}.py" for n in range(FILES)]
    query = Query(r"\w+_value|\bvalue_1\b", True, 0, workspace.root, FileList(files), needed=10_000)
    outcome = search_native(query)
    assert outcome.files_searched == FILES
    assert outcome.unicode_files == 1  # only the file with "naïve" in it
    found = [(m.file, m.line) for m in outcome.matches]
    assert ("src/m007.py", LINES + 1) in found  # \w takes ï there, as Rust's does
    everything = workspace.search("rg", rg, pattern=r"\w+_value|\bvalue_1\b", max_matches=100)
    assert [(m["file"], m["line"]) for m in everything.data["matches"]] == found[:100]
