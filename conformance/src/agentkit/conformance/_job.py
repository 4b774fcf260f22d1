"""One checks job: run every check of one plugin (or the discovery) and write its report.

What ``python -m agentkit.conformance.run`` does in its own process, and what each
child of the checks server (:mod:`._serve`) does after its fork: both entry points
import this module, which imports neither of them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any


def _write(out: Path, data: dict) -> None:
    partial = out.with_suffix(".partial")
    partial.write_text(json.dumps(data), encoding="utf-8")
    os.replace(partial, out)


def command_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m agentkit.conformance.run``."""
    parser = argparse.ArgumentParser(prog="python -m agentkit.conformance.run")
    parser.add_argument("name", nargs="?", help="the plugin's entry-point name")
    parser.add_argument("--discover", action="store_true",
                        help="instead: load every plugin together and report each one's record")
    parser.add_argument("--serve", action="store_true",
                        help="instead: read jobs (JSON lines) from stdin and run each in a forked child")
    parser.add_argument("--out", help="where to write the JSON report")
    parser.add_argument("--path", help="a plugin project directory to check instead of an installed plugin")
    parser.add_argument("--no-lint", action="store_true", help="skip the import lint")
    return parser


def use_project(path: str) -> None:
    """Make the plugin project in ``path`` importable and discoverable in this process."""
    from ._source import read_project, write_dist_info

    project = read_project(path)
    shim = Path(tempfile.mkdtemp(prefix="agentkit-conformance-site-"))
    write_dist_info(project, shim)
    sys.path[:0] = [str(shim), str(project.import_root)]
    import importlib

    importlib.invalidate_caches()


def perform(argv: list[str]) -> int:
    """Run the checks (or the discovery) ``argv`` asks for; the project of ``--path`` is already in use."""
    parser = command_parser()
    args = parser.parse_args(argv)
    if not args.out:
        parser.error("--out FILE is required")
    out = Path(args.out)
    if args.discover:
        import importlib_metadata

        from agentkit.host import PluginHost

        load = importlib_metadata.EntryPoint.load

        def announced(ep: importlib_metadata.EntryPoint) -> Any:
            _write(out, {"loading": ep.name, "complete": False})  # the culprit, if this import never returns
            return load(ep)

        # Patched in this checks process alone, which exits after discovery.
        importlib_metadata.EntryPoint.load = announced  # type: ignore[method-assign,assignment]  # see above
        host = PluginHost.discover()
        _write(out, {"records": {name: record.to_dict() for name, record in host.records.items()}, "complete": True})
        return 0
    if not args.name:
        parser.error("name the plugin to check, or pass --discover")
    from ._checks import check_plugin

    report = check_plugin(args.name, path=args.path, lint=not args.no_lint,
                          progress=lambda partial: _write(out, {**partial.to_dict(), "complete": False}))
    _write(out, {**report.to_dict(), "complete": True})
    return 0
