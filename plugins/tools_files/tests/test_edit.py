"""edit_file: originals-only matching, the fixed rejection order, endings, the tolerant pass, locks."""

from __future__ import annotations

import os
import threading
import time

import pytest
from agentkit_tools_files import edit as edit_module
from agentkit_tools_files.locks import path_locks


def _edit(workspace, path, *pairs):
    return workspace.call(
        "edit_file", path=path, edits=[{"old_string": o, "new_string": n} for o, n in pairs]
    )


def test_every_old_string_matches_the_original_not_earlier_results(workspace):
    workspace.write("f.py", "alpha = 1\nbeta = 2\n")
    result = _edit(workspace, "f.py", ("alpha", "beta"), ("beta = 2", "gamma = 3"))
    assert result.ok and result.data == {"edits_applied": 2}
    assert (workspace.root / "f.py").read_text() == "beta = 1\ngamma = 3\n"


@pytest.mark.parametrize(
    "pairs, error, detail",
    [
        # Each batch holds several faults; the earliest kind in the fixed order is the one reported.
        ([("x", "y"), ("", "z"), ("nothere", "q"), ("dup", "d")], "empty_old_string", "edits[1]"),
        ([("dup", "d"), ("nothere", "q"), ("one", "two")], "not_found", "edits[1]"),
        (
            [("one tw", "1"), ("dup", "d"), ("o", "0")],
            "not_unique",
            "edits[1]: Found 2 occurrences of the string to replace. The text must be unique. "
            "Please provide more context to make it unique.",
        ),
        ([("one two", "1 2"), ("two three", "2 3")], "overlapping_edits", "edits[0] and edits[1]"),
        ([("one", "one"), ("three", "three")], "no_change", "nothing was written"),
    ],
)
def test_rejection_order_and_nothing_written(workspace, pairs, error, detail):
    original = "one two three\ndup\ndup\n"
    path = workspace.write("f.txt", original)
    before = path.stat().st_mtime_ns
    result = _edit(workspace, "f.txt", *pairs)
    assert not result.ok
    assert result.error == error
    assert detail in result.detail
    assert path.read_text() == original and path.stat().st_mtime_ns == before


def test_non_unique_counts_and_is_never_a_replace_all(workspace):
    path = workspace.write("f.txt", "x = 1\nx = 1\nx = 1\n")
    result = _edit(workspace, "f.txt", ("x = 1", "x = 2"))
    assert result.error == "not_unique" and "Found 3 occurrences" in result.detail
    assert path.read_text() == "x = 1\nx = 1\nx = 1\n"


def test_crlf_and_bom_are_preserved(workspace):
    path = workspace.write("w.txt", "\ufeffline one\r\nline two\r\nline three\r\n".encode())
    result = _edit(workspace, "w.txt", ("line one\nline two", "first\nsecond\nextra"))
    assert result.ok, result.detail
    assert path.read_bytes() == "\ufefffirst\r\nsecond\r\nextra\r\nline three\r\n".encode()


def test_lf_file_without_bom_gains_neither(workspace):
    path = workspace.write("u.txt", "a\nb\n")
    _edit(workspace, "u.txt", ("a", "c"))
    assert path.read_bytes() == b"c\nb\n"


def test_tolerant_pass_splices_original_lines_back(workspace):
    original = (
        "def greet():\n"
        "    msg = \u201chello\u201d   \n"  # smart quotes and trailing spaces
        "    say(msg)  # \u2014 untouched\n"  # an em dash the edit does not change
        "    return msg\n"
        "other = \u201ckeep\u201d\n"
    )
    path = workspace.write("g.py", original)
    result = _edit(
        workspace,
        "g.py",
        (
            '    msg = "hello"\n    say(msg)  # \u2014 untouched\n    return msg\n',
            '    msg = "hello"\n    say(msg)  # \u2014 untouched\n    return msg.upper()\n',
        ),
    )
    assert result.ok, result.detail
    assert result.metadata["match"] == "folded"
    assert path.read_text() == (
        "def greet():\n"
        "    msg = \u201chello\u201d   \n"
        "    say(msg)  # \u2014 untouched\n"
        "    return msg.upper()\n"
        "other = \u201ckeep\u201d\n"
    )


def test_tolerant_pass_never_folds_indentation(workspace):
    path = workspace.write("i.py", "if x:\n        y = 1\n")
    result = _edit(workspace, "i.py", ("    y = 1", "    y = 2"))
    assert result.ok  # exact substring of the deeper line: fine, it is exact
    path.write_text("if x:\n\ty = 1\n")
    result = _edit(workspace, "i.py", ("    y = 1\n", "    y = 2\n"))
    assert result.error == "not_found"


