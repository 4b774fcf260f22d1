"""The listing behind ``agentkit plugins`` reads the metadata files itself: it must find what the loader finds."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import importlib_metadata
import pytest

from agentkit.host import PluginHost, _dist_info, _entry_points
from agentkit.plugin_api.hookspecs import CATEGORIES


def _seen(found) -> dict[str, list[tuple[str, str, str, str, str | None, str | None]]]:
    """What a user is shown of each plugin's entries, whichever reader found them."""
    return {
        name: [(category, ep.group, ep.name, ep.value, ep.dist.name if ep.dist else None,
                ep.dist.version if ep.dist else None) for category, ep in entries]
        for name, entries in found.items()
    }


def test_the_entry_point_groups_are_the_plugin_categories():
    assert list(_entry_points.CATEGORY_NAMES) == list(CATEGORIES)


def test_the_listing_finds_what_the_loader_finds(site_dir, tmp_path, monkeypatch):
    site_dir("both-ways", entry_points={"agentkit.providers": {"dual": "dual_provider"},
                                        "agentkit.skills": {"dual": "dual_skills"}})
    site_dir("one-object", entry_points={"agentkit.tools": {"same": "same_mod"}, "agentkit.hooks": {"same": "same_mod"}})
    site_dir("Odd.Name_plugin", version="2.0rc1", entry_points={"console_scripts": {"odd": "odd:main"},
                                                                "agentkit.tools": {"odd": "odd_mod:plugin"}})
    site_dir("no-entry-points")
    spaced = site_dir("spaced-plugin")
    (spaced / "entry_points.txt").write_text("# a comment\n\n[agentkit.tools]\n  spaced=spaced_mod  \n[other]\nx = y\n")
    egg = site_dir.site / "legacy_plugin.egg-info"
    egg.mkdir()
    (egg / "PKG-INFO").write_text("Metadata-Version: 1.1\nName: legacy-plugin\nVersion: 0.3\n\nA description: not a header\n")
    (egg / "entry_points.txt").write_text("[agentkit.tools]\nlegacy = legacy_mod\n")
    shadowed = tmp_path / "later-on-the-path"  # the same distribution later on sys.path: the first one wins
    (shadowed / "spaced_plugin-9.9.dist-info").mkdir(parents=True)
    (shadowed / "spaced_plugin-9.9.dist-info" / "METADATA").write_text("Name: spaced-plugin\nVersion: 9.9\n")
    (shadowed / "spaced_plugin-9.9.dist-info" / "entry_points.txt").write_text("[agentkit.tools]\nshadow = shadow_mod\n")
    monkeypatch.setattr(sys, "path", [*sys.path, str(shadowed)])
    importlib.invalidate_caches()
    assert _dist_info.plain_path_only()  # the listing reads the files itself here

    listed = _seen(_entry_points.listed_entry_points())
    assert listed == _seen(_entry_points.plugin_entry_points())
    assert {"dual[providers]", "dual[skills]", "same", "odd", "spaced", "legacy"} <= set(listed)
    assert "shadow" not in listed and listed["odd"][0][4:] == ("Odd.Name_plugin", "2.0rc1")
    assert listed["legacy"][0][4:] == ("legacy-plugin", "0.3")


class _Elsewhere(importlib_metadata.Distribution):
    """A distribution no directory on sys.path holds: what a custom finder may serve."""

    def read_text(self, filename: str) -> str | None:
        return {"METADATA": "Name: elsewhere-plugin\nVersion: 1.0\n",
                "entry_points.txt": "[agentkit.tools]\nelsewhere = elsewhere_mod\n"}.get(filename)

    def locate_file(self, path) -> Path:
        return Path(str(path))


class _ElsewhereFinder:
    def find_spec(self, *args, **kwargs) -> None:
        return None

    def find_distributions(self, context=None):
        return iter([_Elsewhere()])


def test_a_finder_of_other_distributions_is_asked_too(monkeypatch):
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, _ElsewhereFinder()])
    listed = _seen(_entry_points.listed_entry_points())
    assert listed["elsewhere"] == [("tools", "agentkit.tools", "elsewhere", "elsewhere_mod", "elsewhere-plugin", "1.0")]
    assert listed == _seen(_entry_points.plugin_entry_points())


@pytest.mark.parametrize("entry", ["", "a-missing-directory"])
def test_entries_of_sys_path_that_are_no_directory_are_skipped(monkeypatch, entry):
    monkeypatch.setattr(sys, "path", [entry, *sys.path])
    assert _seen(_entry_points.listed_entry_points()) == _seen(_entry_points.plugin_entry_points())


def _state_by_importlib_metadata() -> tuple[tuple[str, str, str], ...]:
    return tuple(sorted((ep.group, ep.name, f"{ep.value} {ep.dist.version}") for ep in importlib_metadata.entry_points()
                        if ep.group.startswith("agentkit.") and ep.group != "agentkit.commands"))


def test_the_installed_state_is_what_importlib_metadata_finds_and_changes_with_an_install(site_dir, monkeypatch):
    site_dir("some-tools", entry_points={"agentkit.tools": {"some": "some_mod"}, "agentkit.commands": {"x": "m:f"},
                                         "console_scripts": {"some": "some_mod:main"}})
    importlib.invalidate_caches()
    before = PluginHost.installed_state()
    assert before == _state_by_importlib_metadata()
    assert ("agentkit.tools", "some", "some_mod 0.1.0") in before
    assert not [entry for entry in before if entry[0] in ("agentkit.commands", "console_scripts")]

    site_dir("later-tools", version="1.2", entry_points={"agentkit.hooks": {"later": "later_mod"}})
    importlib.invalidate_caches()
    after = PluginHost.installed_state()
    assert after == _state_by_importlib_metadata()
    assert set(after) - set(before) == {("agentkit.hooks", "later", "later_mod 1.2")}


def test_the_installed_state_asks_a_finder_of_other_distributions_too(monkeypatch):
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, _ElsewhereFinder()])
    assert ("agentkit.tools", "elsewhere", "elsewhere_mod 1.0") in PluginHost.installed_state()
