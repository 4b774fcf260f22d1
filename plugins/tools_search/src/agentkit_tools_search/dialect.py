"""search_files' regex dialect, ripgrep's, and its translation for the native backend.

The dialect is ripgrep's (the Rust ``regex`` crate, Unicode mode, matched line
by line): ``.``, literals and escapes (``\\x7F``, ``\\x{10FFFF}``, ``\\u{..}``,
``\\t``...), classes with ranges, negation, nesting, POSIX names
(``[[:alpha:]]``, ``[[:^space:]]``, ASCII only) and set operations
(``&&``, ``--``, ``~~``); ``\\d \\s \\w`` and their negations, Unicode-aware;
anchors ``^ $ \\A \\z``; word boundaries ``\\b \\B \\< \\> \\b{start}
\\b{end} \\b{start-half} \\b{end-half}``; groups ``(..)``, ``(?:..)``,
``(?P<n>..)``, ``(?<n>..)``; flags ``(?i) (?m) (?s) (?x) (?U)`` (also scoped,
``(?i:..)``); repetition ``* + ? {n} {n,} {n,m}``, lazy or not.

Case folding is Rust's simple case folding: where Python's ``re`` folds more
(the dotted capital I and the dotless small i go with "i"), the translation
matches those as written.

Files are matched as bytes, as ripgrep does: the native backend decodes them
with ``surrogateescape``, so a byte that is not UTF-8 becomes a lone surrogate
that nothing in the translation matches except what matches no character at
all, exactly as in the Rust engine, where ``.``, ``\\W`` and ``[^a]`` match
whole UTF-8 characters and never an invalid byte.

Two kinds of refusal:

- :class:`PatternError`: not in the dialect (ripgrep refuses it too): a
  look-around, a back-reference, ``\\Z``, an unclosed group, a literal ``\\n``
  (patterns match within one line).
- :class:`UntranslatablePattern`: in the dialect, but the native backend cannot
  read it the same way, so it refuses rather than answer differently:
  Unicode property classes (``\\p{Greek}``), ``(?-u)`` (bytes mode) and
  ``(?R)`` (CRLF mode). ripgrep answers these.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from dataclasses import dataclass

__all__ = ["PatternError", "Translation", "UntranslatablePattern", "translate"]

#: What a lone byte that is not UTF-8 decodes to (``surrogateescape``): matched by nothing.
_INVALID = "\\udc80-\\udcff"
#: Unicode White_Space (Rust's ``\s``), which, unlike Python's, leaves out \x1c-\x1f.
_SPACE = "\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
_POSIX = {
    "alnum": "0-9A-Za-z",
    "alpha": "A-Za-z",
    "ascii": "\\x00-\\x7f",
    "blank": "\\t ",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@\\[-`{-~",
    "space": "\\t\\n\\x0b\\x0c\\r ",
    "upper": "A-Z",
    "word": "0-9A-Za-z_",
    "xdigit": "0-9A-Fa-f",
}
_SIMPLE_ESCAPES = {"a": "\x07", "f": "\x0c", "t": "\t", "n": "\n", "r": "\r", "v": "\x0b"}
_FLAGS = "imsxUuR"
_TURKIC_I = "\\u0130\\u0131"
_FOLDS_TO_I = frozenset("iI")
_TURKIC_LITERAL = frozenset("\u0130\u0131")


class PatternError(ValueError):
    """The pattern is not in the dialect; ripgrep refuses it as well."""


class UntranslatablePattern(ValueError):
    """The pattern is in the dialect but the native backend cannot read it the same way.

    :param construct: the construct, as written in the pattern.
    """

    def __init__(self, construct: str, what: str) -> None:
        super().__init__(
            f"{construct!r} ({what}) is part of ripgrep's regex dialect but the native "
            "backend cannot match it the same way; install ripgrep (rg on PATH) or rewrite "
            "the pattern without it."
        )
        self.construct = construct


_WORD_CATEGORIES = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Nl", "Mn", "Mc", "Me", "Nd", "Pc"})
# Other_Alphabetic beyond the marks (circled and squared letters), and Join_Control.
_WORD_EXTRA: tuple[tuple[int, int], ...] = (
    (0x24B6, 0x24E9), (0x1F130, 0x1F149), (0x1F150, 0x1F169), (0x1F170, 0x1F189)
)
_WORD_EXTRA += ((0x200C, 0x200D),)


def _ranges(codes: list[int]) -> str:
    parts: list[str] = []
    start = previous = None
    for code in [*codes, None]:
        if code is not None and previous is not None and code == previous + 1:
            previous = code
            continue
        if start is not None and previous is not None:  # set together
            parts.append(_class_char(start) + ("" if previous == start else "-" + _class_char(previous)))
        start = previous = code
    return "".join(parts)


@functools.cache
def _word() -> str:
    """Rust's Unicode ``\\w`` (Alphabetic, marks, decimal digits, connector punctuation,
    joiners) as Python's ``\\w`` corrected by what the two disagree on: marks and a few
    symbols Rust adds, other numbers (``²``, ``½``) Python adds. Written so, it compiles
    fast: a class spelled out in full takes Python's ``re`` a tenth of a second each time."""
    extra = {code for low, high in _WORD_EXTRA for code in range(low, high + 1)}
    added, removed = [], []
    # Planes 4 to 13 are unassigned and 15 and 16 private use: no word characters there.
    for code in itertools.chain(range(0x40000), range(0xE0000, 0xE1000)):
        char = chr(code)
        rust = code in extra or unicodedata.category(char) in _WORD_CATEGORIES
        python = char.isalnum() or char == "_"
        if rust and not python:
            added.append(code)
        elif python and not rust:
            removed.append(code)
    word = f"[\\w{_ranges(added)}]"
    return f"(?:(?![{_ranges(removed)}]){word})" if removed else word


