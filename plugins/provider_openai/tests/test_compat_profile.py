"""``CompatProfile`` behaves as the standard library's frozen, slotted dataclass of its fields.

The reference below is the class as the standard decorator makes it; every check
does the same thing to a profile and to its reference twin and compares what
comes back (a value, or an exception's type and words).
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
import typing
from functools import partial
from typing import Any

import pytest
from agentkit_provider_openai import PROFILES, CompatProfile
from agentkit_provider_openai._compat import (  # the hints' names
    MaxTokensField,
    ReasoningEffortStyle,
)


@dataclasses.dataclass(frozen=True, slots=True)
class Standard:
    """The reference: the fields of ``CompatProfile``, declared with the standard decorator."""

    __qualname__ = "CompatProfile"  # so that its words (repr, errors) name the same class

    name: str
    max_tokens_field: MaxTokensField = "max_tokens"
    supports_developer_role: bool = False
    supports_stream_usage: bool = True
    supports_strict_tools: bool = False
    reasoning_fields: tuple[str, ...] = ("reasoning_content", "reasoning")
    reasoning_effort_style: ReasoningEffortStyle = "none"
    supports_prompt_cache_key: bool = False
    max_tool_call_id_length: int | None = None
    supports_top_k: bool = False
    max_stop_sequences: int | None = None


def outcome(action: Any) -> Any:
    """What ``action()`` gives: its value, or its exception's type name and words."""
    try:
        return action()
    except Exception as exc:  # any exception is an outcome to compare
        return (type(exc).__name__, str(exc))


def twin(profile: CompatProfile) -> Standard:
    return Standard(*(getattr(profile, f.name) for f in dataclasses.fields(Standard)))


PROFILE_LIST = [*PROFILES.values(), CompatProfile("mine", "max_completion_tokens", True, reasoning_fields=())]


def field_facts(cls: Any) -> list[tuple[Any, ...]]:
    return [(f.name, f.type, f.default, f.default_factory, f.init, f.repr, f.hash, f.compare, f.kw_only,
             dict(f.metadata)) for f in dataclasses.fields(cls)]


def test_the_class_is_a_dataclass_of_the_same_fields_signature_and_parameters():
    assert dataclasses.is_dataclass(CompatProfile) and dataclasses.is_dataclass(PROFILES["openai"])
    assert field_facts(CompatProfile) == field_facts(Standard)
    assert field_facts(PROFILES["groq"]) == field_facts(Standard)
    assert repr(CompatProfile.__dataclass_params__) == repr(Standard.__dataclass_params__)  # type: ignore[attr-defined]
    assert CompatProfile.__match_args__ == Standard.__match_args__
    assert CompatProfile.__slots__ == Standard.__slots__
    mine, theirs = inspect.signature(CompatProfile).parameters, inspect.signature(Standard).parameters
    assert [(p.name, p.kind, p.default, p.annotation) for p in mine.values()] == [
        (p.name, p.kind, p.default, p.annotation) for p in theirs.values()]
    assert typing.get_type_hints(CompatProfile) == typing.get_type_hints(Standard)


@pytest.mark.parametrize("profile", PROFILE_LIST, ids=lambda profile: profile.name)
def test_a_profile_prints_compares_and_hashes_as_its_standard_twin(profile: CompatProfile):
    reference = twin(profile)
    assert repr(profile) == repr(reference)
    assert hash(profile) == hash(reference)
    assert profile == dataclasses.replace(profile) and profile == copy.copy(profile)
    assert (profile == reference) is (reference == profile) is False  # another class: never equal
    assert profile.__eq__(3) is NotImplemented and reference.__eq__(3) is NotImplemented
    for f in dataclasses.fields(Standard):
        changed = {f.name: "other"}
        assert (dataclasses.replace(profile, **changed) == profile) is (
            dataclasses.replace(reference, **changed) == reference) is False
    assert dataclasses.asdict(profile) == dataclasses.asdict(reference)
    assert dataclasses.astuple(profile) == dataclasses.astuple(reference)
    assert not hasattr(profile, "__dict__") and not hasattr(reference, "__dict__")


def test_a_profile_that_holds_itself_prints_as_its_standard_twin():
    mine: list[Any] = []
    theirs: list[Any] = []
    profile, reference = CompatProfile("loop", reasoning_fields=mine), Standard("loop", reasoning_fields=theirs)
    mine.append(profile)
    theirs.append(reference)
    assert repr(profile) == repr(reference)


