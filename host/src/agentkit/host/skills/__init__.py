"""Skills: loaded from plugins and folders, checked once, shown to the model as a block.

Modules: ``_frontmatter`` (the ``SKILL.md`` header), ``_manifest`` (both
folder formats), ``_check`` (the checks every skill passes), ``_tiers``
(discovery and precedence, behind the project trust gate), ``_folders``
(where they are looked for, and whether an agent may have any), ``_block``
(what the model sees).
"""

from __future__ import annotations

from agentkit.plugin_api._lazy import lazy_exports

# The names below load on first use (PEP 562): the host imports single modules of this package
# (an agent given no skills needs none of the checks, the manifests or packaging), and importing one
# runs this file first. The flag is spelled out, as type checkers honour it and typing costs more
# than this package.
TYPE_CHECKING = False
if TYPE_CHECKING:
    # `import X as X` marks each name as re-exported (PEP 484), for type checkers.
    # isort: off
    from ._block import READ_TOOLS as READ_TOOLS, read_tool as read_tool, render_skills_block as render_skills_block
    from ._check import SKILL_NAME as SKILL_NAME, check_skill as check_skill
    from ._folders import PROJECT_SKILLS as PROJECT_SKILLS, USER_SKILLS as USER_SKILLS, user_home as user_home
    from ._manifest import (
        MANIFESTS as MANIFESTS,
        SkillRejected as SkillRejected,
        read_skill_folder as read_skill_folder,
    )
    from ._tiers import TIERS as TIERS, SkillEntry as SkillEntry, SkillSet as SkillSet, load_skills as load_skills
    # isort: on

#: Each public name with the module that defines it: the one list __all__ is made from.
_EXPORTS = {
    "READ_TOOLS": "._block",
    "read_tool": "._block",
    "render_skills_block": "._block",
    "SKILL_NAME": "._check",
    "check_skill": "._check",
    "MANIFESTS": "._manifest",
    "SkillRejected": "._manifest",
    "read_skill_folder": "._manifest",
    "PROJECT_SKILLS": "._folders",
    "USER_SKILLS": "._folders",
    "user_home": "._folders",
    "TIERS": "._tiers",
    "SkillEntry": "._tiers",
    "SkillSet": "._tiers",
    "load_skills": "._tiers",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
