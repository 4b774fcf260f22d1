"""The one set of checks every skill passes, whichever way it arrived."""

from __future__ import annotations

import atexit
import hashlib
import re
import shutil
import tempfile
import threading
from pathlib import Path

from packaging.version import InvalidVersion, Version

from agentkit.plugin_api import Skill, Tool
from agentkit.plugin_api import __version__ as API_VERSION

from ._manifest import SkillRejected

__all__ = ["SKILL_NAME", "check_skill", "skill_name_problem"]

#: What a skill may be called: 1-64 letters, digits, ``_``, ``.`` or ``-``, not starting with ``-`` (it would
#: read as an option on a command line). Match with ``fullmatch``: ``$`` would let a trailing newline in.
SKILL_NAME = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_.-]{0,63}")

_inline_lock = threading.Lock()
_inline_dir: Path | None = None


def check_skill(skill: Skill, where: str) -> Path:
    """The absolute path of ``skill``'s instructions, once the skill passed every check.

    :param where: the plugin or the manifest, named in the message of a rejection.
    :raises SkillRejected: naming ``where`` and the fix.
    """
    problem = skill_name_problem(skill.name)
    if problem is not None:
        raise SkillRejected(f"{where}: {problem}")
    if not isinstance(skill.description, str) or not skill.description.strip():
        raise SkillRejected(f"{where}: skill {skill.name!r} has no description; say when the model should use it")
    for item in skill.tools:
        if not isinstance(item, (str, Tool)):
            raise SkillRejected(f"{where}: skill {skill.name!r}: tools holds {type(item).__name__}; "
                                "list tool names or Tool objects")
    if not all(isinstance(name, str) for name in skill.overrides):
        raise SkillRejected(f"{where}: skill {skill.name!r}: overrides must be tool names")
    _check_api_version(skill, where)
    if skill.path is not None:
        path = Path(skill.path).expanduser()
        if not path.is_absolute():
            raise SkillRejected(f"{where}: skill {skill.name!r}: path {str(path)!r} is relative; "
                                "give an absolute path (e.g. Path(__file__).parent / 'SKILL.md')")
        if not path.is_file():
            raise SkillRejected(f"{where}: skill {skill.name!r}: the instructions file {path} is missing; "
                                "ship it with the skill or fix the path")
        # The folder is resolved, the file name kept: the model's read tool is granted
        # that folder, and a linked file pointing elsewhere does not move the grant.
        return path.parent.resolve() / path.name
    if not (skill.instructions or "").strip():
        raise SkillRejected(f"{where}: skill {skill.name!r} has no instructions; give path= (a file) or instructions=")
    return _materialise(skill)


def skill_name_problem(name: object) -> str | None:
    """Why ``name`` cannot name a skill (a sentence naming the fix), or ``None``."""
    if isinstance(name, str) and SKILL_NAME.fullmatch(name):
        return None
    return (f"the skill name {name!r} is not 1-64 letters, digits, '_', '.' or '-' (and does not start with '-'); "
            "rename it")


def _check_api_version(skill: Skill, where: str) -> None:
    if skill.min_api_version is None:
        return
    try:
        wanted = Version(skill.min_api_version)
    except InvalidVersion as exc:
        raise SkillRejected(f"{where}: skill {skill.name!r}: min API version {skill.min_api_version!r} is not a "
                            "version number") from exc
    try:
        installed = Version(API_VERSION)
    except InvalidVersion:  # a source tree without metadata: nothing to compare
        return
    if installed < wanted:
        raise SkillRejected(f"{where}: skill {skill.name!r} needs agentkit-plugin-api {wanted} or newer; "
                            f"{installed} is installed: upgrade agentkit-plugin-api")


def _materialise(skill: Skill) -> Path:
    """Instructions given as text, written once to a private file the model's read tool can open.

    The file name is derived from the content, so one process always shows the
    same path for the same skill; the directory is private to the process and
    removed when it exits.
    """
    global _inline_dir
    with _inline_lock:
        if _inline_dir is None:
            _inline_dir = Path(tempfile.mkdtemp(prefix="agentkit-skills-")).resolve()
            atexit.register(shutil.rmtree, _inline_dir, True)
        digest = hashlib.sha256(skill.instructions.encode("utf-8")).hexdigest()[:16]
        folder = _inline_dir / f"{skill.name}-{digest}"
        path = folder / "SKILL.md"
        if not path.is_file():
            folder.mkdir(mode=0o700, exist_ok=True)
            path.write_text(skill.instructions, encoding="utf-8")
        return path
