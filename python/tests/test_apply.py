"""strata.apply against a NumPy reference: every stencil, boundary and dtype, on Fields
(in place, no copy) and on NumPy arrays (copied in, result returned as an array)."""
import numpy as np
import pytest

import strata
from reference import FE27, laplacian_star, reference

BCS = ["dirichlet", "dirichlet:1.5", "neumann", "periodic"]
# (name, kind, coefficients given, coefficients the reference uses); None: the default.
rng0 = np.random.default_rng(7)
RANDOM_BOX = list(rng0.uniform(-1, 1, 27))
STENCILS = [
    ("7pt", "star", None, laplacian_star(1)),
    ("star2", "star", None, laplacian_star(2)),
    ("star3", "star", None, laplacian_star(3)),
    ("star4", "star", None, laplacian_star(4)),
    ("star3", "star", [-2.0, 0.7, -0.3, 0.11], [-2.0, 0.7, -0.3, 0.11]),
    ("7pt", "star", [0.5, -0.25], [0.5, -0.25]),
    ("sym27", "sym27", None, FE27),
    ("sym27", "sym27", [1.0, -0.2, 0.05, -0.01], [1.0, -0.2, 0.05, -0.01]),
    ("box27", "box27", RANDOM_BOX, RANDOM_BOX),
]
SHAPE = (5, 7, 9)  # not multiples of anything; smaller than the radius-4 ghosts in z


def _check(got, a, kind, coeffs, bc):
    ref, tol = reference(a, kind, coeffs, bc)
    err = np.abs(got.astype(np.float64) - ref)
    worst = np.unravel_index(np.argmax(err - tol), err.shape)
    assert np.all(err <= tol), f"worst at {worst}: got {got[worst]}, want {ref[worst]}"


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bc", BCS)
@pytest.mark.parametrize("name, kind, given, coeffs", STENCILS)
def test_apply_on_an_array_matches_numpy(name, kind, given, coeffs, bc, dtype, rng):
    a = rng.standard_normal(SHAPE).astype(dtype)
    before = a.copy()
    got = strata.apply(name, a, bc=bc, coeffs=given)
    assert isinstance(got, np.ndarray) and got.dtype == dtype and got.shape == SHAPE
    assert np.array_equal(a, before)  # the input is only read
    _check(got, a, kind, coeffs, bc)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bc", BCS)
@pytest.mark.parametrize("name, kind, given, coeffs", STENCILS)
def test_apply_on_a_field_matches_numpy(name, kind, given, coeffs, bc, dtype, rng):
    f = strata.Field(SHAPE, dtype=dtype, ghost=4)
    f.interior[...] = rng.standard_normal(SHAPE)
    a = np.array(f.interior)
    got = strata.apply(name, f, bc=bc, coeffs=given)
    assert isinstance(got, strata.Field) and got.dtype == dtype and got.ghost == 4
    _check(got.interior, a, kind, coeffs, bc)


def test_apply_fills_the_out_it_is_given(rng):
    f = strata.Field((4, 4, 4), ghost=1)
    f.interior[...] = rng.standard_normal((4, 4, 4))
    out = strata.Field((4, 4, 4), ghost=1)
    ptr = out.data_ptr
    assert strata.apply("7pt", f, out=out) is out and out.data_ptr == ptr
    _check(out.interior, np.array(f.interior), "star", laplacian_star(1), "dirichlet")

    a = rng.standard_normal((4, 4, 4))
    dst = np.empty_like(a)
    assert strata.apply("7pt", a, out=dst) is dst
    _check(dst, a, "star", laplacian_star(1), "dirichlet")
    copy = a.copy()
    assert strata.apply("7pt", a, bc="neumann", out=a) is a  # in place on arrays is fine
    _check(a, copy, "star", laplacian_star(1), "neumann")


