"""The documentation's code runs, the plugin contract page lists every hook, and the events reference every event."""

from __future__ import annotations

import dataclasses
import inspect
import re
import subprocess
import sys
import typing
from pathlib import Path

import pytest

import agentkit.plugin_api as plugin_api
from agentkit.host import Agent
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
        # dont_inherit: a reader pasting a block has no `from __future__ import annotations`
        code = compile(block, f"{page.name} (python block {number})", "exec", dont_inherit=True)
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


# -- the events reference ----------------------------------------------------------------

EVENTS_PAGE = REPO / "docs" / "events.md"
EVENT_HEADING = re.compile(r"^### `(\w+)`: (\w+)$", re.M)


def event_classes() -> dict[str, type]:
    """Every class an agent run or a provider stream can emit: the members of ``Event``."""
    return {cls.__name__: cls for cls in typing.get_args(plugin_api.Event)}


def documented_events() -> dict[str, tuple[str, dict[str, str]]]:
    """Class name -> (the ``type`` its heading names, {field: type}) from the page's tables."""
    text = EVENTS_PAGE.read_text()
    headings = list(EVENT_HEADING.finditer(text))
    documented = {}
    for heading, following in zip(headings, [*headings[1:], None], strict=True):
        section = text[heading.end():following.start() if following else len(text)]
        section = section.split("\n## ", 1)[0]  # a section ends at the next heading of any level
        fields = {}
        for line in section.splitlines():
            cells = [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            if len(cells) == 3 and cells[0].startswith("`"):
                fields[cells[0].strip("`")] = cells[1].strip("`")
        documented[heading.group(2)] = (heading.group(1), fields)
    return documented


def test_every_event_class_is_exported_and_the_reference_documents_no_other():
    assert set(event_classes()) <= set(plugin_api.__all__)
    assert sorted(documented_events()) == sorted(event_classes())


@pytest.mark.parametrize("name", sorted(event_classes()))
def test_the_events_reference_documents_each_field_with_its_type(name):
    """The reference lists exactly the event's fields, each with the type the code declares."""
    cls = event_classes()[name]
    declared = {field.name: str(field.type) for field in dataclasses.fields(cls) if field.name != "type"}
    type_name, fields = documented_events()[name]
    assert type_name == cls.__dataclass_fields__["type"].default
    assert fields == declared


def test_the_events_reference_names_subscribe_with_its_signature():
    parameters = [name for name in inspect.signature(Agent.subscribe).parameters if name != "self"]
    assert f"`Agent.subscribe({', '.join(parameters)})`" in EVENTS_PAGE.read_text()


# -- links -------------------------------------------------------------------------------

LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCED = re.compile(r"^```.*?^```", re.S | re.M)
INLINE_CODE = re.compile(r"`[^`\n]*`")
PAGES = [*DOCS, REPO / "CHANGELOG.md"]


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives the page's headings."""
    headings = re.findall(r"^#+ (.+)$", FENCED.sub("", page.read_text()), re.M)
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-") for heading in headings}


def reaches(page: Path, target: str) -> bool:
    path, _, anchor = target.partition("#")
    linked = (page.parent / path).resolve() if path else page
    if not linked.exists():
        return False
    return not anchor or linked.suffix != ".md" or anchor in anchors(linked)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_reaches_a_file_and_heading(page):
    """Links into the code name modules by path: a moved module must take its links along."""
    prose = INLINE_CODE.sub("", FENCED.sub("", page.read_text()))  # `f[T](x)` is code, not a link
    targets = [target for target in LINK.findall(prose)
               if not re.match(r"[a-z]+:", target)]  # https:, mailto: are not checked
    assert [target for target in targets if not reaches(page, target)] == []