def _class_char(code: int) -> str:
    return f"\\U{code:08x}" if code > 0xFFFF else f"\\u{code:04x}" if code > 0x7E else re.escape(chr(code))


_NAMED_BOUNDARIES = {"start": "<", "end": ">", "start-half": "start-half", "end-half": "end-half"}


def _boundary(kind: str, word: str) -> str:
    """A word boundary with Rust's Unicode ``\\w`` (Python's ``\\b`` uses its own).

    Like Rust, ``\\B`` and the half boundaries never match next to a byte that is
    not UTF-8 (on the side they look at); ``\\b`` takes such a byte as a non-word.
    """
    valid_before, valid_after = f"(?<![{_INVALID}])", f"(?![{_INVALID}])"
    return {
        "b": f"(?:(?<={word})(?!{word})|(?<!{word})(?={word}))",
        "B": f"{valid_before}{valid_after}(?:(?<={word})(?={word})|(?<!{word})(?!{word}))",
        "<": f"(?<!{word})(?={word})",
        ">": f"(?<={word})(?!{word})",
        "start-half": f"{valid_before}(?<!{word})",
        "end-half": f"{valid_after}(?!{word})",
    }[kind]


@dataclass(frozen=True, slots=True)
class Translation:
    """A pattern translated to Python ``re`` over text decoded with ``surrogateescape``.

    :param regex: the Python expression.
    :param text_anchors: whether it uses ``\\A`` or ``\\z`` (a whole-file prefilter would miss lines).
    :param ascii_regex: the same expression for a text that is all ASCII: ``\\w`` is Python's own
        class and case folding needs no guard for the Turkic i, for they differ from Rust's only on
        characters outside ASCII, which such a text cannot hold. A plain class repeats in Python's
        ``re`` without a look-ahead per character: bench_search's ``\\w+_\\w+`` over 20,000
        files went from 58 s to about 1 s.
    """

    regex: str
    text_anchors: bool
    ascii_regex: str = ""

    def compile(self, ignore_case: bool, *, ascii_text: bool = False) -> re.Pattern[str]:
        """The compiled expression; with ``ascii_text``, the one only for texts that are all ASCII."""
        regex = self.ascii_regex if ascii_text and self.ascii_regex else self.regex
        return re.compile(regex, re.MULTILINE | (re.IGNORECASE if ignore_case else 0))


@dataclass(slots=True)
class _Flags:
    ignore_case: bool
    dot_all: bool = False
    verbose: bool = False


