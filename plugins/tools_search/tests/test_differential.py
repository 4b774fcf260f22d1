"""Both backends and ripgrep itself give the same answer, for every construct of the dialect.

Trees are generated from bytes that stress the dialect: Unicode letters,
combining marks, digits of other scripts, every kind of white space (and the
control characters Python's ``\\s`` takes for space), invalid UTF-8 and Latin-1
lines, CRLF, lines far longer than the shown cap, and binary files (a NUL early,
late, or past ripgrep's first buffer). Each pattern of the corpus (one or more
for every construct ``agentkit_tools_search.dialect`` documents) runs through
the native backend, the rg backend and a bare ``rg --json`` on the same files;
pages are followed through their ``offset`` notices to the end, small pages
included, so caps and continuation are compared too.
"""

from __future__ import annotations

import base64
import json
import random
import subprocess
from typing import Any

import pytest

# (construct, pattern): every construct the dialect documents.
CORPUS = [
    ("literal", "alpha"),
    ("literal non-ASCII", "café"),
    ("dot", "a.c"),
    ("dot across invalid bytes", "caf."),
    ("class", "[abc]b"),
    ("range", "[d-f]ix"),
    ("negated class", "x[^a-z ]y"),
    ("nested class", "[a[0-9]]z"),
    ("leading ] in class", "[]x]"),
    ("class intersection", "x[a-z&&[^aeiou]]y"),
    ("class difference", "[\\w--\\d]{3}"),
    ("class symmetric difference", "[a-g~~d-q]q"),
    ("posix alnum", "[[:alnum:]]{4}"),
    ("posix alpha", "^[[:alpha:]]+$"),
    ("posix blank", "a[[:blank:]]b"),
    ("posix cntrl", "[[:cntrl:]]"),
    ("posix digit", "[[:digit:]]{2}"),
    ("posix graph", "^[[:graph:]]+$"),
    ("posix lower", "^[[:lower:]]+ "),
    ("posix print", "^[[:print:]]{30,}$"),
    ("posix punct", "[[:punct:]]{2}"),
    ("posix space", "^[[:space:]]+return"),
    ("posix upper", "[[:upper:]]{2}"),
    ("posix word", "[[:word:]]+_"),
    ("posix xdigit", "0x[[:xdigit:]]+"),
    ("posix negated", "a[[:^alpha:][:^space:]]"),
    ("digit", "\\d\\d"),
    ("not digit", "\\D1"),
    ("space", "a\\sb"),
    ("not space", "a\\Sb"),
    ("word", "^\\w+$"),
    ("not word", "x\\Wy"),
    ("hex escape", "\\x41\\x{42}"),
    ("unicode escape", "\\u00e9|\\u{3b1}"),
    ("escaped punctuation", "\\.\\*\\(\\)\\[\\]\\{\\}\\|\\-"),
    ("tab escape", "\\t"),
    ("anchors", "^alpha|a$"),
    ("text anchors", "\\Aa|c\\z"),
    ("word boundary", "\\bfix\\b"),
    ("word boundary unicode", "\\bcafé\\b"),
    ("not word boundary", "\\Bix"),
    ("start and end of word", "\\<div\\>"),
    ("word boundary start/end", "\\b{start}fix\\b{end}"),
    ("half boundaries", "\\b{start-half}fix|ab\\b{end-half}"),
    ("not word boundary next to invalid bytes", " \\B"),
    ("half boundaries next to invalid bytes", "\\b{end-half} |[^a]\\b{start-half}"),
    ("boundaries repeated", "\\b{2}fix\\B{1,}"),
    ("alternation", "TODO|fix|"),
    ("group", "(al|ga)(pha|mma)"),
    ("named group", "(?P<first>al)(?<second>pha)"),
    ("non-capturing group", "(?:ab)+c"),
    ("case-insensitive flag", "(?i)ALPHA"),
    ("case flag off", "(?-i:Beta)"),
    ("scoped case", "a(?i:B)c"),
    ("multi-line flag", "(?m)^a"),
    ("dot-all flag", "(?s)a.b"),
    ("verbose flag", "(?x) a l  p # comment\n h a"),
    ("swap greed flag", "(?U)a+b"),
    ("star", "ab*c"),
    ("plus", "o+r"),
    ("optional", "colou?r"),
    ("counted", "o{2}"),
    ("counted open", "o{2,}"),
    ("counted range", "[a-z]{2,3}_"),
    ("lazy", "a.*?z"),
    ("nested repetition", "(ab*)+"),
    ("case folding kelvin", "(?i)k"),
    ("case folding sharp s", "(?i)ß"),
    ("case folding dotted and dotless i", "[hi]n|\u0131|\u0130|\\x{131}"),
    ("case folding negated class", "[^i]x|[^\u0131]n"),
    ("case folding sigma", "(?i)\u03c3"),
    ("long line", "(long){3}"),
]
# Refused by ripgrep, so by both backends.
INVALID = [
    "(?<=a)b",
    "(a)\\1",
    "a\\Z",
    "(unclosed",
    "a\\nb",
    "[z-a]",
    "a{2,1}",
    "*a",
    "\\e",
    "(?i-i)a",
    "a\\",
    "[a",
    "a)",
    "\\b{foo}",
    "\\x{110000}",
    "[a-\\d]",
]
# In the dialect, but only ripgrep can match them: the native backend names them.
RG_ONLY = ["\\p{Greek}", "\\pL+", "(?-u:\\xff)", "(?R)c$"]

