"""Lint one plugin: read its files, apply the rules, and build its report."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path

import libcst as cst

from ._distributions import installed_index, normalized
from ._findings import COULD_NOT_LINT_KINDS, Finding, LintReport, finding
from ._imports import collect_imports
from ._installed import load_distribution
from ._rules import Allowances, Plugin, check_import
from ._source import PluginSource, SourceFile, load_path


def lint_distribution(name: str, *, allow: Sequence[str] = ()) -> LintReport:
    """Lint the installed distribution ``name`` without importing any of it.

    :param name: the distribution name, any spelling (``agentkit-tools-files``,
        ``agentkit_tools_files``).
    :param allow: module names the plugin may import although the rules say otherwise,
        added to those its project declares in ``[tool.agentkit.lint] allow``; each
        covers the module and its submodules, and one that excuses nothing is an error.
    :returns: the plugin's :class:`LintReport`; problems in the plugin are findings,
        never exceptions.
    :raises LintUsageError: no distribution of that name is installed.
    """
    return lint_source(load_distribution(name), allow)


def lint_path(path: str | Path, *, allow: Sequence[str] = ()) -> LintReport:
    """Lint a source directory (containing ``pyproject.toml``) or a package directory.

    :param path: the project directory (``src/`` or flat layout) or a package directory
        (one with ``__init__.py``; the nearest ``pyproject.toml`` above it supplies the
        name, requirements and allowances).
    :param allow: as for :func:`lint_distribution`.
    :returns: the plugin's :class:`LintReport`.
    :raises LintUsageError: the path is not a directory, or is neither kind, or its
        ``pyproject.toml`` is not valid TOML.
    """
    return lint_source(load_path(path), allow)


def lint_source(source: PluginSource, allow: Sequence[str] = ()) -> LintReport:
    """Lint a plugin already described by :mod:`._source`."""
    report = LintReport(source.name, source.version, source=source.location)
    if isinstance(allow, str):
        allow = [allow]  # a lone string is one module name, not a list of letters
    allowances = Allowances([*source.allow, *allow])
    plugin = Plugin(
        name=source.name,
        own_packages=source.own_packages,
        # A module the distribution ships itself (an extension module, a second top-level
        # package) is provided, not a dependency.
        declared=normalized([*source.requirements, source.name]),
        requirements_unknown=source.requirements_unknown,
        index=installed_index(),
        allowances=allowances,
    )
    findings: list[Finding] = []
    if not source.files:
        findings.append(_no_source(source))
    modules = {f.module for f in source.files}
    for entry_module in sorted(source.entry_point_modules):
        if source.files and entry_module not in modules:
            findings.append(_missing_entry_point(source, entry_module))
    for file in source.files:
        records, problem = _read(file)
        if problem is not None:
            findings.append(problem)
            continue
        report.files += 1
        report.imports += len(records)
        for record in records:
            findings.extend(check_import(plugin, file, record))
    # An allowance can only be called unused once every file was read: the import it
    # excuses may sit in the file that did not parse.
    if not any(f.kind in COULD_NOT_LINT_KINDS for f in findings):
        findings.extend(_unused_allowances(source, allowances, len(source.allow)))
    report.findings = _dedupe(findings)
    return report


def _read(file: SourceFile) -> tuple[list, Finding | None]:
    try:
        data = file.path.read_bytes()
    except OSError as exc:
        return [], finding(
            "unreadable-file",
            file.module,
            "",
            file.display,
            0,
            f"could not read the file ({exc.strerror or exc}); fix its permissions",
        )
    try:
        return collect_imports(data, file.module, file.is_package), None
    except cst.ParserSyntaxError as exc:
        line, detail = _syntax_error_location(data, exc)
        return [], finding(
            "syntax-error",
            file.module,
            "",
            file.display,
            line,
            f"does not parse ({detail}); its imports are unknown, so the plugin is not "
            "passed: fix the syntax error",
        )
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        return [], finding(
            "unreadable-file",
            file.module,
            "",
            file.display,
            0,
            f"could not be parsed ({type(exc).__name__}: {exc}); save it as UTF-8 Python source",
        )


def _syntax_error_location(data: bytes, exc: cst.ParserSyntaxError) -> tuple[int, str]:
    """Line and description of a syntax error.

    LibCST's parser reports where it gave up, which can be a line after the mistake;
    the compiler's parser (``ast.parse`` only builds a tree, it runs nothing) points at
    the mistake itself, so it is asked when it agrees the file is broken.
    """
    try:
        ast.parse(data)
    except SyntaxError as compiler:
        if compiler.lineno:
            return compiler.lineno, compiler.msg
    except ValueError:
        pass
    detail = exc.message.split(": ", 2)[-1] if exc.message else "invalid syntax"
    return exc.raw_line, detail


def _no_source(source: PluginSource) -> Finding:
    where = source.location or "its RECORD, .pth files and direct_url.json"
    return finding(
        "no-source",
        source.name,
        "",
        where,
        0,
        f"no Python source found for {source.name} (looked in {where}); a plugin the lint "
        "cannot read is not passed: install a wheel or sdist that ships its .py files",
    )


def _missing_entry_point(source: PluginSource, module: str) -> Finding:
    return finding(
        "no-source",
        source.name,
        module,
        source.location,
        0,
        f"an entry point names {module}, but no source file for it was found; ship the "
        "module or correct the entry point",
    )


def _unused_allowances(
    source: PluginSource, allowances: Allowances, declared: int
) -> list[Finding]:
    findings = []
    from_project = set(allowances.entries[:declared])
    for entry in allowances.unused():
        if entry in from_project:
            file, line = source.allow_file, _line_of(source.allow_text, entry)
            where = "[tool.agentkit.lint] allow"
        else:
            file, line, where = "<allow>", 0, "the allow list passed to the lint"
        findings.append(
            finding(
                "unused-allowance",
                source.name,
                entry,
                file,
                line,
                f"allowance {entry!r} excused no import; remove it from {where} (a stale "
                "allowance would silently excuse a future import)",
            )
        )
    return findings


def _line_of(text: str, entry: str) -> int:
    """The line of ``entry`` in the allow list, searched from the table that holds it."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if "agentkit.lint" in line), 0)
    for number, line in enumerate(lines[start:], start=start + 1):
        if f'"{entry}"' in line or f"'{entry}'" in line:
            return number
    return 0


def _dedupe(findings: list[Finding]) -> list[Finding]:
    unique = list(dict.fromkeys(findings))
    return sorted(unique, key=lambda f: (f.file, f.line, f.kind, f.imported))
