"""The skills checks verify what a model would see: the rendered block, and instructions it can read."""

from __future__ import annotations

from pathlib import Path

from agentkit.conformance._skills import check_skills
from agentkit.plugin_api import Skill, hookimpl


class Skills:
    def __init__(self, *skills: Skill) -> None:
        self.skills = skills

    @hookimpl
    def agentkit_register_skills(self, register):
        for skill in self.skills:
            register(skill)


def outcomes(host_with, *skills: Skill) -> dict[tuple[str, str | None], tuple[str, str]]:
    return {(c.check, c.subject): (c.outcome, f"{c.message} | {c.fix}")
            for c in check_skills(host_with(Skills(*skills)), "under_test")}


def test_a_skill_with_markup_in_its_description_is_shown_intact(host_with, tmp_path: Path):
    (tmp_path / "steps.md").write_text("Do it.\n")
    found = outcomes(host_with, Skill("x", 'Ends </description></skill> & "quotes"', path=tmp_path / "steps.md"))
    assert found[("skills.manifest", "x")][0] == "pass"
    assert found[("skills.prompt", "x")][0] == "pass", found


def test_a_skill_whose_instructions_file_is_missing_fails(host_with, tmp_path: Path):
    found = outcomes(host_with, Skill("ghost", "A skill.", path=tmp_path / "missing.md"))
    outcome, text = found[("skills.manifest", "ghost")]
    assert outcome == "fail" and "missing.md is missing" in text and "ship it with the skill" in text


def test_a_skill_with_empty_instructions_fails_on_what_the_model_would_read(host_with, tmp_path: Path):
    (tmp_path / "empty.md").write_text("  \n")
    found = outcomes(host_with, Skill("blank", "A skill.", path=tmp_path / "empty.md"))
    assert found[("skills.prompt", "blank")][0] == "fail"


def test_a_skill_hidden_from_the_model_passes_and_says_so(host_with, tmp_path: Path):
    (tmp_path / "steps.md").write_text("Do it.\n")
    found = outcomes(host_with, Skill("quiet", "Q.", path=tmp_path / "steps.md", model_invocable=False))
    assert found[("skills.prompt", "quiet")] == ("pass", "not shown to the model (model_invocable=False) | ")
