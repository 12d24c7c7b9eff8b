"""What a call's work follows, coarsely (jit/call_sizes.py): measuring compares the two paths
only over calls of one size class, so the classes must part big calls from small ones and no
more finely than by order of magnitude."""

from __future__ import annotations

import numpy as np

from astcompile.jit import call_sizes


def test_arrays_and_ints_class_by_bit_length():
    assert call_sizes.size_class(np.ones(600)) == call_sizes.size_class(np.ones(1000))
    assert call_sizes.size_class(np.ones(1000)) != call_sizes.size_class(np.ones(1100))
    assert call_sizes.size_class(5) == call_sizes.size_class(7) != call_sizes.size_class(8)
    assert call_sizes.size_class([1] * 5) != call_sizes.size_class((1,) * 5)


def test_other_values_class_by_type():
    assert call_sizes.size_class(1.5) is call_sizes.size_class(2e9) is float
    assert call_sizes.size_class(True) is bool  # not an int of one bit


def test_a_signature_names_its_keywords():
    small, big = np.ones(4), np.ones(4096)
    assert call_sizes.signature((small,), {"out": small}) != call_sizes.signature(
        (small,), {"out": big}
    )
    assert call_sizes.signature((small, 3), {}) == call_sizes.signature((np.ones(5), 2), {})


def test_only_collections_with_a_task_graph_are_lazy():
    class Collection:
        __dask_graph__ = None

    assert call_sizes.lazy(Collection())
    assert not call_sizes.lazy(np.ones(3))