def test_exact_match_is_never_overridden_by_a_folded_one(workspace):
    # 'a = "x"' occurs exactly once; its folded twin a = “x” must not make it ambiguous,
    # while the second edit needs the tolerant pass.
    path = workspace.write("e.py", 'a = "x"\na = \u201cx\u201d\nb = \u2018y\u2019\n')
    result = _edit(workspace, "e.py", ('a = "x"', 'a = "X"'), ("b = 'y'", "b = 'Y'"))
    assert result.ok, result.detail
    assert path.read_text() == "a = \"X\"\na = \u201cx\u201d\nb = 'Y'\n"


def test_a_partly_rescuable_batch_is_rejected_whole(workspace):
    original = "p = \u201cq\u201d\nr = 1\n"
    path = workspace.write("p.py", original)
    result = _edit(workspace, "p.py", ('p = "q"', 'p = "Q"'), ("missing", "x"))
    assert result.error == "not_found" and "edits[1]" in result.detail
    assert path.read_text() == original


def test_folded_ambiguity_is_not_unique(workspace):
    path = workspace.write("d.py", "s = \u201cz\u201d\ns = \u201cz\u201d  \n")
    result = _edit(workspace, "d.py", ('s = "z"', 's = "w"'))
    assert result.error == "not_unique" and "Found 2 occurrences" in result.detail
    assert "\u201c" in path.read_text()


def test_deleting_whole_lines_in_the_tolerant_pass(workspace):
    path = workspace.write("t.txt", "keep\ndrop \u2018me\u2019   \nkeep too\n")
    result = _edit(workspace, "t.txt", ("drop 'me'\n", ""))
    assert result.ok, result.detail
    assert path.read_text() == "keep\nkeep too\n"


def _slow_down_planning(monkeypatch, delay: float, log: list, lock: threading.Lock):
    real_plan = edit_module._plan

    def slow_plan(text, edits, *rest):
        with lock:
            log.append(("start", threading.get_ident()))
        time.sleep(delay)
        try:
            return real_plan(text, edits, *rest)
        finally:
            with lock:
                log.append(("end", threading.get_ident()))

    monkeypatch.setattr(edit_module, "_plan", slow_plan)


def _max_overlap(log) -> int:
    running = peak = 0
    for kind, _ in log:
        running += 1 if kind == "start" else -1
        peak = max(peak, running)
    return peak


def test_edits_of_one_file_through_two_spellings_are_serialized(workspace, monkeypatch):
    workspace.write("a.txt", "count 0\n")
    os.symlink(workspace.root / "a.txt", workspace.root / "alias.txt")
    log: list = []
    _slow_down_planning(monkeypatch, 0.05, log, threading.Lock())
    spellings = ["a.txt", "./a.txt", "alias.txt", "sub/../a.txt"]
    (workspace.root / "sub").mkdir()
    # Four threads bump one counter through four spellings; a lost race re-reads and retries.
    threads = []
    barrier = threading.Barrier(len(spellings))

    def racer(spelling: str) -> None:
        barrier.wait()
        for _ in range(5):
            while True:
                text = (workspace.root / "a.txt").read_text()
                n = int(text.split()[1])
                result = _edit(workspace, spelling, (f"count {n}\n", f"count {n + 1}\n"))
                if result.ok:
                    break
                assert result.error == "not_found", result.detail

    for spelling in spellings:
        threads.append(threading.Thread(target=racer, args=(spelling,)))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert (workspace.root / "a.txt").read_text() == f"count {5 * len(spellings)}\n"
    assert _max_overlap(log) == 1
    assert len(path_locks) == 0


def test_edits_of_different_files_run_in_parallel(workspace, monkeypatch):
    for n in range(3):
        workspace.write(f"f{n}.txt", "old\n")
    # Every edit waits inside its locked section until all three are there: serialized
    # edits would break the barrier instead of passing it.
    inside = threading.Barrier(3, timeout=10)
    real_plan = edit_module._plan

    def plan_together(text, edits, *rest):
        inside.wait()
        return real_plan(text, edits, *rest)

    monkeypatch.setattr(edit_module, "_plan", plan_together)
    outcomes = []

    def run(n: int) -> None:
        try:
            outcomes.append(_edit(workspace, f"f{n}.txt", ("old", "new")).ok)
        except threading.BrokenBarrierError:
            outcomes.append(False)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes == [True, True, True]
    assert all((workspace.root / f"f{n}.txt").read_text() == "new\n" for n in range(3))


