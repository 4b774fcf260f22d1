"""SSE decoding throughput: agentkit's SSEDecoder beside the Anthropic SDK's own decoder.

Input: the recorded Anthropic Messages streams in ``testdata/anthropic-sdk-python/``
(from anthropics/anthropic-sdk-python, MIT),
each ended with its blank line, concatenated and repeated to a few MB, then
cut into chunks the size a network read returns. Both decoders get the same
chunks; the figure is the best of several runs by CPU time (``time.process_time``,
runs interleaved), in MB/s, and the ratio ours / SDK (above 1 means ours is
faster). A second table adds the strict JSON decoding of every event's data
(what the runtime does per event) beside ``json.loads``.

Goal: the decoder alone (json=none) at least as fast as the SDK's at 64-byte
chunks and at every larger size (one event per chunk, 4 KiB, 64 KiB), each
printed on a goal line with the load average beside it.

Run: ``.venv/bin/python bench/bench_sse.py [--mb 4] [--repeat 5]`` (``BENCH_QUICK=1``: 1 MB, 3 runs).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from agentkit.host.wire import SSEDecoder, loads

SDK_STREAMS = Path(__file__).resolve().parents[1] / "testdata" / "anthropic-sdk-python"


def corpus(megabytes: float) -> bytes:
    streams = [p.read_bytes().rstrip(b"\n") + b"\n\n" for p in sorted(SDK_STREAMS.glob("*.txt"))]
    if not streams:
        sys.exit(f"no recorded streams in {SDK_STREAMS}")
    one = b"".join(streams)
    return one * max(1, int(megabytes * 1024 * 1024 / len(one)))


def chunked(data: bytes, size: int) -> list[bytes]:
    """Fixed-size chunks; size 0 means one chunk per event (how a live stream
    usually arrives: the server flushes each event as it is produced)."""
    if size == 0:
        return [event + b"\n\n" for event in data.split(b"\n\n") if event]
    return [data[i : i + size] for i in range(0, len(data), size)]


def ours(chunks: list[bytes], parse: Callable[[str], object] | None) -> int:
    decoder = SSEDecoder()
    count = 0
    for chunk in chunks:
        for message in decoder.feed(chunk):
            if parse is not None:
                parse(message.data)
            count += 1
    decoder.close()
    return count


def sdk(chunks: list[bytes], parse: Callable[[str], object] | None) -> int:
    from anthropic._streaming import SSEDecoder as VendorDecoder

    count = 0
    for event in VendorDecoder().iter_bytes(iter(chunks)):
        if parse is not None:
            parse(event.data)
        count += 1
    return count


def race(first: Callable[[], int], second: Callable[[], int], repeat: int) -> tuple[float, float]:
    """Best time of each, runs interleaved so a busy machine slows both alike."""
    times: tuple[list[float], list[float]] = ([], [])
    counts: set[int] = set()
    for _ in range(repeat):
        for run, sink in ((first, times[0]), (second, times[1])):
            start = time.process_time()
            counts.add(run())
            sink.append(time.process_time() - start)
    if len(counts) != 1:
        sys.exit(f"the decoders disagree on the number of events: {sorted(counts)}")
    return min(times[0]), min(times[1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    quick = os.environ.get("BENCH_QUICK") == "1"
    parser.add_argument("--mb", type=float, default=1.0 if quick else 4.0, help="corpus size in MB")
    parser.add_argument("--repeat", type=int, default=3 if quick else 7, help="runs per figure (best is kept)")
    args = parser.parse_args(argv)

    data = corpus(args.mb)
    megabytes = len(data) / 1e6
    print(f"corpus: {megabytes:.2f} MB of recorded Anthropic SSE, {data.count(b'event: ')} events")
    print(f"{'chunk':>7} {'json':>6} {'agentkit MB/s':>14} {'anthropic MB/s':>15} {'ratio':>6}")
    goals: list[str] = []
    for size in (0, 64, 4096, 65536):
        chunks = chunked(data, size)
        for label, mine, theirs in (
            ("none", None, None),
            ("yes", lambda s: loads(s), json.loads),
        ):
            t_ours, t_sdk = race(
                lambda m=mine, c=chunks: ours(c, m),
                lambda t=theirs, c=chunks: sdk(c, t),
                args.repeat,
            )
            print(
                f"{size or 'event':>7} {label:>6} {megabytes / t_ours:>14.1f} {megabytes / t_sdk:>15.1f} "
                f"{t_sdk / t_ours:>6.2f}"
            )
            if mine is None:
                ratio = t_sdk / t_ours
                what = f"{size}-byte chunks" if size else "one event a chunk"
                goals.append(f"  SSE decoder, {what}, speed to the Anthropic SDK's: {ratio:.2f}x (goal >= 1x): "
                             f"{'met' if ratio >= 1 else 'not met'}   [load {os.getloadavg()[0]:.1f}]")
    print("json=yes: agentkit's strict loads vs the SDK's path through json.loads")
    print("\n".join(goals))


if __name__ == "__main__":
    main()
