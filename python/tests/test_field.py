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
    # strides follow the padded layout: x fastest, rows' interiors 256-byte aligned
    assert v.strides[2] == itemsize
    assert v.strides[1] == p.shape[2] * itemsize and v.strides[1] % 256 == 0
    assert v.ctypes.data % 256 == 0
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


# A Field is an array to NumPy: shape, dtype, ndim, size and len as the interior's, and
# np.asarray(f) the interior itself (no copy), honouring NumPy 2's copy= and dtype.
def test_a_field_is_an_array_to_numpy(rng):
    f = strata.Field((3, 4, 5), dtype="float32", ghost=2)
    f.interior[...] = rng.standard_normal((3, 4, 5))
    assert (f.shape, f.dtype, f.ndim, f.size, len(f)) == ((3, 4, 5), np.float32, 3, 60, 3)
    a = np.asarray(f)
    assert a.shape == (3, 4, 5) and a.dtype == np.float32 and a.ctypes.data == f.data_ptr
    assert np.shares_memory(a, f.interior)
    a[1, 2, 3] = 9.0
    assert f.interior[1, 2, 3] == 9.0
    assert np.max(f) == f.interior.max() and isinstance(np.max(f), np.floating)
    assert np.sum(f) == pytest.approx(float(f.interior.sum(dtype=np.float64)), rel=1e-6)
    assert np.array_equal(np.add(f, 1), f.interior + 1)  # ufuncs take it
    c = np.array(f)  # np.array copies by default
    assert not np.shares_memory(c, f.interior) and np.array_equal(c, f.interior)
    assert np.asarray(f, dtype=np.float32).ctypes.data == f.data_ptr
    d = np.asarray(f, dtype=np.float64)
    assert d.dtype == np.float64 and np.array_equal(d, f.interior)
    if np.lib.NumpyVersion(np.__version__) >= "2.0.0":
        assert np.asarray(f, copy=False).ctypes.data == f.data_ptr
        assert not np.shares_memory(np.asarray(f, copy=True), f.interior)
        with pytest.raises(ValueError, match="without a copy"):
            np.asarray(f, dtype=np.float64, copy=False)
    assert f.__array__().ctypes.data == f.data_ptr
    assert not hasattr(f, "__cuda_array_interface__")  # a host Field is no CUDA array
    g = strata.Field((2, 2, 2))
    v = np.asarray(g)
    del g
    gc.collect()
    v[...] = 1.0  # the array keeps the Field alive
    assert v.sum() == 8.0
