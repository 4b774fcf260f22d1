"""agentkit.plugin_api.results: the accumulator every cap goes through, and the result envelope."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agentkit.plugin_api import ToolContext, ToolError
from agentkit.plugin_api.results import Accumulator, clip_line, enveloped


def test_head_only_stops_at_the_item_cap():
    accumulator = Accumulator(max_items=3, max_bytes=1000)
    assert [accumulator.add(str(n)) for n in range(5)] == [True, True, True, False, False]
    assert accumulator.head == ["0", "1", "2"] and accumulator.truncated_by == "items"
    assert accumulator.truncated and accumulator.seen == 5


def test_byte_cap_counts_utf8_bytes_and_a_separator():
    accumulator = Accumulator(max_items=100, max_bytes=10)
    assert accumulator.add("éé")  # 4 bytes + separator
    assert accumulator.add("abcd")  # 10 in all
    assert not accumulator.add("x")
    assert accumulator.truncated_by == "bytes"


@given(st.lists(st.text(max_size=30), max_size=300), st.integers(1, 20), st.integers(1, 200))
def test_head_and_tail_stay_bounded_and_keep_the_ends(pieces, max_items, max_bytes):
    accumulator = Accumulator(max_items=max_items, max_bytes=max_bytes, keep_tail=True)
    for piece in pieces:
        accumulator.add(piece)
    for kept, size in (
        (accumulator.head, accumulator.head_bytes),
        (list(accumulator.tail), accumulator.tail_bytes),
    ):
        assert len(kept) <= max_items and size <= max_bytes
    # The head is a prefix of the stream and the tail a suffix of what followed it.
    assert accumulator.head == pieces[: len(accumulator.head)]
    rest = pieces[len(accumulator.head) :]
    if accumulator.tail:
        assert list(accumulator.tail) == rest[len(rest) - len(accumulator.tail) :]
    assert accumulator.truncated == (len(accumulator.head) + len(accumulator.tail) < len(pieces))


def test_clip_line():
    assert clip_line("abcdef", 3) == ("abc", True)
    assert clip_line("abc", 3) == ("abc", False)
    assert clip_line("abc", 0) == ("abc", False)


def test_enveloped_handlers_answer_with_a_result_whatever_they_raise(tmp_path):
    def make(exception):
        @enveloped
        def handler(arguments, context):
            raise exception

        return handler

    context = ToolContext(root=tmp_path)
    cases = [
        (ToolError("busy", "try later"), "busy"),
        (FileNotFoundError(2, "No such file", "gone.txt"), "not_found"),
        (IsADirectoryError(21, "Is a directory", "d"), "is_a_directory"),
        (PermissionError(13, "Permission denied", "secret"), "permission_denied"),
        (OSError(5, "Input/output error", "disk"), "io_error"),
    ]
    for exception, code in cases:
        result = make(exception)({}, context)
        assert not result.ok and result.error == code


def test_size_option_reads_a_positive_count_of_bytes_and_refuses_anything_else():
    from agentkit.plugin_api import ToolError
    from agentkit.plugin_api.results import size_option

    assert size_option({}, "max_file_bytes", 10) == 10
    assert size_option({"max_file_bytes": 3}, "max_file_bytes", 10) == 3
    for bad in (0, -1, True, 2.5, "3", None):
        try:
            size_option({"max_file_bytes": bad}, "max_file_bytes", 10)
        except ToolError as exc:
            assert exc.error == "invalid_option" and "max_file_bytes" in str(exc)
        else:
            raise AssertionError(f"{bad!r} was taken")
