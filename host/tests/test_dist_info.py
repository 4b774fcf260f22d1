"""Versions read from the installed metadata files give what ``importlib.metadata`` gives.

The ``User-Agent`` of every request and ``agentkit.host.__version__`` carry the
host's version; reading it must not cost the import of ``importlib.metadata``
where the files alone can tell, and must give its answer everywhere.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import sys

from agentkit.host import _dist_info


def test_every_installed_distribution_has_the_version_importlib_metadata_gives():
    names = {dist.metadata["Name"] for dist in importlib.metadata.distributions()}
    assert len(names) > 20
    for name in sorted(names):
        assert _dist_info.installed_version(name) == importlib.metadata.version(name), name


def test_a_distribution_that_is_not_installed_has_no_version():
    assert _dist_info.installed_version("agentkit-no-such-distribution") is None


def test_the_first_of_two_copies_on_the_path_gives_the_version(tmp_path, monkeypatch):
    for folder, version in (("first", "1.2.3"), ("second", "9.9")):
        info = tmp_path / folder / f"Some_Dist-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: some-dist\nVersion: {version}\n\nVersion: 0\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path / "first"), str(tmp_path / "second"), *sys.path])
    importlib.invalidate_caches()
    assert _dist_info.installed_version("some.dist") == importlib.metadata.version("some.dist") == "1.2.3"


def test_an_egg_on_the_path_leaves_the_answer_to_importlib_metadata(tmp_path, monkeypatch):
    egg = tmp_path / "thing-1.0-py3.11.egg"
    egg.write_bytes(b"")
    monkeypatch.setattr(sys, "path", [*sys.path, str(egg)])
    assert _dist_info.installed_version("agentkit-host") is None


def test_the_host_version_is_the_installed_one():
    import agentkit.host

    assert agentkit.host.__version__ == importlib.metadata.version("agentkit-host")


def test_a_name_is_canonical_as_packaging_makes_it():
    from packaging.utils import canonicalize_name

    names = ["agentkit-plugin-api", "Agentkit.Plugin.API", "agentkit__plugin__api", "a.-_b", "x---y", "-lead",
             "trail_", "..", "", "_", "Some_Dist", "MiXeD.Case-Name_2", "é_é", "a b"]
    for name in names:
        assert _dist_info.canonical(name) == canonicalize_name(name), name


def test_metadata_folders_are_found_among_names_of_any_case_length_or_line(tmp_path, monkeypatch):
    """Names whose lowering changes their length, a suffix in capitals, a name holding a newline, names that
    only look like metadata: each distribution has the version importlib.metadata gives, and the first copy
    wins as it does there."""
    folders = {"İstanbul_Kit-1.0.dist-info": "istanbul-kit", "Capital_Dist-2.0.DIST-INFO": "capital-dist",
               "old_thing-3.0.Egg-Info": "old-thing", "Capital_Dist-9.9.dist-info": None,
               "not_meta-1.0.dist-info.bak": None, "line\nbreak-1.0.dist-info": None}
    for listed, with_newline in ((folders, True), ({k: v for k, v in folders.items() if "\n" not in k}, False)):
        root = tmp_path / str(with_newline)
        for folder in listed:
            (root / folder).mkdir(parents=True)
            version = folder.split("-")[1].rsplit(".", 1)[0]
            (root / folder / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {folder.split('-')[0]}\n"
                                                    f"Version: {version}\n\n")
        monkeypatch.setattr(sys, "path", [str(root), *sys.path])
        importlib.invalidate_caches()
        for name in ("istanbul-kit", "capital-dist", "old-thing", "not-meta"):
            expected = None
            with contextlib.suppress(importlib.metadata.PackageNotFoundError):
                expected = importlib.metadata.version(name)
            assert _dist_info.installed_version(name) == expected, (name, with_newline)
        assert _dist_info.installed_version("capital-dist") in ("2.0", "9.9")
        monkeypatch.undo()
