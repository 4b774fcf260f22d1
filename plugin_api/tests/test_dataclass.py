"""The plugin API's ``dataclass`` gives the class the standard library's does, observed from outside.

Each case declares the same class body twice, once with each decorator, and
holds the two to the same answers: the signature and annotations of
``__init__``, ``repr``, equality and hashing, frozen assignment and deletion,
``copy``, ``pickle``, ``dataclasses.fields``/``replace``/``asdict``,
``__match_args__``, ``__slots__``, ``__dataclass_params__`` and the errors of a
bad declaration. The public types declared with it are checked against a twin
made with the standard library.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import inspect
import pickle
import re
import sys
import types
import typing
from dataclasses import field

import pytest

from agentkit.plugin_api import _dataclass
from agentkit.plugin_api._dataclass import dataclass as fast_dataclass

DECORATORS = {"stdlib": dataclasses.dataclass, "fast": fast_dataclass}
Setting = typing.ClassVar  # the standard library reads a string annotation's leading name in the module


class Based:
    """A plain base class whose attribute is a field's default in a dataclass below it."""

    size = 4
OPTIONS = [{}, {"frozen": True}, {"slots": True}, {"frozen": True, "slots": True}, {"eq": False},
           {"frozen": True, "eq": False}, {"repr": False}, {"init": False}]


@pytest.fixture(params=["fields", "compiled"])
def tier(request, monkeypatch):
    """Each instance filled field by field (the first instances of a class), or by the compiled ``__init__``."""
    monkeypatch.setattr(_dataclass, "COMPILE_AFTER", 10**9 if request.param == "fields" else 0)
    return request.param


def declare(decorator, options, body="plain", tag="fast"):
    """A class of this module (so that pickle finds it) with one of the bodies below, under ``decorator``."""

    if body == "plain":
        class Point:
            """A point."""

            x: int
            y: float = 0.5
            label: str | None = field(default=None, kw_only=True)
            tags: list[str] = field(default_factory=list)
            kind: typing.Literal["point"] = field(default="point", init=False)
            hidden: int = field(default=3, repr=False, compare=False)
    elif body == "post_init":
        class Point:  # type: ignore[no-redef]
            """A point that checks itself."""

            x: int
            y: int = 0

            def __post_init__(self) -> None:
                if self.x < 0:
                    raise ValueError("x must be >= 0")
    elif body == "own_methods":
        class Point:  # type: ignore[no-redef]
            """A point with its own equality and repr."""

            x: int
            y: int = 0

            def __eq__(self, other: object) -> bool:
                return isinstance(other, Point) and other.x == self.x

            def __repr__(self) -> str:
                return f"<{self.x}>"
    elif body == "own_hash":
        class Point:  # type: ignore[no-redef]
            """A point with its own hash."""

            x: int

            def __hash__(self) -> int:
                return 7
    elif body == "self_field":
        class Point:  # type: ignore[no-redef]
            """A field called self."""

            self: int
            other: int = 1
    elif body == "empty":
        class Point:  # type: ignore[no-redef]
            """No fields."""
    elif body == "classvar":
        class Point:  # type: ignore[no-redef]
            """A class variable is no field."""

            limit: typing.ClassVar[int] = 3
            x: int = 0
    elif body == "classvar_by_another_name":
        class Point:  # type: ignore[no-redef]
            """A class variable named by an alias of the module."""

            limit: Setting[int] = 3
            x: int = 0
    elif body == "keywords_marker":
        class Point:  # type: ignore[no-redef]
            """Fields after the marker are keywords only."""

            x: int
            _: dataclasses.KW_ONLY
            y: int = 0
    elif body == "positional_fields":
        class Point:  # type: ignore[no-redef]
            """Every field a positional argument, one with a default factory."""

            x: int
            y: int = 0
            tags: list[int] = field(default_factory=list)
            z: int = 2
    elif body == "default_from_a_base":
        class Point(Based):  # type: ignore[no-redef]
            """A field whose default a plain base class holds."""

            x: int = 0
            size: int
    made = decorator(**options)(Point)
    made.__qualname__ = made.__name__ = f"Point_{body}_{tag}"
    setattr(sys.modules[__name__], made.__qualname__, made)  # pickle looks the class up by its qualified name
    return made