PIECES = [
    b"alpha",
    b"Beta",
    b"gamma",
    b"ALPHA",
    b"fix",
    b"fixture",
    b"prefix",
    b"TODO",
    b"div",
    b"<div>",
    b"divx",
    b"x1",
    b"42",
    b"0xBEEF",
    b"abc",
    b"ab_c",
    b"a-b",
    b"colour",
    b"color",
    b"caf\xc3\xa9",
    b"cafe\xcc\x81",
    b"caf\xe9",
    b"\xff\xfe",
    b"\xe2\x82",
    b"\xce\xb1\xce\xb2",
    b"\xd0\xb6",
    b"\xc4\xb1n",
    b"\xc4\xb0x",
    b"In",
    b"\xcf\x82",
    b"\xe4\xb8\xad",
    b"\xd9\xa3\xd9\xa4",
    b"\xe2\x84\xaa",
    b"stra\xc3\x9fe",
    b"STRASSE",
    b"a b",
    b"a\tb",
    b"a\x1cb",
    b"a\xc2\xa0b",
    b"a\xe2\x80\x83b",
    b"a\x0bb",
    b"aXb",
    b"xby",
    b"xay",
    b"x\xffy",
    b"x y",
    b"x_y",
    b"qq",
    b"dq",
    b"AB",
    b"oo",
    b"ooo",
    b"a.*()[]{}|-",
    b"\t",
    b"    return None",
    b"return",
    b"ab",
    b"abbc",
    b"aabab",
    b"az",
    b"a\rb",
    b"#",
    b"!!",
    b"\x7f",
]


#: The pieces of a tree that is all ASCII: the native backend matches such files with the
#: expression made for ASCII texts, which must find the same lines.
ASCII_PIECES = [piece for piece in PIECES if piece.isascii()]


def _line(rng: random.Random, long_lines: bool = True, pieces: list[bytes] = PIECES) -> bytes:
    line = b" ".join(rng.choice(pieces) for _ in range(rng.randint(0, 5)))
    if long_lines and rng.random() < 0.03:
        line += b" " + b"long" * 300
    return line


def _content(rng: random.Random, long_lines: bool = True, pieces: list[bytes] = PIECES) -> bytes:
    ending = b"\r\n" if rng.random() < 0.15 else b"\n"
    data = ending.join(_line(rng, long_lines, pieces) for _ in range(rng.randint(0, 25)))
    data += ending if rng.random() < 0.8 else b""
    kind = rng.random()
    if kind < 0.06:
        return b"\x00" + data
    if kind < 0.12:
        return data + b"\x00tail\n"
    if kind < 0.14:
        return data + b"filler alpha\n" * 7000 + b"\x00"
    return data


def _make_trees(factory, name: str, long_lines: bool, seeds: int = 2, ascii_only: bool = False) -> list:
    made = []
    for seed in range(seeds):
        rng = random.Random(seed)
        root = factory.mktemp(f"{name}{seed}")
        for n in range(14):
            directory = rng.choice(["", "d1/", "d2/", "d1/deep/", ".hidden/"])
            path = root / f"{directory}f{n}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(_content(rng, long_lines, ASCII_PIECES if ascii_only else PIECES))
        made.append(root)
    return made


