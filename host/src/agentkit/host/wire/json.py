"""A strict, bounded JSON decoder for bytes agentkit did not produce.

The standard :func:`json.loads` is lenient where a peer can exploit it:
duplicate object keys silently resolve to the last one (so the peer chooses
which of two values we see), ``NaN`` and ``Infinity`` are accepted, and deep
nesting ends in a ``RecursionError``. :func:`loads` keeps the standard C
scanner for speed and closes those holes around it:

* the size is checked before anything is parsed;
* nesting depth is measured by a pre-scan that skips string contents, so a
  hundred thousand ``[`` cost a clean error, never a recursion; and when the
  C scanner still runs out of recursion (a caller deep in its own stack), the
  text is parsed again by an iterative parser (:mod:`._iterative`), so
  ``RecursionError`` never escapes;
* duplicate keys are rejected at every depth, key order is preserved; the
  error names the repeated key and the byte where it repeats, found by a few
  C-speed passes over the bytes (:mod:`._duplicates`, never a second, slower
  parse) so that refusing a duplicate costs about what accepting the
  document would;
* ``NaN``, ``Infinity``, ``-Infinity`` and numbers that overflow a float are
  rejected; integers stay exact Python ints;
* bytes must be UTF-8 (no BOM), and escaped lone surrogates are rejected,
  because a string holding one cannot be encoded back to UTF-8.

Every failure raises :class:`WireDecodeError` naming what is wrong and the
byte offset where.

What only some texts need (the patterns below, :mod:`._duplicates`,
:mod:`._iterative`) is made the first time one does, in a thread of its own:
see :func:`_on_a_fresh_stack`.
"""

from __future__ import annotations

import _thread
import importlib
import json as _json
import math
import re
import sys
import threading
from collections.abc import Callable, Iterator
from itertools import accumulate
from types import ModuleType
from typing import Any, TypeVar

from .errors import WireDecodeError

_T = TypeVar("_T")

__all__ = ["DEFAULT_MAX_BYTES", "DEFAULT_MAX_DEPTH", "loads"]

DEFAULT_MAX_BYTES = 16 * 1024 * 1024
DEFAULT_MAX_DEPTH = 256

# How a bracket moves the depth (at C speed through ``map``, where a Python test per bracket would not be).
_DEPTH_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def _on_a_fresh_stack(make: Callable[[], _T]) -> _T:
    """``make()``, run in a new thread and waited for: what it returns, or what it raises.

    What only some texts need is made when one first does, and that text can come
    from a caller deep in its own stack, where compiling a pattern or importing a
    module could itself overflow the stack (:func:`loads` never raises
    ``RecursionError``). A new thread starts with a stack and a recursion budget of
    its own, whatever the caller's. Where no thread can be had (the interpreter is
    shutting down, or the process is out of threads), ``make`` runs here.
    """
    outcome: list[tuple[bool, Any]] = []
    done = _thread.allocate_lock()
    done.acquire()

    def run() -> None:
        try:
            outcome.append((True, make()))
        except BaseException as exc:  # handed to the waiting caller, which raises it
            outcome.append((False, exc))
        finally:
            done.release()

    if sys.is_finalizing():  # a thread started now would never run, and the wait never end
        run()
    else:
        try:
            # _thread rather than threading.Thread: starting and waiting add no Python frame to the caller's stack.
            _thread.start_new_thread(run, ())
        except RuntimeError:
            run()
    done.acquire()
    made, value = outcome[0]
    if not made:
        raise value
    return value  # type: ignore[no-any-return]  # make's own result


