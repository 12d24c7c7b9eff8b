"""The rules verify mode compares a compiled run with a plain run by, and the copies it makes."""

from __future__ import annotations

import dataclasses
import enum
from fractions import Fraction

import numpy as np
import pytest

from astcompile.compare import (
    EXACT,
    LONGEST_COUNT,
    TOLERANCE,
    Allowance,
    call_differences,
    copy_args,
    differences,
    exception_differences,
    input_floor,
    terms_in,
    tolerance,
)


@dataclasses.dataclass
class Holder:
    a: np.ndarray


def test_exact_kinds_and_float_tolerances():
    assert tolerance(np.dtype(np.int32)) == tolerance(np.dtype(bool)) == (0.0, 0.0)
    assert tolerance(np.dtype(np.float32)) == tolerance(np.dtype(np.complex64))
    assert tolerance(np.dtype(np.float64)) == tolerance(np.dtype(np.complex128)) == (1e-12, 1e-12)


@pytest.mark.parametrize(
    "got, expected",
    [
        (np.array([1.0, np.nan, np.inf, -0.0]), np.array([1.0, np.nan, np.inf, -0.0])),
        (np.float32(1.0) + np.float32(5e-6), np.float32(1.0)),
        (np.array([1e6, 1e-13]), np.array([1e6, 0.0])),  # within the absolute tolerance
        ((np.arange(3), 2.5, None, "s"), (np.arange(3), 2.5, None, "s")),
        (np.array([1 + 2j]), np.array([1 + 2j])),
        ({"a": [1, np.float32(2.0)]}, {"a": [1, np.float32(2.0)]}),
        (Fraction(1, 2), Fraction(2, 4)),
        (object(), object()),  # no ``==`` of its own: the type is all that can be compared
    ],
)
def test_equal_within_tolerance(got, expected):
    assert differences(got, expected) == []


@pytest.mark.parametrize(
    "got, expected, text",
    [
        (np.arange(3), np.arange(3.0), "dtype int64 != float64"),
        (np.zeros((2, 3)), np.zeros((3, 2)), "shape (2, 3) != (3, 2)"),
        (np.float64(1.0), 1.0, "type float64 != float"),
        (np.array([1, 2, 3]), np.array([1, 2, 4]), "1 of 3 element(s) differ (exact)"),
        (np.array([np.inf]), np.array([-np.inf]), "first at index (0,): compiled inf, plain -inf"),
        (np.array([np.nan]), np.array([0.0]), "compiled nan, plain 0.0"),
        (np.float32(1.001), np.float32(1.0), "rtol 1e-05"),
        ((1, 2), (1, 2, 3), "length 2 != 3"),
        ([np.zeros(2)], [np.ones(2)], "result[0]: 2 of 2"),
        (True, False, "True != False"),
        (np.array([1e6, 1e-9]), np.array([1e6, 1e-8]), "compiled 1e-09, plain 1e-08"),  # not scaled
        (np.array([0.0, -0.0]), np.array([0.0, 0.0]), "compiled -0.0, plain 0.0"),
        (np.array([1j]), np.array([complex(-0.0, 1.0)]), "1 of 1 element(s) differ"),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}, "keys ['a', 'b'] != ['b', 'a']"),
        ({"a": [np.zeros(2)]}, {"a": [np.ones(2)]}, "result['a'][0]: 2 of 2"),
        (Fraction(1, 2), Fraction(1, 3), "Fraction(1, 2) != Fraction(1, 3)"),
        (Holder(np.zeros(2)), Holder(np.ones(2)), "result.__dict__['a']: 2 of 2"),
    ],
)
def test_differences_name_what_differs(got, expected, text):
    (problem,) = differences(got, expected)
    assert text in problem


def test_objects_whose_own_eq_raises_compare_by_attributes():
    """A dataclass of arrays: its ``==`` raises (the truth value of an array); equal
    attributes are no difference, and a differing one is named, not raised."""
    assert differences(Holder(np.arange(3.0)), Holder(np.arange(3.0))) == []


def test_float32_inputs_allow_float32_tolerance_in_float64_results():
    args = (np.ones(3, np.float32),)
    assert input_floor(args) == Allowance(1e-5, 1e-5, 3)
    got, expected = np.array([1.0 + 1e-7]), np.array([1.0])
    assert differences(got, expected) and not differences(got, expected, floor=input_floor(args))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_the_tolerance_grows_with_the_length_of_a_sum(dtype):
    """The table is the floor; past it the tolerance is ``n * eps / 2``: two orders of adding
    ``n`` terms differ by up to that much, so a fixed tolerance fails a long enough scan."""
    dtype = np.dtype(dtype)
    eps = float(np.finfo(dtype).eps)
    assert tolerance(dtype) == tolerance(dtype, 10) == TOLERANCE[dtype]
    floor = TOLERANCE[dtype][0]
    long = int(4 * floor / eps)
    assert tolerance(dtype, long) == (long * eps / 2, long * eps / 2)
    lengths = [1, 10, 100, 10**4, 10**6, 10**8]
    assert [tolerance(dtype, n) for n in lengths] == sorted(tolerance(dtype, n) for n in lengths)
    assert tolerance(np.dtype(np.int64), 10**6) == (0.0, 0.0)