@pytest.fixture(scope="module")
def trees(tmp_path_factory) -> list:
    """Two trees of every kind of text, and one all ASCII (see ``ASCII_PIECES``)."""
    mixed = _make_trees(tmp_path_factory, "tree", long_lines=True)
    return mixed + _make_trees(tmp_path_factory, "ascii", long_lines=True, seeds=1, ascii_only=True)


@pytest.fixture(scope="module")
def short_trees(tmp_path_factory) -> list:
    """Without the long lines: Python's backtracking can take cubic time on a random
    composition like ``[a-z]+[a-z]+ +`` over 1,200 letters, where Rust's engine is linear."""
    return _make_trees(tmp_path_factory, "short", long_lines=False)


def _pages(search, **arguments: Any) -> tuple[str | None, list[tuple[str, int, str]], int | None]:
    """Every match, following the offset notices; (error, matches, files_searched of page 1)."""
    found: list[tuple[str, int, str]] = []
    offset, first_count = 1, None
    while True:
        result = search(offset=offset, **arguments)
        if not result.ok:
            return result.error, found, None
        if first_count is None:
            first_count = result.data["files_searched"]
        found += [(m["file"], m["line"], m["text"]) for m in result.data["matches"]]
        if not result.data["truncated"]:
            return None, found, first_count
        offset = len(found) + 1


def _bare_rg(rg: str, root, pattern: str, ignore_case: bool) -> tuple[int, dict]:
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    command = [rg, "--json", "--no-config", "--no-ignore", "--hidden", "--encoding", "none"]
    command += ["--ignore-case" if ignore_case else "--case-sensitive", "-e", pattern, "--", *files]
    done = subprocess.run(command, cwd=root, capture_output=True, check=False)
    lines: dict[str, list[int]] = {}
    # ripgrep writes each file's events together: begin, its matches, end. The matches are read at
    # the end event, and only if the file is not binary: a binary file's (thousands, in the filler
    # files) are dropped unread.
    matches: list[bytes] = []
    for raw in done.stdout.splitlines():
        if raw.startswith(b'{"type":"match"'):
            matches.append(raw)
            continue
        event = json.loads(raw)
        if event["type"] == "match":  # spelled otherwise than expected: kept all the same
            matches.append(raw)
        elif event["type"] == "end" and event["data"]["binary_offset"] is None:
            for match in (json.loads(line)["data"] for line in matches):
                lines.setdefault(match["path"]["text"], []).append(match["line_number"])
        if event["type"] in ("begin", "end"):
            matches = []
    return done.returncode, lines


def _decode(field: dict) -> str:
    if "text" in field:
        return field["text"]
    return base64.b64decode(field["bytes"]).decode("utf-8", "replace")


@pytest.mark.parametrize(("construct", "pattern"), CORPUS, ids=[c for c, _ in CORPUS])
def test_every_construct_gets_one_answer(trees, workspace_search, rg, construct, pattern):
    for root in trees:
        bare = {ignore_case: _bare_rg(rg, root, pattern, ignore_case) for ignore_case in (False, True)}
        for ignore_case, max_matches in ((False, 100), (True, 100), (True, 9)):
            arguments = {"pattern": pattern, "case_sensitive": not ignore_case}
            arguments["max_matches"] = max_matches
            native = _pages(workspace_search(root, "native"), **arguments)
            ripgrep = _pages(workspace_search(root, "rg"), **arguments)
            assert native[0] is None, (construct, native[0])
            assert native == ripgrep, (construct, root.name, ignore_case, max_matches)
            code, expected = bare[ignore_case]  # bare rg has no pages: one run answers both page sizes
            assert code in (0, 1), (construct, code)
            got: dict[str, list[int]] = {}
            for file, line, _ in ripgrep[1]:
                got.setdefault(file, []).append(line)
            assert got == expected, (construct, root.name, ignore_case)


