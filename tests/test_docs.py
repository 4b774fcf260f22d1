"""The documentation's code runs, and the plugin contract page lists every hook."""

from __future__ import annotations

import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agentkit.plugin_api.hookspecs import CATEGORIES

REPO = Path(__file__).resolve().parents[1]
DOCS = [*sorted((REPO / "docs").glob("*.md")), REPO / "README.md"]
FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def python_blocks(path: Path) -> list[str]:
    return FENCE.findall(path.read_text())


@pytest.mark.parametrize("page", [p for p in DOCS if python_blocks(p)], ids=lambda p: p.name)
def test_every_python_block_runs(page, tmp_path, monkeypatch):
    """Blocks of one page run in order in one namespace, as a reader would paste them."""
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": f"docs_{page.stem}"}
    for number, block in enumerate(python_blocks(page), 1):
        code = compile(block, f"{page.name} (python block {number})", "exec")
        exec(code, namespace)


def hook_signatures() -> dict[str, str]:
    signatures = {}
    for module in CATEGORIES.values():
        for name, function in vars(module).items():
            if name.startswith("agentkit_"):
                signatures[name] = f"{name}({', '.join(inspect.signature(function).parameters)})"
    return signatures


@pytest.mark.parametrize("hook", sorted(hook_signatures()))
def test_every_hook_is_documented_with_its_exact_signature(hook):
    assert hook_signatures()[hook] in (REPO / "docs" / "plugins.md").read_text()


def suite_test_names(request: pytest.FixtureRequest) -> set[str]:
    """The name of every test function in the suite.

    A run of the whole suite (``make test``) has just collected it: its own
    items are the answer. Any narrower run collects the suite once more.
    """
    config = request.config
    whole = (config.args_source is pytest.Config.ArgsSource.TESTPATHS and not config.option.keyword
             and not config.option.markexpr and not config.option.deselect
             and not config.option.ignore and not config.option.ignore_glob)
    if whole:
        return {getattr(item, "originalname", item.name) for item in request.session.items}
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-k", "test_hook_", "-p", "no:randomly"],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    ).stdout
    return set(re.findall(r"::(test_hook_\w+)", collected))


def test_every_hook_has_a_test_named_after_it(request):
    """A hook without a test_hook_<name> test in the suite is untested contract."""
    names = suite_test_names(request)
    missing = [hook for hook in hook_signatures() if not any(name.startswith(f"test_hook_{hook}") for name in names)]
    assert missing == []