def pair(options, body="plain"):
    return [declare(decorator, options, body, tag) for tag, decorator in DECORATORS.items()]


def shown(value):
    """``repr(value)`` with the class's name left out (the twins are named apart)."""
    return re.sub(" at 0x[0-9a-f]+", "", repr(value).replace(type(value).__qualname__, "Point"))


def outcome(call):
    """What a call gives: its value, or the type and words of what it raised."""
    try:
        return ("value", call())
    except Exception as exc:  # the point is to compare what is raised
        return ("raised", type(exc), re.sub(r"Point_\w+_(fast|stdlib)", "Point", str(exc)))


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_the_plain_body_behaves_as_under_the_standard_decorator(options, tier):
    stdlib, fast = pair(options)
    behave_alike(stdlib, fast, options)
    # Looked up on the class (a signature, annotations), __init__ is the compiled one in either tier.
    assert str(inspect.signature(fast)) == str(inspect.signature(stdlib))
    if options.get("init") is not False:
        assert fast.__init__.__annotations__ == stdlib.__init__.__annotations__
        assert typing.get_type_hints(fast.__init__) == typing.get_type_hints(stdlib.__init__)
    assert fast.__init__.__qualname__.split(".")[-1] == "__init__"
    behave_alike(stdlib, fast, options)


def behave_alike(stdlib, fast, options):
    assert [(f.name, f.type, f.default, f.init, f.repr, f.compare, f.kw_only) for f in dataclasses.fields(fast)] == \
        [(f.name, f.type, f.default, f.init, f.repr, f.compare, f.kw_only) for f in dataclasses.fields(stdlib)]
    assert fast.__match_args__ == stdlib.__match_args__
    assert hasattr(fast, "__slots__") == hasattr(stdlib, "__slots__")
    for name in ("init", "repr", "eq", "order", "unsafe_hash", "frozen"):
        assert getattr(fast.__dataclass_params__, name) == getattr(stdlib.__dataclass_params__, name)
    assert (fast.__hash__ is None) == (stdlib.__hash__ is None)
    if options.get("init") is False:
        return
    a, b = stdlib(1, label="a"), fast(1, label="a")
    assert shown(b) == shown(a)
    assert outcome(lambda: fast(1) == fast(1)) == outcome(lambda: stdlib(1) == stdlib(1))
    assert outcome(lambda: fast(1) == fast(1, 2.0)) == outcome(lambda: stdlib(1) == stdlib(1, 2.0))
    assert (fast(1, hidden=5) == fast(1)) == (stdlib(1, hidden=5) == stdlib(1))
    assert fast(1).__eq__(object()) is NotImplemented or options.get("eq") is False
    assert outcome(lambda: hash(fast(1)) == hash(fast(1))) == outcome(lambda: hash(stdlib(1)) == hash(stdlib(1)))
    assert fast(1).tags is not fast(1).tags  # a factory per instance
    assert outcome(lambda: setattr(b, "x", 2)) == outcome(lambda: setattr(a, "x", 2))
    assert outcome(lambda: delattr(b, "y")) == outcome(lambda: delattr(a, "y"))
    if options.get("frozen") and options.get("slots"):
        # Python 3.11's own refuses with a TypeError from super() (its __setattr__ names the class
        # before __slots__ made a new one); this one says FrozenInstanceError. Both refuse.
        assert outcome(lambda: setattr(b, "other", 2))[0] == outcome(lambda: setattr(a, "other", 2))[0] == "raised"
    else:
        assert outcome(lambda: setattr(b, "other", 2)) == outcome(lambda: setattr(a, "other", 2))
    a, b = stdlib(1, label="a", tags=["t"]), fast(1, label="a", tags=["t"])
    for clone in (copy.copy, copy.deepcopy, lambda v: pickle.loads(pickle.dumps(v))):
        assert dataclasses.asdict(clone(b)) == dataclasses.asdict(clone(a)) == dataclasses.asdict(a)
    assert dataclasses.asdict(dataclasses.replace(b, y=4.0)) == dataclasses.asdict(dataclasses.replace(a, y=4.0))
    assert outcome(lambda: dataclasses.replace(b, kind="x")) == outcome(lambda: dataclasses.replace(a, kind="x"))
    match fast(1):
        case fast(x, y):
            assert (x, y) == (1, 0.5)