def test_write_file_shares_the_lock(workspace):
    path = workspace.write("w.txt", "x\n")
    with path_locks.hold(path.resolve()):
        done = threading.Event()
        thread = threading.Thread(
            target=lambda: (workspace.call("write_file", path="./w.txt", content="y\n"), done.set())
        )
        thread.start()
        assert not done.wait(0.2)
    thread.join()
    assert path.read_text() == "y\n"


def test_edit_refuses_binary_and_missing_files(workspace):
    workspace.write("b.bin", b"\x00\x01old")
    assert _edit(workspace, "b.bin", ("old", "new")).error == "binary_file"
    assert _edit(workspace, "nope.txt", ("a", "b")).error == "not_found"


def test_legacy_encoding_round_trips_and_refuses_what_it_cannot_store(workspace):
    path = workspace.write("l.txt", "caf\xe9 = 1\nother\n".encode("latin-1"))
    assert _edit(workspace, "l.txt", ("other", "autre \xe0")).ok
    assert path.read_bytes() == "caf\xe9 = 1\nautre \xe0\n".encode("latin-1")
    result = _edit(workspace, "l.txt", ("autre", "\u2603"))
    assert result.error == "unencodable"
    assert path.read_bytes() == "caf\xe9 = 1\nautre \xe0\n".encode("latin-1")


def test_each_line_keeps_its_own_ending_in_a_mixed_file(workspace):
    path = workspace.write("m.txt", b"one\r\ntwo\nthree\r\nfour\n")
    # The model writes "\n" (read_file shows lines without their endings).
    result = _edit(workspace, "m.txt", ("one\ntwo\nthree", "ONE\nTWO\nTHREE"))
    assert result.ok, result.detail
    assert path.read_bytes() == b"ONE\r\nTWO\nTHREE\r\nfour\n"
    # A line added inside a CRLF stretch ends as its neighbours do; untouched lines keep theirs.
    assert _edit(workspace, "m.txt", ("TWO\nTHREE\n", "TWO\nTHREE\n3b\n")).ok
    assert path.read_bytes() == b"ONE\r\nTWO\nTHREE\r\n3b\r\nfour\n"
    assert _edit(workspace, "m.txt", ("four", "4")).ok
    assert path.read_bytes() == b"ONE\r\nTWO\nTHREE\r\n3b\r\n4\n"


def test_utf8_with_a_stray_byte_is_not_reencoded_as_latin1(workspace):
    original = "caf\u00e9 = 1\nbad \udcff byte\nother\n".encode("utf-8", "surrogateescape")
    path = workspace.write("u.txt", original)
    read = workspace.call("read_file", path="u.txt")
    assert read.ok and "caf\u00e9 = 1" in read.data["content"]
    result = _edit(
        workspace, "u.txt", ("caf\u00e9 = 1", "caf\u00e9 = 2"), ("other", "autre \u00e0")
    )
    assert result.ok, result.detail
    # The stray byte round-trips as it was; the new text is UTF-8 like the rest of the file.
    assert path.read_bytes() == b"caf\xc3\xa9 = 2\nbad \xff byte\nautre \xc3\xa0\n"


def test_a_nul_after_the_first_8000_bytes_still_makes_a_file_binary(workspace):
    original = b"x" * 9000 + b"\x00\nold\n"
    path = workspace.write("late.bin", original)
    result = _edit(workspace, "late.bin", ("old", "new"))
    assert result.error == "binary_file"
    assert path.read_bytes() == original


def test_a_line_with_a_stray_byte_is_edited_as_read_file_shows_it(workspace):
    """read_file shows a byte that is not UTF-8 as U+FFFD: what the model copies must match."""
    path = workspace.write("stray.txt", "café\n".encode() + b"a\xffb\nkeep\n")
    shown = workspace.call("read_file", path="stray.txt").data["content"]
    assert "a\ufffdb" in shown
    result = workspace.call(
        "edit_file", path="stray.txt", edits=[{"old_string": "a\ufffdb\nkeep", "new_string": "a\ufffdb\nkept"}]
    )
    assert result.ok, result
    assert path.read_bytes() == "café\n".encode() + b"a\xffb\nkept\n"  # the line it left alone keeps its byte
    result = workspace.call("edit_file", path="stray.txt", edits=[{"old_string": "a\ufffdb", "new_string": "ab"}])
    assert result.ok, result
    assert path.read_bytes() == "café\nab\nkept\n".encode()
