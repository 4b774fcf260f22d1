"""The third-party data the suite tests against ships in the repository, each source with its licence.

A fresh clone must run every test; the data is someone else's work, so each
folder of it carries the source's licence and a ``PROVENANCE.md`` naming where
it came from (see ``testdata/README.md``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

#: Every folder of third-party data, and a file each must hold (proof it is the data, not a stub).
SOURCES = {
    "testdata/pydantic-ai": "test_openai/test_valid_response.yaml",
    "testdata/anthropic-sdk-python": "basic_response.txt",
    "testdata/ollama": "docs/api.md",
    "host/tests/wire/data/jsontestsuite": "test_parsing/y_object.json",
    "plugins/tools_files/tests/data/node-ignore": "node-ignore-cases.json",
}


@pytest.mark.parametrize("folder", sorted(SOURCES))
def test_each_source_is_in_the_repository_with_its_licence_and_provenance(folder: str) -> None:
    root = REPO / folder
    assert (root / SOURCES[folder]).is_file(), f"{folder}: the data is missing"
    assert "Permission is hereby granted" in (root / "LICENSE").read_text(encoding="utf-8")
    provenance = (root / "PROVENANCE.md").read_text(encoding="utf-8")
    assert "https://github.com/" in provenance and "commit" in provenance, folder


def test_no_other_folder_claims_provenance() -> None:
    """A new source is added to ``SOURCES`` (and to ``testdata/README.md``), not just dropped in."""
    found = set()
    for folder, subfolders, files in os.walk(REPO):
        subfolders[:] = [name for name in subfolders if not name.startswith((".", "__"))]
        if "PROVENANCE.md" in files:
            found.add(Path(folder).relative_to(REPO).as_posix())
    assert found == set(SOURCES)
