"""A type checker reads a run's output as the ``output_type`` it was given.

mypy (the project's checker, docs/decisions/0009) checks two files the way a user's strict
configuration would: ``type_checks/output_types_accepted.py``, whose ``assert_type`` lines must all
hold, and ``type_checks/output_types_rejected.py``, whose marked lines (``# E: <code>``) must each
fail with that error. One mypy process checks both, with a cache of its own (a few seconds).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHECKS = Path(__file__).resolve().parent / "type_checks"
ACCEPTED = CHECKS / "output_types_accepted.py"
REJECTED = CHECKS / "output_types_rejected.py"
ERROR = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+): error: (?P<message>.*)  \[(?P<code>[a-z-]+)\]$")
MARK = re.compile(r"# E: (?P<code>[a-z-]+)\s*$")


@pytest.fixture(scope="module")
def mypy_errors(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple[int, str, str]]]:
    """mypy's errors on the two files, by file name: (line, code, message)."""
    completed = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml"), "--strict",
         "--cache-dir", str(tmp_path_factory.mktemp("mypy_cache")), "--no-pretty", "--show-error-codes",
         str(ACCEPTED), str(REJECTED)],
        cwd=REPO, capture_output=True, text=True, timeout=240,
    )
    assert completed.returncode in (0, 1), completed.stdout + completed.stderr  # 2: mypy itself failed
    errors: dict[str, list[tuple[int, str, str]]] = {}
    for line in completed.stdout.splitlines():
        if match := ERROR.match(line):
            name = Path(match["path"]).name
            errors.setdefault(name, []).append((int(match["line"]), match["code"], match["message"]))
    unexpected = set(errors) - {ACCEPTED.name, REJECTED.name}
    assert not unexpected, completed.stdout  # an error in the host's own code: `make lint` names it
    return errors


def expected_errors(path: Path) -> set[tuple[int, str]]:
    lines = path.read_text().splitlines()
    return {(number, match["code"]) for number, text in enumerate(lines, 1) if (match := MARK.search(text))}


def test_the_output_has_the_type_the_run_was_given(mypy_errors):
    assert mypy_errors.get(ACCEPTED.name, []) == []


def test_using_the_output_as_another_type_is_an_error(mypy_errors):
    expected = expected_errors(REJECTED)
    assert len(expected) >= 7  # the marks were read: the file has that many cases
    assert {(line, code) for line, code, _ in mypy_errors.get(REJECTED.name, [])} == expected
