"""Collect every import of one source file with LibCST, without ever executing it.

The collector walks the whole tree, so it sees imports at module level, inside
functions and classes, under ``if TYPE_CHECKING:`` and in ``try``/``except ImportError``
alike: an import a plugin only makes sometimes is still an import it makes.

Besides ``import`` statements it recognises the two ways of importing by name at run
time, ``importlib.import_module(...)`` and ``__import__(...)``, under whatever local name
the file bound them to. A literal name is checked like any import; anything else
(a variable, an f-string, a call) cannot be checked and is recorded as unverifiable.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

# Spellings of the anchor argument of import_module that mean "this file's package".
_OWN_PACKAGE_ANCHORS = frozenset({"__package__", "__spec__.parent"})
_OWN_MODULE_ANCHORS = frozenset({"__name__"})
_STATEMENT_TEXT_LIMIT = 80


@dataclass(frozen=True)
class ImportRecord:
    """One import seen in a file.

    :param line: 1-based line of the statement or call.
    :param statement: the statement or call as written (shortened), for messages.
    :param base: the absolute module imported, relative imports resolved; ``None`` when it
        cannot be known (unverifiable) or a relative import climbs above the top package.
    :param names: for ``from base import a, b`` the names ``("a", "b")``; each may be a
        submodule of ``base``. Empty for ``import base`` and ``from base import *``.
    :param relative: the relative spelling (``"..sibling"``) when the import was relative.
    :param dynamic: True for ``import_module``/``__import__`` calls.
    :param unverifiable: True when the imported name is not a literal.
    """

    line: int
    statement: str
    base: str | None
    names: tuple[str, ...] = ()
    relative: str | None = None
    dynamic: bool = False
    unverifiable: bool = False

    def targets(self) -> list[str]:
        """Every module this import may load: ``base`` and ``base.name`` for each name."""
        if self.base is None:
            return []
        return [self.base, *(f"{self.base}.{name}" for name in self.names)]


def resolve_relative(package: str, level: int, name: str) -> str | None:
    """Resolve a relative import the way the import system does.

    ``package`` is the package of the importing file (the module itself for an
    ``__init__.py``). Returns ``None`` when the dots climb above the top-level package.
    """
    parts = package.split(".") if package else []
    keep = len(parts) - (level - 1)
    if level < 1 or keep < 1:
        return None
    base = ".".join(parts[:keep])
    return f"{base}.{name}" if name else base


def _short(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > _STATEMENT_TEXT_LIMIT:
        return text[: _STATEMENT_TEXT_LIMIT - 3] + "..."
    return text


def _literal_str(node: cst.BaseExpression | None) -> str | None:
    """The value of a plain or implicitly concatenated string literal, else None."""
    if isinstance(node, cst.SimpleString | cst.ConcatenatedString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _literal_str_list(node: cst.BaseExpression | None) -> tuple[str, ...] | None:
    if isinstance(node, cst.List | cst.Tuple):
        values = [_literal_str(el.value) for el in node.elements]
        if all(v is not None for v in values):
            return tuple(v for v in values if v is not None)
    return None


@dataclass(frozen=True)
class _Call:
    callee: str
    node: cst.Call


class _Lines:
    """The line each import statement and call starts on.

    LibCST's positions cost a second pass that generates the whole file's code again,
    more than parsing it. The compiler's parser (``ast`` builds a tree, it runs nothing)
    gives the lines of the import statements, which both parsers see in the same order;
    LibCST's positions are computed only for a file that has a run-time import call, or
    that the compiler's parser reads differently (newer syntax than this Python's).
    """

    def __init__(self, module: cst.Module, source: bytes) -> None:
        self._module = module
        self._positions: Mapping[cst.CSTNode, CodeRange] | None = None
        self._statements: dict[cst.CSTNode, int] = {}
        self._compiled: list[int] | None
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            self._compiled = None
        else:
            found = [node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)]
            self._compiled = [node.lineno for node in sorted(found, key=lambda n: (n.lineno, n.col_offset))]

    def number_statements(self, statements: list[cst.Import | cst.ImportFrom]) -> None:
        """Take the lines of ``statements`` (every import statement, in the order of the file) from ``ast``."""
        if self._compiled is not None and len(self._compiled) == len(statements):
            self._statements = dict(zip(statements, self._compiled, strict=True))

    def of(self, node: cst.CSTNode) -> int:
        if node in self._statements:
            return self._statements[node]
        if self._positions is None:
            self._positions = MetadataWrapper(self._module, unsafe_skip_copy=True).resolve(PositionProvider)
        return self._positions[node].start.line


class _Collector(cst.CSTVisitor):
    def __init__(self, module: cst.Module, module_name: str, package: str) -> None:
        super().__init__()
        self._module = module
        self._module_name = module_name
        self._package = package
        self.statements: list[cst.Import | cst.ImportFrom] = []
        self.records: list[ImportRecord] = []
        self.calls: list[_Call] = []
        # Local names bound to the importlib module and to its import_module function;
        # collected over the whole file because a call may precede the import textually.
        self.importlib_names: set[str] = set()
        self.import_module_names: set[str] = set()

    def _text(self, node: cst.CSTNode) -> str:
        return _short(self._module.code_for_node(node))

    def visit_Import(self, node: cst.Import) -> None:
        self.statements.append(node)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.statements.append(node)

    def visit_Call(self, node: cst.Call) -> None:
        # Kept whatever the callee: `from importlib import import_module as load` may
        # appear after the call, so matching happens once the whole file is seen.
        callee = get_full_name_for_node(node.func)
        if callee:
            self.calls.append(_Call(callee, node))

    # -- import statements --------------------------------------------------------------

    def statement_records(self, lines: _Lines) -> list[ImportRecord]:
        """The records of the import statements; ``importlib``'s local names are learnt here."""
        lines.number_statements(self.statements)
        for node in self.statements:
            if isinstance(node, cst.Import):
                self._import(node, lines.of(node))
            else:
                self._import_from(node, lines.of(node))
        return self.records

    def _import(self, node: cst.Import, line: int) -> None:
        text = self._text(node)
        for alias in node.names:
            name = get_full_name_for_node(alias.name) or ""
            self.records.append(ImportRecord(line, text, name))
            if name == "importlib":
                bound = alias.asname.name if alias.asname else None
                self.importlib_names.add(
                    bound.value if isinstance(bound, cst.Name) else "importlib"
                )
            elif name.startswith("importlib.") and alias.asname is None:
                self.importlib_names.add("importlib")

    def _import_from(self, node: cst.ImportFrom, line: int) -> None:
        text = self._text(node)
        module = get_full_name_for_node(node.module) if node.module is not None else ""
        module = module or ""
        names: tuple[str, ...] = ()
        if not isinstance(node.names, cst.ImportStar):
            names = tuple(get_full_name_for_node(a.name) or "" for a in node.names)
        level = len(node.relative)
        if level:
            base = resolve_relative(self._package, level, module)
            self.records.append(
                ImportRecord(line, text, base, names, relative="." * level + module)
            )
            return
        self.records.append(ImportRecord(line, text, module, names))
        if module == "importlib" and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                if get_full_name_for_node(alias.name) == "import_module":
                    bound = alias.asname.name if alias.asname else None
                    self.import_module_names.add(
                        bound.value if isinstance(bound, cst.Name) else "import_module"
                    )

    # -- run-time imports ---------------------------------------------------------------

    def dynamic_records(self, lines: _Lines) -> list[ImportRecord]:
        # importlib.import_module counts even where the file never imports importlib
        # itself (it may arrive through a star import or another module's attribute).
        import_module = {f"{m}.import_module" for m in self.importlib_names | {"importlib"}}
        import_module |= self.import_module_names
        dunder_import = {"__import__", "builtins.__import__"}
        dunder_import |= {f"{m}.__import__" for m in self.importlib_names | {"importlib"}}
        records = []
        for call in self.calls:
            if call.callee in import_module:
                records.append(self._import_module(call, lines.of(call.node)))
            elif call.callee in dunder_import:
                records.append(self._dunder_import(call, lines.of(call.node)))
        return records

    def _argument(self, call: cst.Call, position: int, keyword: str) -> cst.BaseExpression | None:
        positional = [a for a in call.args if a.keyword is None and not a.star]
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == keyword:
                return arg.value
        return positional[position].value if len(positional) > position else None

    def _unverifiable(self, call: _Call, line: int) -> ImportRecord:
        return ImportRecord(line, self._text(call.node), None, dynamic=True, unverifiable=True)

    def _import_module(self, call: _Call, line: int) -> ImportRecord:
        name = _literal_str(self._argument(call.node, 0, "name"))
        if name is None:
            return self._unverifiable(call, line)
        text = self._text(call.node)
        level = len(name) - len(name.lstrip("."))
        if not level:
            return ImportRecord(line, text, name, dynamic=True)
        anchor = self._argument(call.node, 1, "package")
        anchor_name = get_full_name_for_node(anchor) if anchor is not None else None
        package = _literal_str(anchor)
        if anchor_name in _OWN_PACKAGE_ANCHORS:
            package = self._package
        elif anchor_name in _OWN_MODULE_ANCHORS:
            package = self._module_name
        if package is None:
            return self._unverifiable(call, line)
        base = resolve_relative(package, level, name[level:])
        return ImportRecord(line, text, base, relative=name, dynamic=True)

    def _dunder_import(self, call: _Call, line: int) -> ImportRecord:
        name = _literal_str(self._argument(call.node, 0, "name"))
        if name is None:
            return self._unverifiable(call, line)
        text = self._text(call.node)
        fromlist = _literal_str_list(self._argument(call.node, 3, "fromlist")) or ()
        level_node = self._argument(call.node, 4, "level")
        level = 0
        if level_node is not None:
            if not isinstance(level_node, cst.Integer):
                return self._unverifiable(call, line)
            level = int(level_node.value)
        names = tuple(n for n in fromlist if n != "*")
        if not level:
            return ImportRecord(line, text, name, names, dynamic=True)
        base = resolve_relative(self._package, level, name)
        return ImportRecord(line, text, base, names, relative="." * level + name, dynamic=True)


def collect_imports(source: bytes, module_name: str, is_package: bool) -> list[ImportRecord]:
    """Parse ``source`` and return its imports in line order.

    :param source: the file's bytes (LibCST honours an encoding declaration).
    :param module_name: the dotted module the file is (``"pkg.sub.mod"``).
    :param is_package: True for an ``__init__.py``, which is its own package.
    :raises libcst.ParserSyntaxError: when the file does not parse.
    """
    module = cst.parse_module(source)
    package = module_name if is_package else module_name.rpartition(".")[0]
    collector = _Collector(module, module_name, package)
    module.visit(collector)
    lines = _Lines(module, source)
    statements = collector.statement_records(lines)  # first: it learns the names importlib is bound to
    records: Sequence[ImportRecord] = [*statements, *collector.dynamic_records(lines)]
    return sorted(records, key=lambda r: r.line)