@pytest.mark.parametrize("options", [{}, {"frozen": True}, {"slots": True}, {"frozen": True, "slots": True}], ids=str)
@pytest.mark.parametrize("body", ["post_init", "own_methods", "own_hash", "self_field", "empty", "classvar",
                                  "classvar_by_another_name", "keywords_marker", "default_from_a_base",
                                  "positional_fields"])
def test_other_bodies_behave_as_under_the_standard_decorator(options, body, tier):
    stdlib, fast = pair(options, body)
    assert [f.name for f in dataclasses.fields(fast)] == [f.name for f in dataclasses.fields(stdlib)]
    assert (fast.__hash__ is None) == (stdlib.__hash__ is None)
    arguments = {"post_init": [(1,), (-1,)], "own_methods": [(1, 2)], "own_hash": [(1,)], "self_field": [(1, 2)],
                 "empty": [()], "classvar": [(1,)], "classvar_by_another_name": [(1,)], "keywords_marker": [(1,)],
                 "default_from_a_base": [(1,), (1, 2)], "positional_fields": [(1,), (1, 2, [3], 4)]}[body]
    for args in arguments:
        assert_same_instances(stdlib, fast, args, hashed=body != "own_methods" and stdlib.__hash__ is not None)
    assert str(inspect.signature(fast)) == str(inspect.signature(stdlib))


#: Calls no __init__ of the plain body accepts: missing, unknown, repeated or too many arguments.
BAD_CALLS = [((), {}), ((1,), {"z": 2}), ((1,), {"x": 2}), ((1, 2.0, [], 4, 5), {}), ((1,), {"kind": "x"}),
             ((), {"y": 1.0}), ((1, 2.0), {"label": "a", "y": 3.0})]


@pytest.mark.parametrize(("args", "kwargs"), BAD_CALLS, ids=str)
@pytest.mark.parametrize("options", [{}, {"frozen": True, "slots": True}], ids=str)
def test_a_call_init_does_not_accept_is_refused_in_the_standard_words(args, kwargs, options, tier):
    stdlib, fast = pair(options)

    def refusal(cls):  # the words, the function named by the class's name (the twins are renamed once made)
        kind, *rest = outcome(lambda: cls(*args, **kwargs))
        return kind, *(re.sub(r"[\w.<>]*\.__init__\(\)", "__init__()", str(part)) for part in rest)

    assert refusal(fast) == refusal(stdlib)
    assert refusal(fast)[0] == "raised"
    assert shown(fast(1)) == shown(stdlib(1))  # and the class still works after


@pytest.mark.parametrize("body", ["plain", "positional_fields", "post_init", "default_from_a_base"])
def test_an_instance_is_given_its_fields_in_their_order_whatever_the_order_of_the_keywords(body, tier):
    stdlib, fast = pair({}, body)
    names = [f.name for f in dataclasses.fields(stdlib) if f.init]
    given = {name: index for index, name in enumerate(names)} | ({"tags": []} if "tags" in names else {})
    backwards = dict(reversed(given.items()))
    assert list(vars(fast(**backwards)).items()) == list(vars(stdlib(**backwards)).items())
    assert list(vars(fast(**{names[0]: 1})).items()) == list(vars(stdlib(**{names[0]: 1})).items())