def test_apply_accepts_read_only_arrays():
    a = np.ones((3, 3, 3))
    a.flags.writeable = False
    assert strata.apply("7pt", a, bc="neumann").sum() == 0.0


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(stencil="bogus"), ValueError, "unknown stencil"),
        (dict(stencil="star5"), ValueError, "unknown stencil"),
        (dict(stencil="box27"), ValueError, "coeffs"),
        (dict(stencil="7pt", coeffs=[1.0]), ValueError, "coefficient"),
        (dict(stencil="7pt", bc="robin"), ValueError, "boundary"),
        (dict(stencil="7pt", x=np.zeros((4, 4, 4), dtype=np.int32)), TypeError, "dtype"),
        (dict(stencil="7pt", x=np.zeros((4, 4, 4), dtype=np.complex128)), TypeError, "dtype"),
        (dict(stencil="7pt", x=np.zeros((4, 4))), ValueError, "rank 2"),
        (dict(stencil="7pt", x=np.zeros((4, 4, 4, 1))), ValueError, "rank 4"),
        (dict(stencil="7pt", x=np.zeros((4, 4, 8))[..., ::2]), ValueError, "C-contiguous"),
        (dict(stencil="7pt", x=np.zeros((4, 4, 4)).T), ValueError, "C-contiguous"),
        (dict(stencil="7pt", x=[[[1.0]]]), TypeError, "Field or a NumPy, CuPy or PyTorch array"),
        (dict(stencil="7pt", x=np.zeros((0, 4, 4))), ValueError, "empty"),
        (dict(stencil="7pt", out=np.zeros((4, 4, 5))), ValueError, "shape"),
        (dict(stencil="7pt", out=np.zeros((4, 4, 4), np.float32)), TypeError, "dtype"),
        (dict(stencil="7pt", out=lambda: strata.Field((4, 4, 4))), TypeError, "NumPy"),
    ],
)
def test_bad_arguments_raise_clear_errors(kwargs, error, match):
    # A Field is made here, not when the list is collected: one the list held lived until
    # exit, past the extension module (python/tests/conftest.py).
    kwargs = {k: v() if callable(v) else v for k, v in kwargs.items()}
    kwargs.setdefault("x", np.zeros((4, 4, 4)))
    with pytest.raises(error, match=match):
        strata.apply(**kwargs)


def test_bad_field_arguments_raise_clear_errors():
    f = strata.Field((4, 4, 4), ghost=1)
    with pytest.raises(ValueError, match="ghost"):
        strata.apply("star2", f)  # radius 2 needs 2 ghost layers
    with pytest.raises(ValueError, match="different Field"):
        strata.apply("7pt", f, out=f)
    with pytest.raises(TypeError, match="dtype"):
        strata.apply("7pt", f, out=strata.Field((4, 4, 4), dtype="float32", ghost=1))
    with pytest.raises(ValueError, match="extent"):
        strata.apply("7pt", f, out=strata.Field((4, 4, 5), ghost=1))
    with pytest.raises(TypeError, match="Field"):
        strata.apply("7pt", f, out=np.zeros((4, 4, 4)))


def test_an_array_32_wide_is_taken_whatever_its_alignment(rng):
    # nx = 32: the dense layout is also strata's padded one; NumPy aligns only to 16 bytes.
    buf = np.zeros(32 * 4 * 3 + 1)
    a = buf[1:].reshape(3, 4, 32)
    a[...] = rng.standard_normal(a.shape)
    got = strata.apply("7pt", a, bc="periodic")
    _check(got, a, "star", laplacian_star(1), "periodic")


