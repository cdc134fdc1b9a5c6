"""Zero-copy interop: DLPack and the array interfaces on the host (always run), CuPy and
PyTorch on a CUDA device (skipped, with the reason, where there is no GPU or package):
pointer equality, writes visible both ways, lifetime after the Python objects are dropped."""
import gc

import numpy as np
import pytest

import strata

HAS_GPU = strata.cuda_available()


# NumPy reads DLPack's read-only flag from 2.1 on (DLPack 1.0); before, every array it makes
# with from_dlpack is read-only, whatever the producer says.
NUMPY_DLPACK_WRITES = tuple(int(p) for p in np.__version__.split(".")[:2]) >= (2, 1)


def test_interior_shares_memory_through_dlpack_and_array_interface(rng):
    f = strata.Field((3, 4, 5), dtype="float32")
    a = np.from_dlpack(f.interior)
    b = np.from_dlpack(f)                      # the Field itself is a DLPack producer
    c = np.asarray(f.interior)
    d = np.asarray(f)
    assert f.__dlpack_device__() == (1, 0)
    for v in (a, b, c, d):
        assert v.__array_interface__["data"][0] == f.data_ptr
    c[1, 2, 3] = 7.0
    d[0, 0, 1] = -2.0
    assert a[1, 2, 3] == 7.0 and b[1, 2, 3] == 7.0 and f.interior[1, 2, 3] == 7.0
    assert b[0, 0, 1] == -2.0
    # strata exports its views writable: NumPy 2.1 and later honour that.
    assert a.flags.writeable == b.flags.writeable == NUMPY_DLPACK_WRITES
    if NUMPY_DLPACK_WRITES:
        a[2, 3, 4] = 5.0
        assert f.interior[2, 3, 4] == 5.0


def test_a_view_keeps_its_field_alive():
    f = strata.Field((4, 4, 4))
    v = np.from_dlpack(f)
    f.interior[...] = 2.5
    del f
    gc.collect()
    assert float(v.sum()) == 2.5 * 64


@pytest.mark.parametrize("hold", ["from_dlpack", "interior", "capsule", "asarray"])
def test_a_field_goes_with_its_last_view(hold):
    # No reference is kept past the last holder: the Field is freed at once (no cycle, no
    # collector needed) when its view, capsule or array goes.
    import weakref
    f = strata.Field((3, 4, 5))
    alive = weakref.ref(f)
    held = {"from_dlpack": lambda: np.from_dlpack(f), "interior": lambda: f.interior,
            "capsule": lambda: f.__dlpack__(), "asarray": lambda: np.asarray(f)}[hold]()
    del f
    assert alive() is not None, "the holder did not keep the Field alive"
    del held
    assert alive() is None, "the Field outlived its last holder"


def test_a_script_with_views_at_exit_exits_silently(tmp_path):
    # Arrays of other frameworks that still hold a Field when the interpreter exits are
    # released after strata's module: nothing is printed about it.
    import os
    import subprocess
    import sys
    script = tmp_path / "views.py"
    script.write_text("import numpy as np, strata\n"
                      "f = strata.Field((3, 4, 5))\n"
                      "a = np.from_dlpack(f)\n"
                      "b = np.from_dlpack(strata.Field((2, 2, 2)).interior)\n"
                      "c = np.asarray(f)\n"
                      "print(float(a.sum() + b.sum() + c.sum()))\n")
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "0.0"
    assert r.stderr == "", r.stderr


def test_apply_on_an_array_returns_the_same_kind(rng):
    a = rng.standard_normal((6, 5, 4))
    got = strata.apply("7pt", a, bc="periodic")
    assert type(got) is np.ndarray and got.shape == a.shape
    assert np.allclose(got, strata.apply("7pt", strata.Field.from_array(a), bc="periodic").interior)