@pytest.mark.parametrize(("args", "kwargs"), [((), {}), ((1,), {"q": 2}), ((1,), {"x": 2}), ((1, 2, [], 4, 5), {}),
                                              ((), {"y": 1})], ids=str)
def test_a_call_a_plan_of_positional_fields_does_not_accept_is_refused_in_the_standard_words(args, kwargs, tier):
    stdlib, fast = pair({}, "positional_fields")
    refusal = [re.sub(r"[\w.<>]*\.__init__\(\)", "__init__()", str(outcome(lambda c=c: c(*args, **kwargs))))
               for c in (fast, stdlib)]
    assert refusal[0] == refusal[1] and "raised" in refusal[0]


def test_a_class_compiles_its_init_once_it_has_made_a_few_instances():
    fast = declare(fast_dataclass, {"frozen": True, "slots": True})
    made = [fast(n) for n in range(_dataclass.COMPILE_AFTER)]
    assert not inspect.isfunction(vars(fast)["__init__"])  # filled field by field so far
    made.append(fast(99))
    assert inspect.isfunction(vars(fast)["__init__"])
    assert [m.x for m in made] == [*range(_dataclass.COMPILE_AFTER), 99]


def assert_same_instances(stdlib, fast, args, *, hashed):
    a, b = outcome(lambda: stdlib(*args)), outcome(lambda: fast(*args))
    assert a[0] == b[0]
    if a[0] == "raised":
        assert a[1:] == b[1:]
        return
    assert shown(b[1]) == shown(a[1])
    assert outcome(lambda: b[1] == fast(*args)) == outcome(lambda: a[1] == stdlib(*args))
    if hashed:  # the same tuple is hashed
        assert outcome(lambda: hash(b[1])) == outcome(lambda: hash(a[1]))


def test_a_value_that_holds_itself_is_shown_as_the_standard_library_shows_it():
    stdlib, fast = pair({})
    a, b = stdlib(1), fast(1)
    a.tags.append(a)
    b.tags.append(b)
    assert shown(b) == shown(a)
    assert "..." in repr(b)


@pytest.mark.parametrize("decorator", DECORATORS.values(), ids=DECORATORS)
def test_bad_declarations_are_refused_when_declared_with_the_standard_words(decorator):
    def declared(make):
        try:
            make()
        except (TypeError, ValueError) as exc:
            return type(exc), str(exc)
        return None

    def mutable_default():
        class Bad:
            """Shared list."""

            items: list[int] = []

        decorator(Bad)

    def default_order():
        class Bad:
            """Order."""

            x: int = 0
            y: int

        decorator(Bad)

    def frozen_setattr():
        class Bad:
            """Own setattr."""

            x: int

            def __setattr__(self, name, value):
                pass

        decorator(frozen=True)(Bad)

    expected = {
        mutable_default: (ValueError, "mutable default <class 'list'> for field items is not allowed: "
                                      "use default_factory"),
        default_order: (TypeError, "non-default argument 'y' follows default argument"),
        frozen_setattr: (TypeError, "Cannot overwrite attribute __setattr__ in class Bad"),
    }
    for make, words in expected.items():
        assert declared(make) == words


def test_a_standard_frozen_subclass_of_a_frozen_class_is_accepted_and_a_thawed_one_refused():
    (_, base) = pair({"frozen": True})

    @dataclasses.dataclass(frozen=True)
    class Child(base):
        """A frozen child."""

        z: int = 0

    assert Child(1, z=2).z == 2
    with pytest.raises(TypeError, match="cannot inherit non-frozen dataclass from a frozen one"):
        @dataclasses.dataclass
        class Thawed(base):
            """A thawed child."""


