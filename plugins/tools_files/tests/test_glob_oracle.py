"""find_files globs match what git's wildmatch (WM_PATHNAME) matches, checked against git itself.

A generated tree is committed to a throwaway repository and every generated
glob is asked of ``git --glob-pathspecs ls-files`` and of the glob dialect. A
glob without ``/`` matches a name at any depth in our dialect, so git is asked
``**/<glob>`` for it. Names hold the glob's own special characters, non-ASCII
bytes and POSIX class members; globs mix ``*``, ``**``, ``?``, classes with
ranges, negation, POSIX names and escapes (escaped range bounds included).
Globs git cannot read (an unclosed class) are left to ``test_glob``. Git's
pathspec code compares the literal start of a glob (up to its first wildcard)
before it calls wildmatch on the rest, so there a ``**`` right after that start
counts as a whole segment (``src**`` lists ``src/a/b``; ``[s]rc**`` does not):
a quirk of pathspecs, not of wildmatch, so such globs are not generated. Git's pathspec rule that a literal directory name matches everything below it
is not part of a glob, so globs naming a directory are not generated.
"""

from __future__ import annotations

import random
import subprocess

import pytest

from agentkit.plugin_api.workspace import compile_glob

NAME_CHARS = ["a", "b", "A", "x", "1", "4", "G", "_", "-", ".", "*", "?", "[", "]", "!", "é", " "]
DIRS = ["src", "lib", "a", "deep", "x1"]
TOKENS = [
    "*", "*", "**", "?", "a", "b", "x", "1", ".", "[a-c]", "[!a]", "[^ab]", "[[:digit:]]",
    "[[:alpha:]]", "[[:upper:]]", "[[:punct:]]", "[[:space:]]", "[\\1-\\3]", "[\\]]", "[]a]",
    "\\*", "\\?", "\\[", "[*]", "[a-]", "é", "[x-z1]", "src", "x1", "de",
]


def _tree(rng: random.Random) -> list[str]:
    paths = set()
    for _ in range(60):
        name = "".join(rng.choice(NAME_CHARS) for _ in range(rng.randint(1, 4)))
        if name.strip(" .") != name or name in (".", ".."):
            name = "n" + name.strip(" .") + "n"
        depth = rng.choice([0, 0, 1, 2, 3])
        directories = [rng.choice(DIRS) for _ in range(depth)]
        paths.add("/".join([*directories, name]))
    # A name that is also a directory cannot be both.
    directories = {p.rsplit("/", 1)[0] for p in paths if "/" in p}
    prefixes = {"/".join(d.split("/")[: i + 1]) for d in directories for i in range(d.count("/") + 1)}
    return sorted(p for p in paths if p not in prefixes)


def _glob(rng: random.Random) -> str:
    segments = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        segment = "".join(rng.choice(TOKENS) for _ in range(rng.randint(1, 3)))
        segments.append(segment)
    if rng.random() < 0.2:
        segments.insert(0, "**")
    if rng.random() < 0.15:
        segments.append("**")
    elif rng.random() < 0.15:
        segments[-1] += "**"  # not a whole segment: a "*"
    return "/".join(segments)


def _literal_start_then_double_star(glob: str) -> bool:
    first_wildcard = min((glob.find(c) for c in "*?[\\" if c in glob), default=len(glob))
    return first_wildcard > 0 and glob.startswith("**", first_wildcard)


@pytest.fixture(scope="module")
def repository(tmp_path_factory):
    root = tmp_path_factory.mktemp("globs")
    rng = random.Random(14)
    paths = _tree(rng)
    for path in paths:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("x")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    return root, paths


def _git(root, glob: str) -> set[str]:
    listed = subprocess.run(
        ["git", "-c", "core.quotepath=off", "--glob-pathspecs", "ls-files", "-z", "--", glob],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout
    return {item.decode() for item in listed.split(b"\x00") if item}


@pytest.mark.parametrize("seed", range(12))
def test_globs_match_what_git_matches(repository, seed):
    root, paths = repository
    rng = random.Random(seed)
    directories = {"/".join(p.split("/")[: i + 1]) for p in paths for i in range(p.count("/"))}
    for _ in range(25):
        glob = _glob(rng)
        if glob in directories or glob.startswith(":") or _literal_start_then_double_star(glob):
            continue
        asked = glob if "/" in glob else f"**/{glob}"
        expected = _git(root, asked)
        compiled = compile_glob(glob)
        if any(alternative.regex is None for alternative in compiled.alternatives):
            continue  # git cannot read it either; we match the name spelled so (test_glob)
        got = {path for path in paths if compiled.matches(path)}
        assert got == expected, (glob, sorted(got ^ expected))


@pytest.mark.parametrize(
    ("glob", "name", "expected"),
    [
        ("[[:digit:]].txt", "1.txt", True),
        ("[[:digit:]].txt", "a.txt", False),
        ("[\\1-\\3].txt", "2.txt", True),
        ("[\\1-\\3].txt", "4.txt", False),
        ("[\\1-\\3].txt", "G.txt", False),
        ("?.txt", "é.txt", False),  # a byte, as git: é is two
        ("??.txt", "é.txt", True),
    ],
)
def test_the_issue_cases(glob, name, expected):
    assert compile_glob(glob).matches(name) is expected