def test_an_array_of_an_unknown_kind_comes_back_as_a_dlpack_array(rng):
    # Any buffer or DLPack producer is taken; a result strata cannot return as the same kind
    # is an array object every consumer reads (__dlpack__, buffer protocol), not a capsule.
    a = rng.standard_normal((5, 6, 7))
    r = strata.apply("7pt", memoryview(a))
    assert hasattr(r, "__dlpack__") and r.__dlpack_device__() == (1, 0)
    np.testing.assert_array_equal(np.from_dlpack(r), strata.apply("7pt", a))
    np.testing.assert_array_equal(np.asarray(r), strata.apply("7pt", a))


def test_array_results_are_new_contiguous_arrays_whatever_the_shapes_before(rng):
    # The padded copy of x is kept between calls: a change of shape, dtype or stencil width,
    # and release_scratch(), must never show in a result.
    shapes = [(6, 5, 4), (6, 5, 4), (3, 9, 7), (6, 5, 4)]
    for i, shape in enumerate(shapes):
        for dtype, stencil in (("float64", "7pt"), ("float32", "star3"), ("float64", "star2")):
            a = rng.standard_normal(shape).astype(dtype)
            got = strata.apply(stencil, a, bc="neumann")
            assert got.flags.c_contiguous and got.dtype == a.dtype and got.shape == shape
            want = strata.apply(stencil, strata.Field.from_array(a), bc="neumann").interior
            np.testing.assert_array_equal(got, want)
            got[...] = 0  # the result is the caller's own: the next call's input is not it
        if i == 1:
            strata.release_scratch()
    a = rng.standard_normal((5, 5, 5))
    first = strata.apply("7pt", a)
    second = strata.apply("7pt", a)
    assert first.ctypes.data != second.ctypes.data
    np.testing.assert_array_equal(first, second)


def test_a_cuda_field_is_refused_clearly_without_a_gpu():
    if HAS_GPU:
        pytest.skip("a GPU is visible: the CUDA tests below run instead")
    with pytest.raises(ValueError, match="CUDA|cuda"):
        strata.Field((4, 4, 4), device="cuda")




def _torch():
    return pytest.importorskip("torch")


def test_torch_takes_a_host_field_itself():
    t = _torch()
    f = strata.Field((2, 3, 4))
    x = t.from_dlpack(f)
    assert x.shape == (2, 3, 4) and x.data_ptr() == f.data_ptr
    x.fill_(1.5)
    assert strata.sum(f) == 1.5 * 24
    assert t.as_tensor(np.asarray(f)).data_ptr() == f.data_ptr


def test_torch_cpu_tensors_are_taken_and_returned_as_tensors():
    t = _torch()
    x = t.randn(5, 6, 7, dtype=t.float64)
    y = strata.apply("7pt", x, bc="neumann")
    assert isinstance(y, t.Tensor) and y.shape == x.shape
    ref = strata.apply("7pt", x.numpy(), bc="neumann")
    assert np.array_equal(y.numpy(), ref)
    view = t.from_dlpack(strata.Field((2, 3, 4)).interior)
    assert view.shape == (2, 3, 4)


gpu = pytest.mark.skipif(not HAS_GPU, reason="no CUDA device (strata.cuda_unavailable_reason(): "
                         + strata.cuda_unavailable_reason() + ")")


@gpu
def test_cupy_shares_a_cuda_field_both_ways():
    cp = pytest.importorskip("cupy")
    f = strata.Field((8, 9, 10), dtype="float32", device="cuda")
    v = cp.asarray(f.interior)                 # __cuda_array_interface__
    w = cp.from_dlpack(f.interior)             # DLPack
    assert v.data.ptr == f.data_ptr == w.data.ptr
    v[...] = 1.0
    lap = strata.apply("7pt", f, bc="neumann")
    assert float(cp.abs(cp.asarray(lap.interior)).max()) == 0.0
    w[2, 3, 4] = 5.0
    assert float(v[2, 3, 4]) == 5.0
    g = strata.Field((8, 9, 10), dtype="float32", device="cuda")
    x = cp.asarray(g.interior)
    del g
    gc.collect()
    x[...] = 3.0                               # the Field lives while the view does
    assert float(x.sum()) == 3.0 * 720