def _compiled(source: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    return lambda: re.compile(source, flags)


def _locate_duplicate() -> Callable[[bytes, str], int | None]:
    from . import _duplicates

    return _duplicates.locate


# A string token, matched whole (possibly unterminated) so that brackets inside it are never counted.
_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"?'
# How each of _FirstNeeds is made.
_MAKERS: dict[str, Callable[[], Any]] = {
    # A string token or one bracket: where a text nests too deep.
    "depth_token": _compiled(_STRING + r"|[\[\]{}]", re.DOTALL),
    "string": _compiled(_STRING, re.DOTALL),
    "string_or_other": _compiled(_STRING + r'|[^"]+', re.DOTALL),
    "digits": _compiled(r"-?[0-9]+"),
    "not_bracket": _compiled(r"[^\[\]{}]+"),
    # Only an escape can put a surrogate into a decoded string: the text itself is
    # valid UTF-8 (bytes) or checked (str).
    "surrogate_escape": _compiled(r"\\u[dD][89a-fA-F]"),
    "surrogate": _compiled("[\ud800-\udfff]"),
    "locate_duplicate": _locate_duplicate,
    "iterative": lambda: importlib.import_module(f"{__package__}._iterative"),
}


class _FirstNeeds:
    """The decoder's patterns and its search for a repeated key, each made the first time a text needs it.

    A valid text of a few brackets, all ASCII and without ``\\u`` needs none of
    them: compiling the seven patterns at import, with the two modules the error
    paths need (seven more), cost every first use about 7 M instructions
    (callgrind, bench/_first_use.py). Each is made on a fresh stack
    (:func:`_on_a_fresh_stack`), then found as a plain attribute.
    """

    depth_token: re.Pattern[str]
    string: re.Pattern[str]
    string_or_other: re.Pattern[str]
    digits: re.Pattern[str]
    not_bracket: re.Pattern[str]
    surrogate_escape: re.Pattern[str]
    surrogate: re.Pattern[str]
    # :func:`._duplicates.locate`, an attribute rather than the module imported where it is needed:
    # bench_json_duplicates, refusing 2 KB of tool arguments, +0.5 us (1.59x) that way against 1.53x.
    locate_duplicate: Callable[[bytes, str], int | None]
    # :mod:`._iterative`, for a caller out of stack, where even ``from . import`` would add frames.
    iterative: ModuleType

    def __getattr__(self, name: str) -> Any:
        # Only called for an attribute not set yet: one not made yet.
        if name not in _MAKERS:
            raise AttributeError(name)
        try:
            made = _on_a_fresh_stack(_MAKERS[name])
        except ImportError as exc:
            if getattr(sys, "meta_path", None) is not None:
                raise  # a broken install, not a bad text
            # Late in interpreter shutdown Python has dropped its import system (sys.meta_path is None):
            # the text that needs a module of the decoder's still gets the decoder's error.
            raise WireDecodeError(
                f"cannot decode this JSON text: it needs the decoder's {name!r}, which can no longer be "
                "loaded while the interpreter shuts down"
            ) from exc
        setattr(self, name, made)
        return made


_made = _FirstNeeds()


class _BadLiteral(Exception):
    def __init__(self, literal: str, problem: str) -> None:
        self.literal = literal
        self.problem = problem


class _Duplicate(Exception):
    """An object repeats a key (the exact parse finds which, and where, from the offsets)."""


# The first duplicate key met by each thread's parse, by thread id (``loads``
# takes its thread's out before and after each parse, whatever the last one
# left). Recording it (rather than raising from inside the C scanner) keeps the
# refusal of a duplicate as cheap as the acceptance of the same document: the
# parse runs to its end either way, and no exception unwinds through the
# scanner. A dict rather than a ``threading.local``: a parse without duplicates
# (nearly all) asks only whether it is empty, where a thread-local's attribute
# was set and read on every parse (bench_loop, callgrind: about 1,000
# instructions a parse).
_repeats: dict[int, str] = {}


def _repeated(pairs: list[tuple[str, Any]]) -> str:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            return key
        seen.add(key)
    return ""  # pragma: no cover - only called when there is a repeat


def _pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        ident = threading.get_ident()
        if ident not in _repeats:  # the first one met is the one refused
            _repeats[ident] = _repeated(pairs)
    return result


def _raising_pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _Duplicate
    return result


_ALL = sys.maxsize  # as ``valid``: the whole text parsed


def _refuse_duplicate(text: str, raw: bytes | None, valid: int | None) -> None:
    """Raise for the duplicate key the parse just recorded, if any.

    :param valid: how many bytes from the start parsed as JSON (the object
        with the duplicate is among them; what follows is not JSON and could
        mislead the byte search), or ``None`` when that is not known.
    """
    key = _repeats.pop(threading.get_ident(), None) if _repeats else None
    if key is None:
        return
    # A str reaches here only without lone surrogates (they are refused first): strict UTF-8 encodes it.
    data = raw if raw is not None else text.encode()
    offset = None if valid is None else _made.locate_duplicate(data[:valid], key)
    if offset is None:
        offset = _byte_offset(text, _locate_iteratively(text))
    raise WireDecodeError(
        f"duplicate key {key!r} in a JSON object at byte {offset}", offset=offset
    ) from None


def _reject_constant(name: str) -> Any:
    raise _BadLiteral(name, f"{name} is not JSON")


def _parse_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _BadLiteral(text, f"number {text[:40]} is out of the range of a float")
    return value


def _literal_offset(text: str, literal: str) -> int | None:
    """Where ``literal`` first occurs outside a string (the scanner does not say)."""
    for start, segment in _outside_strings(text):
        found = segment.find(literal)
        if found >= 0:
            return _byte_offset(text, start + found)
    return None  # pragma: no cover - the scanner saw it


def _long_integer_offset(text: str, limit: int) -> int | None:
    """Where the first integer of more than ``limit`` digits starts, outside a string."""
    for start, segment in _outside_strings(text):
        for match in _made.digits.finditer(segment):
            if len(match.group()) - match.group().startswith("-") > limit:
                return _byte_offset(text, start + match.start())
    return None  # pragma: no cover - int() saw it


def _outside_strings(text: str) -> Iterator[tuple[int, str]]:
    """The runs of ``text`` between its strings, with where each starts."""
    for match in _made.string_or_other.finditer(text):
        if not match.group().startswith('"'):
            yield match.start(), match.group()


_DECODER = _json.JSONDecoder(
    object_pairs_hook=_pairs_hook,
    parse_constant=_reject_constant,
    parse_float=_parse_float,
    strict=True,
)


# What JSONDecoder.decode calls; typeshed omits both (the scanner every decoder has, and the
# stdlib's module constant since 2.6).
_SCAN = _DECODER.scan_once  # type: ignore[attr-defined]  # see above
_WHITESPACE = _json.decoder.WHITESPACE.match  # type: ignore[attr-defined]  # see above


def _byte_offset(text: str, pos: int) -> int:
    # Before ``pos`` the text holds no lone surrogate (one in a str is refused at the first), so it encodes.
    return len(text[:pos].encode())


def _check_depth(text: str, max_depth: int) -> None:
    # Cheap exits first: every level needs its own opening bracket, so a text
    # with few of them (counting those inside strings too) cannot be too deep.
    if len(text) <= max_depth or text.count("[") + text.count("{") <= max_depth:
        return
    brackets = _made.not_bracket.sub("", _made.string.sub("", text))
    opening = brackets.count("[") + brackets.count("{")
    if opening <= max_depth:
        return
    if max(accumulate(map(_DEPTH_STEP.__getitem__, brackets)), default=0) <= max_depth:
        return
    # Too deep: find where, for the message (a slow walk only on failure).
    depth = 0
    for match in _made.depth_token.finditer(text):
        depth += _DEPTH_STEP.get(match.group(), 0)  # a string changes nothing
        if depth > max_depth:
            offset = _byte_offset(text, match.start())
            raise WireDecodeError(
                f"JSON nests deeper than {max_depth} levels at byte {offset}",
                offset=offset,
            )


def _locate_iteratively(text: str) -> int:
    """Where the first object with a repeated key repeats it, by an exact (slower) parse."""
    _iterative = _made.iterative
    try:
        _iterative.decode(
            text, pairs_hook=_raising_pairs_hook, parse_float=_parse_float, parse_constant=_reject_constant
        )
    except _iterative.HookFailed as exc:
        if isinstance(exc.error, _Duplicate):
            seen: set[str] = set()
            key_offsets: list[int] = exc.key_offsets  # (HookFailed's, read through the module made on first need)
            for offset in key_offsets:
                # typeshed omits json.decoder.scanstring, exported by the stdlib since 2.6.
                name, _ = _json.decoder.scanstring(text, offset + 1)  # type: ignore[attr-defined]  # see above
                if name in seen:
                    return offset
                seen.add(name)
    except (ValueError, _BadLiteral, _Duplicate):  # pragma: no cover - the fast path saw the duplicate
        pass
    return 0  # pragma: no cover


def _contains_surrogate(value: Any) -> bool:
    # A list as the stack, not recursion: the value may be as deep as max_depth.
    search = _made.surrogate.search
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if search(item) is not None:
                return True
        elif isinstance(item, dict):
            pending.extend(item)
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


def loads(
    data: bytes | bytearray | memoryview | str,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> Any:
    """Decode exactly one strict JSON text.

    :param data: UTF-8 bytes (preferred: what came off the wire) or a str.
    :param max_bytes: the largest input accepted, in UTF-8 bytes, checked
        before parsing.
    :param max_depth: the deepest nesting of arrays and objects accepted.
    :returns: the value; objects are dicts in document order, integers are
        exact ints.
    :raises WireDecodeError: the input is too large, too deep, not UTF-8, not
        JSON, has a duplicate key, a NaN/Infinity, an out-of-range number, a
        lone surrogate, or anything after the value.
    """
    raw: bytes | None = None
    if isinstance(data, str):
        text = data
        # A character is at most four UTF-8 bytes: only encode when in doubt.
        if len(text) > max_bytes or (
            len(text) * 4 > max_bytes and len(text.encode("utf-8", "surrogatepass")) > max_bytes
        ):
            raise WireDecodeError(f"JSON text is larger than {max_bytes} bytes")
        surrogate = None if text.isascii() else _made.surrogate.search(text)
        if surrogate is not None:
            offset = _byte_offset(text, surrogate.start())
            raise WireDecodeError(f"lone surrogate in JSON text at byte {offset}", offset=offset)
    else:
        if len(data) > max_bytes:
            raise WireDecodeError(
                f"JSON text is {len(data)} bytes, larger than the {max_bytes} allowed"
            )
        raw = bytes(data)
        if raw.startswith(b"\xef\xbb\xbf"):
            raise WireDecodeError(
                "JSON text starts with a UTF-8 byte order mark at byte 0", offset=0
            )
        try:
            text = raw.decode()  # UTF-8, strict: the defaults
        except UnicodeDecodeError as exc:
            raise WireDecodeError(
                f"JSON text is not valid UTF-8 at byte {exc.start}", offset=exc.start
            ) from None

    if len(text) > max_depth:  # _check_depth's own first exit, without the call
        _check_depth(text, max_depth)
    if _repeats:  # whatever an interrupted parse of this thread left
        _repeats.pop(threading.get_ident(), None)
    try:
        try:
            # JSONDecoder.decode with its two Python frames written out: bench_sse's events, loads
            # -26 bytecodes each (16%); bench_loop sse sync -242 bytecodes/turn (1.0%), json sync -104 (0.6%).
            try:
                value, end = _SCAN(text, _WHITESPACE(text).end())
            except StopIteration as exc:
                raise _json.JSONDecodeError("Expecting value", text, exc.value) from None
            end = _WHITESPACE(text, end).end()
            if end != len(text):
                raise _json.JSONDecodeError("Extra data", text, end)
        except RecursionError:
            # The caller's own stack was deep: parse again without recursing.
            if _repeats:
                _repeats.pop(threading.get_ident(), None)
            value = _made.iterative.decode(
                text, pairs_hook=_pairs_hook, parse_float=_parse_float, parse_constant=_reject_constant
            )
    except _json.JSONDecodeError as exc:
        offset = _byte_offset(text, exc.pos)
        _refuse_duplicate(text, raw, offset)  # a duplicate met before the error came first
        raise WireDecodeError(f"invalid JSON at byte {offset}: {exc.msg}", offset=offset) from None
    except _BadLiteral as exc:
        where = _literal_offset(text, exc.literal)
        _refuse_duplicate(text, raw, where)
        raise WireDecodeError(f"invalid JSON at byte {where}: {exc.problem}", offset=where) from None
    except ValueError:
        # The one ValueError the scanner lets through besides JSONDecodeError: int() refuses
        # more digits than sys.get_int_max_str_digits() (a guard against quadratic
        # conversion), and does not say where.
        limit = sys.get_int_max_str_digits()
        where = _long_integer_offset(text, limit)
        _refuse_duplicate(text, raw, where)
        raise WireDecodeError(
            f"invalid JSON at byte {where}: an integer has more than {limit} digits",
            offset=where,
        ) from None
    if _repeats:  # this thread's parse, or another's running now
        _refuse_duplicate(text, raw, _ALL)
    if "\\u" in text and _made.surrogate_escape.search(text) and _contains_surrogate(value):
        raise WireDecodeError("JSON string holds an escaped lone surrogate (\\ud800-\\udfff)")
    return value
