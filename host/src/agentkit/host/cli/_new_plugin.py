"""``agentkit new-plugin CATEGORY NAME``: start a plugin distribution from the template.

The project it writes installs, loads, passes ``agentkit validate-plugins
--path`` and its own tests (conformance included) as it is: the author
starts from something that keeps the contract and changes it from there.
Templates live beside this module in ``plugin_template/``.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import TYPE_CHECKING

from agentkit import plugin_api
from agentkit.plugin_api.errors import UsageError

if TYPE_CHECKING:
    from pathlib import Path

# pathlib, shlex and importlib.util are imported by the functions that write the project, so that
# 'agentkit new-plugin --help' costs argparse and this module only.
TEMPLATES = os.path.join(os.path.dirname(__file__), "plugin_template")
NAME = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")
#: The word each category puts in a distribution name (agentkit-provider-x, like the built-ins); its keys are
#: the categories of ``agentkit.plugin_api.hookspecs.CATEGORIES``, spelled out so that parsing the command
#: line does not import the hook specifications.
DIST_WORD = {"providers": "provider", "tools": "tools", "skills": "skills", "hooks": "hooks"}
#: Templates of a category that start a plugin of a particular kind: ``guardrails`` is a hooks plugin whose
#: hooks are the two guardrails (its own template and tests), in the ``hooks`` category like any other.
KINDS = {"guardrails": "hooks"}
SUMMARIES = {
    "tools": "An agentkit tool plugin: a tool that repeats a text.",
    "hooks": "An agentkit hooks plugin: refuses tool calls that touch protected files.",
    "skills": "An agentkit skills plugin: one skill whose instructions the model reads on demand.",
    "providers": "An agentkit provider plugin: a codec for one wire API.",
    "guardrails": "An agentkit guardrail plugin: refuses prompts and answers that carry a secret.",
}


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "new-plugin",
        description="Write a plugin project (pyproject.toml with its entry point, a package with one working "
        "hook, tests using the conformance plugin, README) that passes 'agentkit validate-plugins --path'.",
    )
    parser.add_argument("category", type=_category, metavar="CATEGORY",
                        help=f"the plugin's category: {', '.join(sorted(DIST_WORD))} (or the singular); "
                        "'guardrail' writes a hooks plugin with an input and an output guardrail")
    parser.add_argument("name", help="the plugin's name: lower-case letters, digits and '_', starting with a letter")
    parser.add_argument("--dir", metavar="DIR",
                        help="the project directory to create (default: ./agentkit-<category>-<name>)")
    parser.set_defaults(handler=run)


#: The singular each category also answers to (``agentkit new-plugin provider x``).
SINGULAR = {"provider": "providers", "tool": "tools", "skill": "skills", "hook": "hooks", "guardrail": "guardrails"}


def _category(value: str) -> str:
    category = SINGULAR.get(value, value)
    if category not in DIST_WORD and category not in KINDS:
        raise argparse.ArgumentTypeError(
            f"invalid category {value!r}: choose from {', '.join(sorted(DIST_WORD))} (or the singular)")
    return category


def install_command(project: Path) -> str:
    """A command that installs ``project`` editable into the environment running agentkit.

    pip when that environment has it; else uv, which a uv-made ``.venv``
    (without pip) is installed with.
    """
    import importlib.util
    import shlex
    import shutil

    python = shlex.quote(sys.executable)
    target = shlex.quote(str(project))
    if importlib.util.find_spec("pip") is not None:
        return f"{python} -m pip install -e {target}"
    if shutil.which("uv"):
        return f"uv pip install --python {python} -e {target}"
    return f"{python} -m ensurepip && {python} -m pip install -e {target}"


def _range(installed: str) -> str:
    """``>=X.Y,<next``: what a plugin built against ``installed`` admits."""
    parts = [int(p) for p in re.findall(r"\d+", installed)[:2]] + [0, 0]
    major, minor = parts[0], parts[1]
    upper = f"{major}.{minor + 1}" if major == 0 else f"{major + 1}"
    return f">={major}.{minor},<{upper}"


def _conformance_range() -> str:
    # importlib.metadata scans sys.path: paid only when a project is written, not by --help.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return _range(version("agentkit-conformance"))
    except PackageNotFoundError:
        return _range(plugin_api.__version__)


def render(category: str, name: str) -> dict[str, str]:
    """Relative path -> text of the project for plugin ``name`` of ``category`` (or of a kind, :data:`KINDS`)."""
    kind, category = category, KINDS.get(category, category)
    dist = f"agentkit-{DIST_WORD[category]}-{name.replace('_', '-')}"
    package = dist.replace("-", "_")
    values = {
        "name": name, "category": category, "dist": dist, "package": package,
        "summary": SUMMARIES[kind], "function": f"{name}_repeat", "env": name.upper(),
        "api_range": _range(plugin_api.__version__), "conformance_range": _conformance_range(),
    }

    def fill(template: str) -> str:
        with open(os.path.join(TEMPLATES, template), encoding="utf-8") as file:
            return file.read().format(**values)

    files = {
        "pyproject.toml": fill("pyproject.toml.tmpl"),
        "README.md": fill("README.md.tmpl"),
        f"src/{package}/__init__.py": fill(f"{kind}.py.tmpl"),
        "tests/test_plugin.py": fill(f"test_{kind}.py.tmpl"),
        f"src/{package}/py.typed": "",  # PEP 561: checkers read the plugin's own annotations
    }
    if category == "providers":
        files[f"src/{package}/_responder.py"] = fill("providers_responder.py.tmpl")
    if category == "skills":  # the model reads the instructions from a file, on demand
        files[f"src/{package}/instructions.md"] = fill("skills_instructions.md.tmpl")
    return files


def run(args: argparse.Namespace) -> int:
    import shlex
    from pathlib import Path

    if not NAME.match(args.name):
        raise UsageError(f"invalid plugin name {args.name!r}: use lower-case letters, digits, '-' and '_', "
                         "starting with a letter (at most 40), e.g. 'greet'")
    name = args.name.replace("-", "_")  # it also names Python identifiers
    files = render(args.category, name)
    word = DIST_WORD[KINDS.get(args.category, args.category)]
    target = Path(args.dir) if args.dir else Path(f"agentkit-{word}-{name.replace('_', '-')}")
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise UsageError(f"{target} already exists and is not empty: choose another --dir")
    for relative, text in files.items():
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    print(f"Created {target}/ ({len(files)} files): the {args.category} plugin {name!r}.")
    print(f"Next: agentkit validate-plugins --path {shlex.quote(str(target))}   and   {install_command(target)}")
    return 0