def test_terms_are_the_longest_array_list_or_count_of_the_inputs():
    assert terms_in((np.ones((30, 40)), np.ones(7))) == 1200
    assert terms_in(([1.0] * 50, {"k": np.ones(9)})) == 50
    assert terms_in((np.ones(3), 500, np.int32(700))) == 700  # range(n), np.ones(n)
    assert terms_in((np.ones(3), LONGEST_COUNT + 1, True, -5)) == 5  # a value, a bool, |-5|
    assert terms_in(()) == terms_in(2.5) == terms_in("s") == 1


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_long_scan_in_another_order_is_within_tolerance(dtype):
    """A sequential ``cumsum`` of 0.1s drifts from NumPy's pairwise ``sum`` by more than the
    table allows once it is long (about 0.09 * n * eps): within the tolerance of the inputs'
    length (0.6 % for 100,000 float32 terms), while a value 1 % off still differs."""
    n = 4_000_000 if dtype == np.float64 else 100_000
    x = np.full(n, 0.1, dtype)
    sequential, pairwise = np.cumsum(x)[-1:], np.sum(x, keepdims=True)
    assert differences(sequential, pairwise)  # the fixed table alone: too tight
    assert differences(sequential, pairwise, floor=input_floor((x,))) == []
    assert differences(sequential * dtype(1.01), pairwise, floor=input_floor((x,)))


def test_exceptions_compare_by_type():
    assert exception_differences(None, None) == []
    assert exception_differences(ValueError("a"), ValueError("b")) == []  # worded otherwise
    (problem,) = exception_differences(None, ValueError("bad"))
    assert problem == "raised nothing, plain ValueError: bad"
    (problem,) = exception_differences(TypeError("x"), ValueError("x"))
    assert problem == "raised TypeError: x, plain ValueError: x"


def test_numpys_overflow_message_must_name_the_same_int():
    plain = OverflowError("Python integer 300 out of bounds for int8")
    assert exception_differences(OverflowError(f"{plain}\n  at user.py:3"), plain) == []
    (problem,) = exception_differences(OverflowError("Python integer out of bounds"), plain)
    assert "Python integer 300" in problem
    assert exception_differences(OverflowError("a"), OverflowError("b")) == []  # other words


def test_call_differences_compare_arguments_after_the_call():
    problems = call_differences(
        (1,), (1,), (np.array([1, 2]), 3), (np.array([1, 0]), 3), ("x", "n"), EXACT
    )
    expected = (
        "argument 'x' after the call: 1 of 2 element(s) differ (exact); "
        "first at index (1,): compiled 2, plain 0"
    )
    assert problems == [expected]


def test_copies_keep_views_aliasing_and_read_only_flags():
    x = np.arange(10.0)
    tail, reversed_odd = x[1:], x[1::2][::-1]
    frozen = np.arange(3)
    frozen.flags.writeable = False
    f_order = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    cx, ctail, codd, cfrozen, cf, cfv, nested = copy_args(
        (x, tail, reversed_odd, frozen, f_order, f_order[:, 1:3], [x, {"k": tail}])
    )
    assert not np.shares_memory(cx, x) and np.shares_memory(cx, ctail)
    ctail[0] = -1.0
    codd[0] = -9.0
    assert cx[1] == -1.0 and cx[9] == -9.0 and x[1] == 1.0
    assert not cfrozen.flags.writeable
    cfv[0, 0] = -7.0
    assert cf[0, 1] == -7.0 and f_order[0, 1] == 1.0
    assert nested[0] is cx and nested[1]["k"] is ctail


def test_a_result_in_another_memory_order_differs():
    """A C-ordered result where NumPy's is F-ordered differs: a later ``reshape`` is a view
    of one and a copy of the other (verify mode compared values only)."""
    a = np.ones((2, 3))
    assert differences(np.asfortranarray(a), a) == ["result: memory order F != C"]
    assert differences(a[:, ::2], a[:, :2].copy()) == ["result: memory order strided != C"]
    assert differences(a[:1], np.ones((1, 3))) == []


