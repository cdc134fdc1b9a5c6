"""strata.sum / dot / norm2 / max_abs on Fields and arrays, against NumPy."""
import numpy as np
import pytest

import strata


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_reductions_match_numpy_on_fields_and_arrays(dtype, rng):
    a = rng.standard_normal((6, 5, 7)).astype(dtype)
    b = rng.standard_normal((6, 5, 7)).astype(dtype)
    fa = strata.Field.from_array(a, ghost=2)
    fb = strata.Field.from_array(b, ghost=1)  # ghost widths may differ
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    n = a.size
    tol = np.log2(n) * np.finfo(dtype).eps
    for x in (a, fa):
        assert strata.sum(x) == pytest.approx(a64.sum(), abs=tol * np.abs(a64).sum())
        assert strata.norm2(x) == pytest.approx(np.sqrt((a64**2).sum()), rel=tol)
        assert strata.max_abs(x) == np.abs(a).max()
    for x, y in ((a, b), (fa, fb), (fa, b), (a, fb)):
        assert strata.dot(x, y) == pytest.approx((a64 * b64).sum(), abs=tol * np.abs(a64 * b64).sum())


def test_flat_arrays_of_any_rank_reduce():
    v = np.arange(10.0)
    assert strata.sum(v) == 45.0
    assert strata.dot(v, v) == float((v * v).sum())
    assert strata.max_abs(-v) == 9.0
    assert strata.sum(np.zeros(0)) == 0.0


def test_nan_propagates():
    a = np.ones((2, 2, 2))
    a[1, 0, 1] = np.nan
    assert np.isnan(strata.sum(a)) and np.isnan(strata.max_abs(a))


def test_bad_reduction_arguments():
    with pytest.raises(TypeError, match="dtype"):
        strata.sum(np.arange(4))
    with pytest.raises(ValueError, match="C-contiguous"):
        strata.sum(np.zeros(8)[::2])
    with pytest.raises(TypeError, match="Field or a NumPy, CuPy or PyTorch array"):
        strata.norm2("abc")
    with pytest.raises(TypeError, match="byte order"):
        strata.sum(np.zeros(4, dtype=">f8"))
    with pytest.raises(TypeError, match="dtype"):
        strata.sum(np.zeros(4, dtype=np.float16))
    with pytest.raises(TypeError, match="dtypes"):
        strata.dot(np.zeros(3), np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="shapes"):
        strata.dot(np.zeros(3), np.zeros(4))
    with pytest.raises(ValueError, match="shapes"):
        strata.dot(strata.Field((2, 2, 2)), np.zeros((2, 2, 3)))
    with pytest.raises(ValueError, match="rank"):
        strata.dot(strata.Field((2, 2, 2)), np.zeros(8))
