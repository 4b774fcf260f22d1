"""agentkit.plugin_api.results.Spool: a long text kept whole on disk, in bounded memory."""

from __future__ import annotations

import threading

from hypothesis import given
from hypothesis import strategies as st

from agentkit.plugin_api.results import Spool


def _lines(count: int) -> bytes:
    return "".join(f"line {n}\n" for n in range(count)).encode()


def test_a_short_text_stays_in_memory():
    spool = Spool(memory=1000)
    spool.write(b"hello\n")
    spool.close()
    assert spool.path is None and spool.read() == "hello\n" and spool.chars == 6


def test_past_its_memory_the_text_goes_to_a_private_file_whole():
    data = _lines(20_000)
    spool = Spool(memory=4096)
    for start in range(0, len(data), 777):
        spool.write(data[start : start + 777])
    spool.close()
    assert spool.path is not None and spool.path.stat().st_mode & 0o777 == 0o600
    assert spool.path.read_bytes() == data and spool.size == len(data) == spool.total_bytes
    assert spool.head(7) == "line 0\n" and spool.tail(11) == "line 19999\n"
    spool.discard()
    assert not spool.path.exists()


def test_past_its_cap_it_keeps_the_head_and_the_tail_and_says_what_was_dropped():
    data = _lines(100_000)
    spool = Spool(memory=1000, cap=10_000, cap_name="tool option output_disk_cap")
    for start in range(0, len(data), 4096):
        spool.write(data[start : start + 4096])
    spool.close()
    text = spool.read()
    assert text.startswith(data[:10_000].decode())
    assert text.endswith(data[-1000:].decode())
    dropped = len(data) - 10_000 - 1000
    assert spool.dropped == dropped
    assert f"[{dropped} bytes of output dropped here" in text and "output_disk_cap" in text
    assert spool.chars == len(text)
    assert spool.path is not None and spool.path.stat().st_size < 10_000 + 1000 + 200  # bounded on disk too
    spool.discard()


@given(st.lists(st.binary(max_size=50), max_size=60), st.integers(1, 64), st.integers(1, 400))
def test_the_kept_text_is_the_decoded_bytes_or_their_two_ends(chunks, memory, cap):
    spool = Spool(memory=memory, cap=cap)
    for chunk in chunks:
        spool.write(chunk)
    spool.close()
    whole = b"".join(chunks).decode("utf-8", "replace")
    text = spool.read()
    assert spool.chars == len(text)
    if not spool.dropped and len(whole.encode()) <= cap:
        assert text == whole
    else:
        head, _, tail = text.partition(" bytes of output dropped here")
        assert whole.startswith(head[: head.rfind("\n[")])
        assert whole.endswith(tail.partition(".]\n")[2])
    spool.discard()


def test_writes_after_close_are_ignored_and_writers_may_be_threads():
    spool = Spool(memory=100)
    threads = [threading.Thread(target=lambda: [spool.write(b"x" * 10) for _ in range(100)]) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    spool.close()
    spool.write(b"late")
    assert spool.read() == "x" * 4000
    spool.discard()