class Counting:
    """Every attribute its ``__getattr__`` answers is counted, protocol probes too."""

    __slots__ = ("__dict__", "tag")

    def __init__(self, tag):
        self.tag, self.asked, self.shared = tag, [], np.arange(3.0)

    def __getattr__(self, name):
        self.asked.append(name)
        raise AttributeError(name)


class Restored(Counting):
    __slots__ = ()

    def __setstate__(self, state):
        own, slots = state
        self.__dict__.update(own, restored=True)
        self.tag = slots["tag"]


@pytest.mark.parametrize("cls", [Counting, Restored])
def test_a_copy_never_asks_the_objects_getattr(cls):
    """``copy.deepcopy`` looked ``__deepcopy__`` up through the object's ``__getattr__`` (a
    counter it keeps went up: verify mode's copies) and ``__setstate__`` through the bare
    copy's; the copy is the same otherwise: attributes, slots, arrays shared as before."""
    obj = cls("t")
    copied, shared = copy_args((obj, obj.shared))
    assert obj.asked == [] and copied.asked == []
    assert type(copied) is cls and copied.tag == "t" and copied.shared is shared
    assert not np.shares_memory(shared, obj.shared)
    assert copied.__dict__.get("restored", False) is (cls is Restored)


def test_datetime_arguments_are_copied_with_their_views():
    """A ``datetime64``/``timedelta64`` array exports no buffer: its copy raised ValueError
    ("cannot include dtype 'M' in a buffer"), so verify mode never checked a call taking
    one, and the differential tests could not run it."""
    t = np.array(["2020-01-01", "2020-01-03", "2020-01-04"], dtype="datetime64[D]")
    ct, cview, cdelta = copy_args((t, t[::-1], np.diff(t)))
    assert ct.dtype == t.dtype and (ct == t).all() and not np.shares_memory(ct, t)
    assert np.shares_memory(ct, cview) and (cview == t[::-1]).all()
    assert cdelta.dtype == np.dtype("m8[D]") and cdelta.tolist() == np.diff(t).tolist()


def test_an_empty_strided_view_is_copied():
    """An empty view whose strides point past its (empty) buffer: rebuilding it as a view of
    the copied buffer raised ValueError (found by the NumPy-semantics fuzzer)."""
    empty = np.repeat(np.zeros((2, 0), np.uint8), 2, axis=-1)[..., ::2]
    (copied,) = copy_args((empty,))
    assert copied.shape == (2, 0) and copied.dtype == np.uint8
    assert not np.shares_memory(copied, empty)


def test_an_array_numpy_made_in_a_permuted_order_is_copied_with_its_views():
    """An array NumPy made in neither C nor F order (``np.where`` of an F-ordered argument,
    a ``copy(order="K")`` of a transpose): its copy keeps its strides, and a view of it stays
    a view of the copy (BufferError before; found by the fuzzer)."""
    owner = np.arange(24.0).reshape(2, 3, 4).transpose(1, 0, 2).copy(order="K")
    assert owner.base is None and not owner.flags.c_contiguous and not owner.flags.f_contiguous
    tail = owner[1:, ::-1]
    copied, copied_tail = copy_args((owner, tail))
    assert copied.strides == owner.strides and np.array_equal(copied, owner)
    copied_tail[0, 0, 0] = -5.0
    assert copied[1, -1, 0] == -5.0 and owner[1, -1, 0] != -5.0


class OnlySlots:
    """Slots and no ``__dict__``: its state is ``(None, slots)``."""

    __slots__ = ("a", "b")

    def __init__(self):
        self.a, self.b = np.ones(2), 3

    def __getattr__(self, name):
        raise AttributeError(name)


class AskingMeta(type):
    """A metaclass answering every name (an Enum class's ``EnumType.__getattr__`` is one)."""

    def __getattr__(cls, name):
        return 42


class AskedClass(metaclass=AskingMeta):
    pass


def test_a_copy_by_class_of_slots_and_of_classes():
    """Slots only: copied (it had no ``__dict__`` to update: the copy failed, the call went
    unchecked). A class whose metaclass has ``__getattr__`` (an Enum class) is itself, as
    deepcopy keeps a class (it had been reduced as an instance: TypeError)."""
    obj = OnlySlots()
    (copied,) = copy_args((obj,))
    assert copied is not obj and copied.b == 3 and copied.a.tolist() == [1.0, 1.0]
    assert not np.shares_memory(copied.a, obj.a)
    color = enum.Enum("Color", "RED GREEN")
    assert copy_args((AskedClass, color, color.RED)) == (AskedClass, color, color.RED)
    assert type(copy_args((AskedClass(),))[0]) is AskedClass