def test_the_signature_is_there_before_the_first_instance():
    fast = declare(fast_dataclass, {"frozen": True, "slots": True})
    assert list(inspect.signature(fast).parameters) == ["x", "y", "tags", "hidden", "label"]
    assert fast(3).x == 3


def _public_dataclasses():
    import agentkit.plugin_api as api

    for name in api.__all__:
        value = getattr(api, name)
        if isinstance(value, type) and dataclasses.is_dataclass(value):
            yield value


@pytest.mark.parametrize("cls", list(_public_dataclasses()), ids=lambda c: c.__name__)
def test_each_public_dataclass_has_the_signature_its_fields_give(cls):
    """A twin made from the same fields by the standard library takes the same arguments."""
    twin = dataclasses.make_dataclass(
        cls.__name__,
        [(f.name, f.type, field(default=f.default, default_factory=f.default_factory, init=f.init, repr=f.repr,
                                hash=f.hash, compare=f.compare, kw_only=f.kw_only)) for f in dataclasses.fields(cls)],
        frozen=cls.__dataclass_params__.frozen, eq=cls.__dataclass_params__.eq, namespace={"__module__": cls.__module__},
    )
    assert str(inspect.signature(cls)) == str(inspect.signature(twin))
    assert (cls.__hash__ is None) == (twin.__hash__ is None) or "__hash__" in vars(cls)


def _enumerations():
    import agentkit.plugin_api as api

    for name in api.__all__:
        value = getattr(api, name)
        if isinstance(value, type) and issubclass(value, enum.Enum):
            yield value


def _twin(cls):
    """The enumeration a class statement ``class Name(StrEnum)`` with the members and docstring of ``cls`` makes."""

    def body(namespace):
        for name, value in [("__doc__", cls.__doc__), ("__module__", cls.__module__),
                            ("__qualname__", cls.__qualname__), *((m.name, m.value) for m in cls)]:
            namespace[name] = value

    return types.new_class(cls.__name__, (enum.StrEnum,), exec_body=body)


def test_the_package_has_enumerations_to_check():
    assert {cls.__name__ for cls in _enumerations()} >= {"Outcome", "StopReason", "ExecutionMode"}


@pytest.mark.parametrize("cls", list(_enumerations()), ids=lambda c: c.__name__)
def test_each_enumeration_is_the_one_its_class_statement_makes(cls):
    """The standard library's own check of an enumeration made by its fast path against the class statement's."""
    twin = _twin(cls)
    enum._test_simple_enum(twin, cls)
    # Each member is the class's own attribute, as the class statement leaves it (not a descriptor that finds
    # the member in Python at every read, as the fast path alone leaves it: a read per turn would cost that).
    assert all(vars(twin)[m.name] is m for m in twin)
    assert all(vars(cls)[m.name] is m for m in cls)
    member = next(iter(cls))
    assert pickle.loads(pickle.dumps(member)) is member
    assert (str(member), f"{member}", cls(member.value)) == (member.value, member.value, member)
    with pytest.raises(ValueError, match=f"'nothing' is not a valid {cls.__name__}"):
        cls("nothing")


@pytest.mark.parametrize("fast_path", [True, False], ids=["fast path", "functional API"])
def test_str_enum_makes_what_the_class_statement_makes(fast_path, monkeypatch):
    if not fast_path:  # a Python without the standard library's fast path
        monkeypatch.delattr(enum, "_simple_enum")

    @_dataclass.str_enum
    class Colour(_dataclass.StrEnumBase):
        """A colour."""

        RED = "red"
        DARK_RED = "dark red"

    assert type(Colour) is enum.EnumType
    monkeypatch.undo()
    enum._test_simple_enum(_twin(Colour), Colour)
    assert all(vars(Colour)[m.name] is m for m in Colour)
    assert [(m.name, m.value) for m in Colour] == [("RED", "red"), ("DARK_RED", "dark red")]
    assert Colour.__doc__ == "A colour."
