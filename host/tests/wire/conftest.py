"""Locate the shared third-party test material (see REFERENCES.md)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def testdata_dir() -> Path:
    default = Path(__file__).resolve().parents[3] / ".." / "shared" / "testdata"
    return Path(os.environ.get("AGENTKIT_TESTDATA", default))


@pytest.fixture
def testdata() -> Path:
    root = testdata_dir()
    if not root.is_dir():
        pytest.skip(f"shared test data not found at {root} (set AGENTKIT_TESTDATA)")
    return root