@pytest.mark.parametrize("pattern", INVALID)
def test_what_rg_refuses_every_backend_refuses(trees, workspace_search, rg, pattern):
    root = trees[0]
    assert (
        subprocess.run([rg, "-e", pattern, "--", "."], cwd=root, capture_output=True).returncode
        == 2
    )
    for backend in ("native", "rg"):
        assert workspace_search(root, backend)(pattern=pattern).error == "invalid_pattern"


@pytest.mark.parametrize("pattern", RG_ONLY)
def test_what_only_rg_can_match_is_refused_natively_and_rg_agrees(
    trees, workspace_search, rg, pattern
):
    for root in trees:
        native = workspace_search(root, "native")(pattern=pattern, case_sensitive=True)
        assert native.error == "pattern_needs_rg"
        error, found, _ = _pages(workspace_search(root, "rg"), pattern=pattern, case_sensitive=True)
        assert error is None
        _, expected = _bare_rg(rg, root, pattern, False)
        got: dict[str, list[int]] = {}
        for file, line, _ in found:
            got.setdefault(file, []).append(line)
        assert got == expected


FRAGMENTS = [
    "a",
    "b",
    "x",
    "é",
    "1",
    ".",
    "\\.",
    "\\d",
    "\\D",
    "\\w",
    "\\W",
    "\\s",
    "\\S",
    "\\b",
    "\\B",
    "\\<",
    "\\>",
    "^",
    "$",
    "[a-c]",
    "[^a]",
    "[[:alpha:]]",
    "[[:^digit:]]",
    "[\\w&&[^x]]",
    "[a-z--b]",
    "(?i:a)",
    "(?:ab|c)",
    "(a|)",
    "\\x41",
    "[]a]",
    "[\\s\\d]",
    "\\u{e9}",
    " ",
]
QUANTIFIERS = ["", "", "", "*", "+", "?", "{2}", "{1,}", "{0,2}", "*?", "+?"]


def _random_pattern(rng: random.Random) -> str:
    pieces = []
    for _ in range(rng.randint(1, 4)):
        pieces.append(rng.choice(FRAGMENTS) + rng.choice(QUANTIFIERS))
    pattern = "".join(pieces)
    if rng.random() < 0.15:
        pattern = pattern + "|" + rng.choice(FRAGMENTS)
    if rng.random() < 0.1:
        pattern = "(?i)" + pattern
    return pattern


@pytest.mark.parametrize("seed", range(4))
def test_random_compositions_agree_with_rg(short_trees, workspace_search, rg, seed):
    """Constructs combined at random: the native backend refuses or answers as rg does."""
    rng = random.Random(seed)
    root = short_trees[seed % len(short_trees)]
    for _ in range(30):
        pattern = _random_pattern(rng)
        code, expected = _bare_rg(rg, root, pattern, False)
        result = workspace_search(root, "native")(
            pattern=pattern, case_sensitive=True, max_matches=100
        )
        if code == 2:
            assert result.error == "invalid_pattern", pattern
            continue
        assert result.ok, (pattern, result.detail)
        if result.data["truncated"]:
            continue  # pages are compared by the corpus test
        got: dict[str, list[int]] = {}
        for match in result.data["matches"]:
            got.setdefault(match["file"], []).append(match["line"])
        assert got == expected, pattern


SYNTAX = [*"ab{}[]()|*+?^$.\\-&~:,0123 x#<>dwsbBAzu"]
SYNTAX += ["(?", "[:alpha:]", "\\x", "{2}", "{1,2}", "(?i)", "(?x)", "[^", "&&", "--", "~~", "\\b{"]


@pytest.mark.parametrize("seed", range(3))
def test_the_translation_refuses_exactly_what_rg_refuses(rg, seed, tmp_path):
    """Random strings of the dialect's syntax: accepted by both, or refused by both."""
    from agentkit_tools_search.dialect import PatternError, translate

    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    rng = random.Random(seed)
    for _ in range(150):
        pattern = "".join(rng.choice(SYNTAX) for _ in range(rng.randint(1, 7)))
        command = [rg, "--no-config", "-q", "-e", pattern, "--", str(empty)]
        rg_accepts = subprocess.run(command, capture_output=True, check=False).returncode != 2
        try:
            translate(pattern)
            accepted = True
        except PatternError:
            accepted = False
        assert accepted == rg_accepts, pattern