@gpu
def test_cupy_arrays_are_taken_and_returned_as_cupy():
    cp = pytest.importorskip("cupy")
    a = cp.random.standard_normal((9, 10, 11)).astype(cp.float64)
    got = strata.apply("star2", a, bc="periodic")
    assert isinstance(got, cp.ndarray) and got.flags.c_contiguous
    ref = strata.apply("star2", cp.asnumpy(a), bc="periodic")
    assert np.allclose(cp.asnumpy(got), ref, rtol=1e-12, atol=1e-12)
    for shape in ((9, 10, 11), (4, 17, 6), (9, 10, 11)):  # the kept padded copy changes shape
        b = cp.random.standard_normal(shape).astype(cp.float64)
        again = strata.apply("star2", b, bc="periodic")
        assert again.data.ptr != b.data.ptr
        assert np.allclose(cp.asnumpy(again), strata.apply("star2", cp.asnumpy(b), bc="periodic"),
                           rtol=1e-12, atol=1e-12)
    out = cp.empty_like(a)
    assert strata.apply("star2", a, bc="periodic", out=out) is out
    assert np.allclose(cp.asnumpy(out), ref, rtol=1e-12, atol=1e-12)
    assert abs(strata.sum(a) - float(a.sum())) < 1e-9 * float(cp.abs(a).sum())
    with pytest.raises(ValueError, match="C-contiguous"):
        strata.apply("7pt", a[:, :, ::2])
    with pytest.raises(TypeError, match="dtype"):
        strata.apply("7pt", a.astype(cp.float16))
    with pytest.raises(ValueError, match="devices"):
        strata.dot(a, cp.asnumpy(a))


@gpu
def test_torch_shares_a_cuda_field_both_ways():
    t = _torch()
    f = strata.Field((4, 5, 6), dtype="float64", device="cuda")
    x = t.from_dlpack(f.interior)
    assert x.device.type == "cuda" and x.data_ptr() == f.data_ptr
    x.fill_(2.0)
    assert strata.sum(f) == 2.0 * 120
    y = t.randn(4, 5, 6, dtype=t.float64, device="cuda")
    z = strata.apply("7pt", y, bc="periodic")
    assert isinstance(z, t.Tensor) and z.device.type == "cuda"
    assert np.allclose(z.cpu().numpy(), strata.apply("7pt", y.cpu().numpy(), bc="periodic"))
    del f
    gc.collect()
    x.add_(1.0)
    assert float(x.sum()) == 3.0 * 120


@gpu
def test_a_cuda_field_itself_is_a_cupy_and_torch_array_and_numpy_refuses_it():
    f = strata.Field((4, 5, 6), dtype="float32", device="cuda")
    cai = f.__cuda_array_interface__
    assert cai["shape"] == (4, 5, 6) and cai["data"][0] == f.data_ptr and cai["version"] == 3
    assert f.__dlpack_device__() == (2, 0)
    assert (f.shape, f.ndim, f.size, len(f)) == ((4, 5, 6), 3, 120, 4)
    with pytest.raises(TypeError, match="without a copy to the host"):
        np.asarray(f)
    try:
        import cupy as cp
    except ImportError:
        cp = None
    if cp is not None:
        v = cp.asarray(f)                      # the Field's own __cuda_array_interface__
        w = cp.from_dlpack(f)                  # the Field's own __dlpack__
        assert v.data.ptr == w.data.ptr == f.data_ptr
        v[...] = 2.0
        assert strata.sum(f) == 2.0 * 120
    try:
        import torch as t
    except ImportError:
        return
    x = t.from_dlpack(f)
    assert x.device.type == "cuda" and x.data_ptr() == f.data_ptr and x.shape == (4, 5, 6)
    x.fill_(3.0)
    assert strata.sum(f) == 3.0 * 120
