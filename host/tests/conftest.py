import sys
from pathlib import Path

import pytest

# Test modules import the shared building blocks in host_helpers.py.
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home of the test's own: the user's skills folder is empty unless the test writes one."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home