class _Class:
    """One class operand, as a Python class body when it has one, else a one-character regex."""

    def __init__(self, body: str | None = None, regex: str | None = None) -> None:
        self.body = body
        self.regex = regex if regex is not None else f"[{body}]"

    @staticmethod
    def union(items: list[_Class]) -> _Class:
        bodies = [item.body for item in items if item.body is not None]
        others = [item.regex for item in items if item.body is None]
        simple = _Class("".join(bodies)) if bodies else None
        if not others:
            return simple if simple is not None else _Class(regex="(?!)")
        alternatives = ([simple.regex] if simple else []) + others
        return _Class(regex="(?:" + "|".join(alternatives) + ")")

    def negated(self) -> _Class:
        if self.body is not None:
            return _Class(regex=f"[^{self.body}{_INVALID}]")
        return _Class(regex=f"(?!{self.regex})[^{_INVALID}]")


class _Parser:
    def __init__(self, pattern: str, ignore_case: bool, *, ascii_text: bool = False) -> None:
        # ripgrep wraps each pattern in (?:...): a comment in (?x) mode runs into that ")".
        self.text = f"(?:{pattern})"
        self.original = pattern
        self.at = 0
        self.base_ignore_case = ignore_case
        self.text_anchors = False
        self.untranslatable: UntranslatablePattern | None = None
        #: Translate for a text that is all ASCII (see :attr:`Translation.ascii_regex`).
        self.ascii_text = ascii_text

    # -- helpers

    def word(self) -> _Class:
        """Rust's ``\\w``: on an ASCII text, Python's own (a class body, which repeats fast)."""
        return _Class("\\w") if self.ascii_text else _Class(regex=_word())

    def refuse(self, reason: UntranslatablePattern) -> None:
        """Remember the first construct only ripgrep can match; the rest is still checked."""
        if self.untranslatable is None:
            self.untranslatable = reason

    def error(self, message: str) -> PatternError:
        return PatternError(f"{self.original!r} is not a valid regular expression: {message}.")

    def peek(self, offset: int = 0) -> str:
        index = self.at + offset
        return self.text[index] if index < len(self.text) else ""

    def take(self) -> str:
        char = self.peek()
        if not char:
            raise self.error("unexpected end of pattern")
        self.at += 1
        return char

    def skip_verbose(self, flags: _Flags) -> None:
        while flags.verbose and self.peek():
            if self.peek().isspace():
                self.at += 1
            elif self.peek() == "#":
                while self.peek() and self.peek() != "\n":
                    self.at += 1
            else:
                return

    def cased(self, regex: str, flags: _Flags, folds_i: bool = True) -> str:
        """``regex`` under the case flag in force.

        :param folds_i: whether folding case could make it match the dotted capital I or
            the dotless small i: Python folds both with "i", Rust's simple case folding
            neither, so under ``(?i)`` they are matched as written.
        """
        if flags.ignore_case and folds_i and not self.ascii_text:
            turkic = f"(?-i:[{_TURKIC_I}])"
            regex = f"(?:(?!{turkic}){regex}|(?={turkic})(?-i:{regex}))"
        if flags.ignore_case == self.base_ignore_case:
            return regex
        return f"(?{'i' if flags.ignore_case else '-i'}:{regex})"

    # -- expressions

    def parse(self) -> str:
        flags = _Flags(self.base_ignore_case)
        regex = self.alternation(flags)
        if self.peek():
            raise self.error("unopened group")
        return regex

    def alternation(self, flags: _Flags) -> str:
        """Alternatives up to an unmatched ``)`` or the end; flags set inside stay inside."""
        flags = _Flags(flags.ignore_case, flags.dot_all, flags.verbose)
        alternatives = [self.sequence(flags)]
        while self.peek() == "|":
            self.at += 1
            alternatives.append(self.sequence(flags))
        return "|".join(alternatives)

    def sequence(self, flags: _Flags) -> str:
        out: list[str] = []
        while True:
            self.skip_verbose(flags)
            char = self.peek()
            if char in ("", "|", ")"):
                return "".join(out)
            if char in "*+?{":
                if char == "{" and self.counted() is None:
                    raise self.error("a '{' must start a counted repetition such as {2} or {1,3}")
                raise self.error("a repetition operator needs something to repeat")
            atom = self.atom(flags)
            if atom is None:
                continue  # a flag group: it changed ``flags`` and matches nothing
            out.append(self.repeated(atom, flags))

    def counted(self) -> tuple[int, int | None] | None:
        """Parse ``{n}``, ``{n,}`` or ``{n,m}`` at the cursor (moving past it); None if absent."""
        match = re.compile(r"\{\s*(\d+)\s*(?:(,)\s*(\d*)\s*)?\}").match(self.text, self.at)
        if match is None:
            return None
        self.at = match.end()
        low = int(match[1])
        high = low if match[2] is None else (int(match[3]) if match[3] else None)
        if high is not None and high < low:
            raise self.error(f"the repetition {match[0]} has its bounds the wrong way round")
        return low, high

    def repeated(self, atom: str, flags: _Flags) -> str:
        while True:
            self.skip_verbose(flags)
            char = self.peek()
            if char in ("*", "+", "?"):
                self.at += 1
                quantifier = char
            elif char == "{":
                bounds = self.counted()
                if bounds is None:
                    raise self.error("a '{' must start a counted repetition such as {2} or {1,3}")
                low, high = bounds
                quantifier = f"{{{low},{'' if high is None else high}}}"
            else:
                return atom
            if self.peek() == "?":
                self.at += 1  # lazy or greedy, a line matches or not the same
            atom = f"(?:{atom}){quantifier}"

    def atom(self, flags: _Flags) -> str | None:
        char = self.take()
        if char == "(":
            return self.group(flags)
        if char == "[":
            return self.cased(self.bracket(flags).regex, flags)
        if char == ".":
            return f"[^{_INVALID}]" if flags.dot_all else f"[^\\n{_INVALID}]"
        if char == "^":
            return "^"
        if char == "$":
            return "$"
        if char == "\\":
            return self.escape_atom(flags)
        if char == "\n":
            raise self.error('the literal "\\n" is not allowed: patterns match within one line')
        if char in _TURKIC_LITERAL:
            return f"(?-i:{char})"  # no simple case folding
        return self.cased(re.escape(char), flags, char in _FOLDS_TO_I)

    def group(self, flags: _Flags) -> str | None:
        if self.peek() != "?":
            return self.closed(f"(?:{self.alternation(flags)}")
        self.at += 1
        if self.peek() == "P" and self.peek(1) == "<":
            self.at += 2
            self.group_name()
            return self.closed(f"(?:{self.alternation(flags)}")
        if self.peek() == "<" and self.peek(1) not in ("=", "!"):
            self.at += 1
            self.group_name()
            return self.closed(f"(?:{self.alternation(flags)}")
        if self.peek() in ("=", "!") or self.text.startswith(("<=", "<!"), self.at):
            raise self.error("look-around is not supported by ripgrep's regex dialect")
        start = self.at
        while self.peek() and self.peek() in _FLAGS + "-":
            self.at += 1
        spelled = self.text[start : self.at]
        if not spelled and self.peek() == ":":
            self.at += 1
            return self.closed(f"(?:{self.alternation(flags)}")
        if self.peek() not in (")", ":") or not spelled:
            raise self.error(f"unknown group syntax '(?{spelled}{self.peek()}'")
        scoped = self.take() == ":"
        target = _Flags(flags.ignore_case, flags.dot_all, flags.verbose) if scoped else flags
        self.apply_flags(spelled, target)
        if scoped:
            return self.closed(f"(?:{self.alternation(target)}")
        return None

    def group_name(self) -> None:
        end = self.text.find(">", self.at)
        name = self.text[self.at : end] if end != -1 else ""
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.\[\]]*", name):
            raise self.error(f"invalid capture group name {name!r}")
        self.at = end + 1

    def closed(self, regex: str) -> str:
        if self.peek() != ")":
            raise self.error("unclosed group")
        self.at += 1
        return regex + ")"

    def apply_flags(self, spelled: str, flags: _Flags) -> None:
        if spelled.count("-") > 1 or spelled.endswith("-"):
            raise self.error(f"invalid flags '(?{spelled})'")
        if len(set(spelled)) != len(spelled):
            raise self.error(f"duplicate flag in '(?{spelled})'")
        on = True
        for letter in spelled:
            if letter == "-":
                on = False
            elif letter == "i":
                flags.ignore_case = on
            elif letter == "s":
                flags.dot_all = on
            elif letter == "x":
                flags.verbose = on
            elif letter == "u" and not on:
                self.refuse(UntranslatablePattern("(?-u)", "matching bytes instead of characters"))
            elif letter == "R" and on:
                self.refuse(UntranslatablePattern("(?R)", "CRLF line mode"))
            # m: lines are matched one by one, so ^ and $ mean the same either way;
            # U: greediness does not change whether a line matches.

    # -- escapes

    def escape_atom(self, flags: _Flags) -> str:
        char = self.peek()
        if char == "b" and self.peek(1) == "{" and not self.peek(2).isdigit():
            # "\\b{start}" names a boundary; "\\b{2}" repeats one, as in Rust.
            end = self.text.find("}", self.at)
            kind = self.text[self.at + 2 : end] if end != -1 else ""
            if kind not in _NAMED_BOUNDARIES:
                raise self.error(f"unknown word boundary '\\b{{{kind}}}'")
            self.at = end + 1
            return _boundary(_NAMED_BOUNDARIES[kind], self.word().regex)
        if char and char in "bB<>":
            self.at += 1
            return _boundary(char, self.word().regex)
        if char in ("A", "z"):
            self.at += 1
            self.text_anchors = True
            return "\\A" if char == "A" else "\\Z"
        item = self.escape_class_item()
        if isinstance(item, _Class):
            return self.cased(item.regex, flags, folds_i=False)  # \\d \\s \\w: no case
        if item == "\n":
            raise self.error('the literal "\\n" is not allowed: patterns match within one line')
        if item in _TURKIC_LITERAL:
            return f"(?-i:{item})"  # no simple case folding
        return self.cased(re.escape(item), flags, item in _FOLDS_TO_I)

    def escape_class_item(self) -> _Class | str:
        """After a backslash: a class (``\\d``...) or one literal character."""
        start = self.at - 1
        char = self.take()
        if char == "d":
            return _Class("\\d")
        if char == "D":
            return _Class("\\d").negated()
        if char == "s":
            return _Class(_SPACE)
        if char == "S":
            return _Class(_SPACE).negated()
        if char == "w":
            return self.word()
        if char == "W":
            return self.word().negated()
        if char in ("p", "P"):
            if self.peek() == "{":
                end = self.text.find("}", self.at)
                name = self.text[self.at + 1 : end] if end != -1 else ""
                if not re.fullmatch(r"\^?[A-Za-z0-9_ .:=!-]+", name):
                    raise self.error(f"'\\{char}{{{name}' is not a Unicode class name")
                self.at = end + 1
            elif self.peek() and self.peek() in "CLMNPSZ":  # the one-letter general categories
                self.at += 1
            else:
                raise self.error(f"'\\{char}' must be followed by a class name")
            construct = self.text[start : self.at]
            self.refuse(UntranslatablePattern(construct, "a Unicode property class"))
            return _Class(regex="(?!)")
        if char in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[char]
        if char in ("x", "u", "U"):
            return self.code_point(char)
        if char.isascii() and (char.isalnum() or char in "<>"):
            if char.isdigit():
                raise self.error("back-references and octal escapes are not supported")
            raise self.error(f"unrecognized escape '\\{char}'")
        if not char.isascii():
            raise self.error(f"unrecognized escape '\\{char}'")
        return char  # any escaped ASCII punctuation or space is itself

    def code_point(self, kind: str) -> str:
        if self.peek() == "{":
            end = self.text.find("}", self.at)
            digits = self.text[self.at + 1 : end] if end != -1 else ""
            self.at = end + 1 if end != -1 else len(self.text)
        else:
            width = {"x": 2, "u": 4, "U": 8}[kind]
            digits = self.text[self.at : self.at + width]
            if len(digits) != width:
                raise self.error(f"\\{kind} needs {width} hexadecimal digits")
            self.at += width
        if not re.fullmatch(r"[0-9A-Fa-f]{1,8}", digits):
            raise self.error(f"invalid hexadecimal escape \\{kind}{{{digits}}}")
        code = int(digits, 16)
        if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            raise self.error(f"\\{kind}{{{digits}}} is not a Unicode scalar value")
        return chr(code)

    # -- classes

    def bracket(self, flags: _Flags) -> _Class:
        """A class after its ``[``, up to and including its ``]``."""
        negated = self.peek() == "^"
        if negated:
            self.at += 1
        result = self.class_operand(flags, first=True)
        while True:
            operator = self.text[self.at : self.at + 2]
            if operator not in ("&&", "--", "~~"):
                break
            self.at += 2
            right = self.class_operand(flags, first=False)
            if operator == "&&":
                result = _Class(regex=f"(?={result.regex}){right.regex}")
            elif operator == "--":
                result = _Class(regex=f"(?!{right.regex}){result.regex}")
            else:
                result = _Class(
                    regex=f"(?:(?!{right.regex}){result.regex}|(?!{result.regex}){right.regex})"
                )
        if self.peek() != "]":
            raise self.error("unclosed character class")
        self.at += 1
        return result.negated() if negated else result

    def class_operand(self, flags: _Flags, first: bool) -> _Class:
        items: list[_Class] = []
        while True:
            self.skip_verbose(flags)
            char = self.peek()
            if not char:
                raise self.error("unclosed character class")
            if char == "]" and not (first and not items):
                return _Class.union(items)
            if self.text[self.at : self.at + 2] in ("&&", "--", "~~") and items:
                return _Class.union(items)
            first_item = first and not items
            items.append(self.class_item(flags, first_item))

    def class_item(self, flags: _Flags, first: bool) -> _Class:
        if self.peek() == "[":
            posix = re.compile(r"\[:(\^?)([a-z]+):\]").match(self.text, self.at)
            if posix and posix[2] in _POSIX:
                self.at = posix.end()
                body = _Class(_POSIX[posix[2]])
                return body.negated() if posix[1] else body
            self.at += 1
            return self.bracket(flags)
        low = self.class_char(first)
        if isinstance(low, _Class):
            return low
        self.skip_verbose(flags)
        if self.peek() == "-" and self.peek(1) not in ("]", "-", ""):
            self.at += 1
            self.skip_verbose(flags)
            high = self.class_char(False)
            if isinstance(high, _Class):
                raise self.error("a class range must end with a single character")
            if high < low:
                raise self.error(f"the class range {low!r}-{high!r} is the wrong way round")
            return _range(ord(low), ord(high))
        if low == "\n":
            raise self.error('the literal "\\n" is not allowed: patterns match within one line')
        return _range(ord(low), ord(low))

    def class_char(self, first: bool) -> _Class | str:
        char = self.take()
        if char == "\\":
            if self.peek() in ("b", "B", "A", "z", "<", ">"):
                raise self.error(f"'\\{self.peek()}' is not allowed in a class")
            return self.escape_class_item()
        return char


