"""Checks of the ``skills`` category: what the model would see of each skill.

Each skill goes through the host's own skill checks (the ones an agent
applies to plugin and folder skills alike), then the ``<available_skills>``
block the agent would send is rendered and read back: the skill must appear
in it exactly once, with its name, description and instructions path intact
(escaped, not cut), and the path must hold instructions the model can read.
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

from agentkit.host import PluginHost
from agentkit.host.skills import SkillEntry, SkillRejected, check_skill, render_skills_block

from ._report import Check, failed, passed


def check_skills(host: PluginHost, plugin: str) -> list[Check]:
    skills = [s for name, s in sorted(host.skills.items()) if host.plugin_of("skill", name) == plugin]
    if not skills:
        return [failed("skills.registered", "registered no skill",
                       "call register(Skill(...)) in agentkit_register_skills, or drop the agentkit.skills entry point")]
    checks = []
    for skill in skills:
        try:
            path = check_skill(skill, f"plugin {plugin!r}")
        except SkillRejected as exc:
            message, _, fix = str(exc).partition("; ")
            checks.append(failed("skills.manifest", message, fix or "fix the skill", skill.name))
            continue
        checks.append(passed("skills.manifest", subject=skill.name))
        checks.append(_check_block(SkillEntry(skill, "plugin", plugin, path)))
    return checks


def _check_block(entry: SkillEntry) -> Check:
    skill = entry.skill
    if not skill.model_invocable:
        return passed("skills.prompt", "not shown to the model (model_invocable=False)", skill.name)
    block = render_skills_block([entry], "read_file")
    try:
        shown = ElementTree.fromstring(block).findall("skill")
    except ElementTree.ParseError as exc:
        return failed("skills.prompt", f"the rendered block is not well-formed ({exc})",
                      "report this: the host escapes every field", skill.name)
    seen = [(s.findtext("name"), s.findtext("description"), s.findtext("location")) for s in shown]
    if seen != [(skill.name, skill.description, str(entry.instructions_path))]:
        return failed("skills.prompt", f"the model would see {seen!r}", "report this: the block must carry the "
                      "skill's name, description and instructions path unchanged", skill.name)
    try:
        text = entry.instructions_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return failed("skills.prompt", f"the instructions at {entry.instructions_path} cannot be read as UTF-8 "
                      f"text ({exc})", "ship the instructions as a UTF-8 text file", skill.name)
    if not text.strip():
        return failed("skills.prompt", f"the instructions at {entry.instructions_path} are empty",
                      "write the steps the model follows in that file", skill.name)
    return passed("skills.prompt", subject=skill.name)
