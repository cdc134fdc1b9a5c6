"""strata.Field and NumPy: views share memory both ways and keep the Field alive."""
import gc
import weakref

import numpy as np
import pytest

import strata
from reference import reference


@pytest.mark.parametrize("dtype", ["float32", "float64", np.float32, np.dtype("f8")])
def test_field_is_zero_filled_with_the_asked_shape_and_dtype(dtype):
    f = strata.Field((3, 4, 5), dtype=dtype, ghost=2)
    assert f.shape == (3, 4, 5)
    assert f.dtype == np.dtype(dtype)
    assert f.ghost == 2 and f.device == "cpu"
    assert f.interior.shape == (3, 4, 5)
    assert not f.interior.any() and not f.padded.any()


def test_interior_view_shares_the_fields_memory():
    f = strata.Field((3, 4, 5), dtype="float32", ghost=2)
    v = f.interior
    assert v.ctypes.data == f.data_ptr
    assert f.interior.ctypes.data == v.ctypes.data  # every view is the same memory
    assert v.flags.writeable and not v.flags.c_contiguous  # padded rows
    itemsize = v.itemsize
    p = f.padded
    # strides follow the padded layout: x fastest, rows 128-byte aligned
    assert v.strides[2] == itemsize
    assert v.strides[1] == p.shape[2] * itemsize and v.strides[1] % 128 == 0
    assert v.strides[0] == p.shape[1] * p.shape[2] * itemsize
    assert f.data_ptr % 128 == 0
    assert p[2:-2, 2:-2].shape[:2] == (3, 4)


def test_writes_are_visible_both_ways(rng):
    f = strata.Field((4, 5, 6), ghost=1)
    a = rng.standard_normal((4, 5, 6))
    f.interior[...] = a  # NumPy -> Field
    assert strata.sum(f) == pytest.approx(a.sum(), rel=1e-14)
    assert strata.max_abs(f) == np.abs(a).max()
    g = strata.apply("7pt", f, bc="periodic")  # Field -> NumPy
    ref, tol = reference(a, "star", [-6.0, 1.0], "periodic")
    assert np.all(np.abs(g.interior - ref) <= tol)
    # apply filled f's ghost layers (periodic: wrap): the padded view sees them
    assert np.array_equal(f.padded[0, 1:-1], f.padded[-2, 1:-1])


def test_a_view_keeps_the_field_alive_after_the_field_object_is_dropped():
    f = strata.Field((8, 8, 8), dtype="float64")
    f.interior[...] = 2.5
    v = f.interior
    ref = weakref.ref(f)
    del f
    gc.collect()
    assert ref() is not None  # held by the view
    v += 1.0  # still valid memory
    assert float(v.sum()) == 3.5 * 512
    del v
    gc.collect()
    assert ref() is None  # and released with it


def test_from_array_copies(rng):
    a = rng.standard_normal((3, 4, 5)).astype(np.float32)
    f = strata.Field.from_array(a, ghost=3)
    assert f.dtype == np.float32 and f.ghost == 3
    assert np.array_equal(f.interior, a)
    a[0, 0, 0] = 99
    assert f.interior[0, 0, 0] != 99


@pytest.mark.parametrize(
    "args, error, match",
    [
        (((0, 4, 4),), ValueError, "shape\\[0\\]"),
        (((4, 4),), ValueError, "3 ints"),
        (((4, 4, 4), "int32"), TypeError, "int32"),
        (((4, 4, 4), "float64", 17), ValueError, "ghost width"),
        (((4, 4, 4), "float64", 1, "tpu"), ValueError, "device"),
    ],
)
def test_bad_fields_are_refused_clearly(args, error, match):
    with pytest.raises(error, match=match):
        strata.Field(*args)


def test_from_array_refuses_what_it_cannot_copy():
    with pytest.raises(ValueError, match="rank"):
        strata.Field.from_array(np.zeros((4, 4)))
    with pytest.raises(TypeError, match="dtype"):
        strata.Field.from_array(np.zeros((4, 4, 4), dtype=np.int64))
    with pytest.raises(ValueError, match="C-contiguous"):
        strata.Field.from_array(np.zeros((4, 4, 8))[..., ::2])