def _range(low: int, high: int) -> _Class:
    """The class member ``low``-``high``; the dotted capital I and dotless small i in it are
    matched as written, for Python would fold them with "i" under ``(?i)`` and Rust does not."""
    pieces: list[_Class] = []
    start = low
    for turkic in (0x130, 0x131):
        if low <= turkic <= high:
            if start < turkic:
                pieces.append(_Class(_span(start, turkic - 1)))
            pieces.append(_Class(regex=f"(?-i:{chr(turkic)})"))
            start = turkic + 1
    if start <= high:
        pieces.append(_Class(_span(start, high)))
    return pieces[0] if len(pieces) == 1 else _Class.union(pieces)


def _span(low: int, high: int) -> str:
    return _class_char(low) if low == high else f"{_class_char(low)}-{_class_char(high)}"


def translate(pattern: str, ignore_case: bool = False) -> Translation:
    """Translate ``pattern`` (ripgrep's dialect) to Python ``re`` for the native backend.

    :param ignore_case: whether the search folds case (``(?i)`` and ``(?-i)`` inside still apply).
    :raises PatternError: the pattern is not in the dialect.
    :raises UntranslatablePattern: it is, but uses a construct only ripgrep can match.
    """
    parser = _Parser(pattern, ignore_case)
    regex = parser.parse()
    if parser.untranslatable is not None:
        raise parser.untranslatable
    ascii_regex = _Parser(pattern, ignore_case, ascii_text=True).parse()
    try:
        re.compile(regex)
        re.compile(ascii_regex)
    except re.error as exc:  # a gap in the translation must not pass as a wrong answer
        raise PatternError(f"{pattern!r} could not be translated: {exc}.") from None
    return Translation(regex, parser.text_anchors, ascii_regex)
