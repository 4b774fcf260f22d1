"""Checks of the ``skills`` category: each skill parses and has what the agent needs.

This grows with the skills issue (manifests on disk, tool overrides); today a
skill must have a name, a description the model reads to choose it, and
instructions it loads on demand, and list its tools by name.
"""

from __future__ import annotations

import re

from agentkit.host import PluginHost

from ._report import Check, failed, passed

SKILL_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


def check_skills(host: PluginHost, plugin: str) -> list[Check]:
    skills = [s for name, s in sorted(host.skills.items()) if host.plugin_of("skill", name) == plugin]
    if not skills:
        return [failed("skills.registered", "registered no skill",
                       "call register(Skill(...)) in agentkit_register_skills, or drop the agentkit.skills entry point")]
    checks = []
    for skill in skills:
        missing = [f for f in ("name", "description", "instructions") if not str(getattr(skill, f) or "").strip()]
        if missing:
            checks.append(failed("skills.manifest", f"empty {', '.join(missing)}",
                                 "give every skill a name, a description and instructions", skill.name))
        elif not SKILL_NAME.match(skill.name):
            checks.append(failed("skills.manifest", f"the name {skill.name!r} is not 1-64 letters, digits, '_', '.' or '-'",
                                 "rename the skill", skill.name))
        else:
            checks.append(passed("skills.manifest", subject=skill.name))
        if not isinstance(skill.tools, tuple) or not all(isinstance(t, str) for t in skill.tools):
            checks.append(failed("skills.tools", "tools must be a tuple of tool names", "list tool names", skill.name))
    return checks
