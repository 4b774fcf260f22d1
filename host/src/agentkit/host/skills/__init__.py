"""Skills: loaded from plugins and folders, checked once, shown to the model as a block.

Modules: ``_frontmatter`` (the ``SKILL.md`` header), ``_manifest`` (both
folder formats), ``_check`` (the checks every skill passes), ``_tiers``
(discovery and precedence, behind the project trust gate), ``_block`` (what
the model sees).
"""

from ._block import READ_TOOLS, read_tool, render_skills_block
from ._check import SKILL_NAME, check_skill
from ._manifest import MANIFESTS, SkillRejected, read_skill_folder
from ._tiers import PROJECT_SKILLS, TIERS, USER_SKILLS, SkillEntry, SkillSet, load_skills, user_home

__all__ = [
    "MANIFESTS",
    "PROJECT_SKILLS",
    "READ_TOOLS",
    "SKILL_NAME",
    "TIERS",
    "USER_SKILLS",
    "SkillEntry",
    "SkillRejected",
    "SkillSet",
    "check_skill",
    "load_skills",
    "read_skill_folder",
    "read_tool",
    "render_skills_block",
    "user_home",
]