# One sign convention for every default stencil: +Lap(u) = u_xx + u_yy + u_zz, exact on
# quadratics (+2 on x**2, y**2, z**2; 0 on xy, yz, xz), scaled by 1/h**2 for spacing h.
QUADRATICS = {
    "x**2": (lambda z, y, x: x * x, 2.0), "y**2": (lambda z, y, x: y * y, 2.0),
    "z**2": (lambda z, y, x: z * z, 2.0), "xy": (lambda z, y, x: x * y, 0.0),
    "yz": (lambda z, y, x: y * z, 0.0), "xz": (lambda z, y, x: x * z, 0.0),
    "x**2 - 3 y**2 + z**2 + xy": (lambda z, y, x: x * x - 3 * y * y + z * z + x * y, -2.0),
}


@pytest.mark.parametrize("h", [1.0, 0.25])
@pytest.mark.parametrize("poly", list(QUADRATICS))
@pytest.mark.parametrize("name", ["7pt", "star1", "star2", "star3", "star4", "sym27"])
def test_every_default_stencil_gives_plus_the_laplacian(name, poly, h):
    p, lap = QUADRATICS[poly]
    r = 4
    n = (8 + 2 * r, 9 + 2 * r, 10 + 2 * r)  # the points r from the faces see only the polynomial
    z, y, x = np.meshgrid(*(np.arange(k) * h for k in n), indexing="ij")
    got = strata.apply(name, p(z, y, x), bc="neumann", h=h)[r:-r, r:-r, r:-r]
    np.testing.assert_allclose(got, lap, rtol=0, atol=1e-8, err_msg=f"{name} on {poly}, h = {h}")


def test_h_scales_the_default_and_is_refused_with_coefficients(rng):
    a = rng.standard_normal((6, 7, 8))
    for name in ("7pt", "star3", "sym27"):
        np.testing.assert_allclose(strata.apply(name, a, h=0.5), 4 * strata.apply(name, a), rtol=1e-13)
    with pytest.raises(ValueError, match="default Laplacians only"):
        strata.apply("7pt", a, coeffs=[-6.0, 1.0], h=0.5)
    with pytest.raises(ValueError, match="spacing"):
        strata.apply("7pt", a, h=0.0)
    np.testing.assert_allclose(strata.steps("sym27", a, 2, c=0.01, h=0.5), strata.steps("sym27", a, 2, c=0.04),
                               rtol=1e-13, atol=1e-13)


# A result holding NaN or Inf says so, as the CLI does: an error with how many and where
# (nonfinite="raise", the default), a warning and the result ("warn", --allow-nonfinite), or
# no check ("ignore").
def test_a_nonfinite_result_raises_warns_or_is_ignored():
    a = np.ones((3, 4, 5), dtype=np.float32)
    with pytest.raises(FloatingPointError, match=r"the result holds 60 non-finite values of 60 .*the input is "
                                                 r"finite: the computation overflows f32"):
        strata.apply("7pt", a, coeffs=[3e38, 3e38])
    with pytest.warns(RuntimeWarning, match="the result holds 60 non-finite"):
        got = strata.apply("7pt", a, coeffs=[3e38, 3e38], nonfinite="warn")
    assert np.isinf(got).all()
    assert np.isinf(strata.apply("7pt", a, coeffs=[3e38, 3e38], nonfinite="ignore")).all()
    b = np.zeros((3, 4, 5))
    b[1, 2, 3] = np.nan
    with pytest.raises(FloatingPointError, match=r"the result holds 7 non-finite values of 60 .*the first -?nan at "
                                                 r"\(x, y, z\) = \(3, 2, 0\); the input holds 1 non-finite value of 60"):
        strata.apply("7pt", b, bc="neumann")
    f = strata.Field((3, 4, 5))
    f.interior[1, 2, 3] = np.inf
    out = strata.Field((3, 4, 5))
    with pytest.raises(FloatingPointError, match="out holds it"):
        strata.apply("7pt", f, out=out)
    with pytest.raises(FloatingPointError, match="strata.steps: the result holds"):
        strata.steps("7pt", f, 2, c=0.1)
    with pytest.raises(ValueError, match="allowed 'raise', 'warn', 'ignore'"):
        strata.apply("7pt", a, nonfinite="maybe")