@pytest.mark.parametrize("profile", PROFILE_LIST, ids=lambda profile: profile.name)
def test_a_profile_is_frozen_with_the_standard_words(profile: CompatProfile):
    reference = twin(profile)
    for name in ("name", "supports_top_k"):
        assert outcome(partial(setattr, profile, name, 1)) == outcome(partial(setattr, reference, name, 1))
        assert outcome(partial(delattr, profile, name)) == outcome(partial(delattr, reference, name))
    assert outcome(lambda: setattr(profile, "name", 1))[0] == "FrozenInstanceError"
    # Another name is refused too; the standard class of Python 3.11 says so with a TypeError from
    # its own __setattr__ (it calls super() with the class as it was before slots were added).
    assert outcome(lambda: setattr(profile, "colour", 1)) == ("FrozenInstanceError", "cannot assign to field 'colour'")
    assert outcome(lambda: delattr(profile, "colour")) == ("FrozenInstanceError", "cannot delete field 'colour'")
    assert isinstance(outcome(lambda: setattr(reference, "colour", 1)), tuple)
    assert repr(profile) == repr(reference)  # unchanged


@pytest.mark.parametrize("profile", PROFILE_LIST, ids=lambda profile: profile.name)
def test_a_profile_copies_pickles_and_matches_as_its_standard_twin(profile: CompatProfile):
    for made in (copy.copy(profile), copy.deepcopy(profile), pickle.loads(pickle.dumps(profile))):
        assert type(made) is CompatProfile and made == profile and repr(made) == repr(profile)
    assert profile.__getstate__() == twin(profile).__getstate__()  # what a pickle holds
    match profile:
        case CompatProfile(name, max_tokens_field):
            assert (name, max_tokens_field) == (profile.name, profile.max_tokens_field)
        case _:
            pytest.fail("no match")
    if hasattr(copy, "replace"):  # Python 3.13
        assert copy.replace(profile, supports_top_k=True) == dataclasses.replace(profile, supports_top_k=True)


@pytest.mark.parametrize(("args", "kwargs"), [
    ((), {}),
    (("n",), {"name": "m"}),
    (("n",), {"colour": "red"}),
    (("n", "max_tokens", False, True, False, (), "none", False, None, False, None, "extra"), {}),
    (("n", "max_completion_tokens", True), {"max_stop_sequences": 4}),
])
def test_a_profile_is_made_from_arguments_as_its_standard_twin(args: tuple[Any, ...], kwargs: dict[str, Any]):
    mine = outcome(lambda: CompatProfile(*args, **kwargs))
    theirs = outcome(lambda: Standard(*args, **kwargs))
    if isinstance(theirs, Standard):
        assert isinstance(mine, CompatProfile) and twin(mine) == theirs
    else:
        assert mine == theirs
    replaced = outcome(lambda: dataclasses.replace(PROFILES["local"], **kwargs))
    expected = outcome(lambda: dataclasses.replace(twin(PROFILES["local"]), **kwargs))
    assert (twin(replaced) if isinstance(replaced, CompatProfile) else replaced) == expected


def test_a_standard_dataclass_may_extend_a_profile_as_it_extends_its_twin():
    @dataclasses.dataclass(frozen=True)
    class Mine(CompatProfile):
        extra: int = 0

    @dataclasses.dataclass(frozen=True)
    class Theirs(Standard):
        extra: int = 0

    assert [f.name for f in dataclasses.fields(Mine)] == [f.name for f in dataclasses.fields(Theirs)]
    made = Mine("m", extra=2)
    assert (made.name, made.extra, made.max_tokens_field) == ("m", 2, "max_tokens")
    assert outcome(lambda: setattr(made, "extra", 3)) == ("FrozenInstanceError", "cannot assign to field 'extra'")

    def thawed(base: type) -> Any:
        return dataclasses.dataclass(type("Thawed", (base,), {"__annotations__": {"extra": "int"}, "extra": 0}))

    assert outcome(lambda: thawed(CompatProfile)) == outcome(lambda: thawed(Standard))


def test_a_plain_subclass_is_never_equal_to_a_profile_as_with_its_twin():
    class Mine(CompatProfile):
        __slots__ = ()

    class Theirs(Standard):
        __slots__ = ()

    assert (Mine("m") == CompatProfile("m"), CompatProfile("m") == Mine("m"), Mine("m") == Mine("m")) == (
        Theirs("m") == Standard("m"), Standard("m") == Theirs("m"), Theirs("m") == Theirs("m"))
    assert repr(Mine("m")) == repr(Theirs("m")).replace("Theirs", "Mine")
