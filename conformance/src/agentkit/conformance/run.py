"""The checks process: ``python -m agentkit.conformance.run NAME --out FILE [--path DIR]``.

Runs every check of one plugin and writes its report as JSON to ``FILE``,
again after each phase, so that a plugin that ends the interpreter
(``os._exit``), crashes it or hangs still leaves what was found before. The
report goes to a file, not to stdout, which the plugin may write to.
``--path DIR`` first makes the project in ``DIR`` importable and discoverable
(see ``_source``).

``--serve`` starts a checks server instead (POSIX only): it imports the suite
and builds the lint's index of installed distributions once, then forks one
child per job it reads from stdin, so each plugin still gets a process of its
own without paying for an interpreter, the imports and the index again. See
:mod:`._serve`.
"""

from __future__ import annotations

import sys

from ._job import command_parser, perform, use_project

__all__ = ["main", "perform", "use_project"]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = command_parser().parse_args(argv)
    if args.path:
        use_project(args.path)
    if args.serve:
        from ._serve import serve

        return serve()
    return perform(argv)


if __name__ == "__main__":
    sys.exit(main())
