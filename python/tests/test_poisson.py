"""strata.poisson.solve: converges on a manufactured problem, returns the same kind as f,
a report with the residual history, clear errors, and a callback that can stop it; on
Neumann and periodic grids a mean is removed with a warning and a constant f refused; the
fft solver on the CPU against NumPy's FFT and multigrid (skipped, saying why, in a build
without the CPU's FFT, where it is refused naming the package)."""
import re
import warnings

import numpy as np
import pytest

import strata


def _problem(n):
    h = 1.0 / (n + 1)
    x = (np.arange(n) + 1) * h
    Z, Y, X = np.meshgrid(x, x, x, indexing="ij")
    exact = np.sin(np.pi * X) * np.sin(np.pi * Y) * np.sin(np.pi * Z)
    return 3 * np.pi ** 2 * exact, exact, h


@pytest.mark.parametrize("solver", ["mg", "cg", "mgcg", "fmg"])
def test_solve_reaches_the_discretisation_error(solver):
    f, exact, h = _problem(15)
    seen = []
    u, r = strata.poisson.solve(f, solver=solver, rtol=1e-9, on_iteration=seen.append)
    assert isinstance(u, np.ndarray) and u.shape == f.shape
    assert r.converged, r.message
    assert r.rel_residual <= 1e-9 and len(r.residuals) >= 2 and r.residuals[0] == pytest.approx(1.0)
    assert np.abs(u - exact).max() < 2 * h * h
    if solver != "fmg":
        assert len(seen) == r.iterations and seen[-1]["iteration"] == r.iterations


def test_a_field_gives_a_field_and_precision_converts_arrays():
    f, exact, h = _problem(15)
    u, r = strata.poisson.solve(strata.Field.from_array(f), rtol=1e-8)
    assert isinstance(u, strata.Field) and r.converged
    u32, r32 = strata.poisson.solve(f, precision="f32")
    assert u32.dtype == np.float32 and r32.converged
    with pytest.raises(ValueError, match="precision"):
        strata.poisson.solve(strata.Field.from_array(f), precision="f32")


def test_errors_are_clear():
    f, _, _ = _problem(7)
    with pytest.raises(ValueError, match="solver|method"):
        strata.poisson.solve(f, solver="sor")
    with pytest.raises(ValueError, match="mixed"):
        strata.poisson.solve(f.astype(np.float32), solver="mgcg", mixed=True)
    with pytest.raises(TypeError, match="callable"):
        strata.poisson.solve(f, on_iteration=3)
    for bad in (2.5, True):  # refused, not 2 iterations or 1
        with pytest.raises(ValueError, match="max_iter must be a whole number"):
            strata.poisson.solve(f, max_iter=bad)


def test_an_exception_in_the_callback_stops_the_solve(rng):
    f = rng.standard_normal((15, 15, 15))  # not an eigenvector: CG needs many iterations
    seen = []

    def stop(it):
        seen.append(it["iteration"])
        if it["iteration"] == 2:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        strata.poisson.solve(f, solver="cg", rtol=1e-12, on_iteration=stop)
    assert seen == [1, 2]


# On Neumann and periodic grids -Lap(u) = f needs a zero-mean f: a mean is removed with a
# RuntimeWarning (and Report.warnings, Report.rhs_mean), a constant f is refused; never
# u = 0 "converged" without a word.
@pytest.mark.parametrize("bc", ["neumann", "periodic"])
def test_a_mean_on_a_null_space_is_warned_about_and_a_constant_refused(bc):
    n = 12
    x = (np.arange(n) + 0.5) / n
    Z, Y, X = np.meshgrid(x, x, x, indexing="ij")
    g = np.cos(2 * np.pi * X) * np.cos(2 * np.pi * Y)
    with pytest.warns(RuntimeWarning, match="f has mean 0.5"):
        u, r = strata.poisson.solve(g + 0.5, bc=bc, rtol=1e-10)
    assert r.converged and len(r.warnings) == 1 and r.rhs_mean == pytest.approx(0.5)
    v, _ = strata.poisson.solve(g, bc=bc, rtol=1e-10)
    np.testing.assert_allclose(u, v, atol=1e-8)
    with pytest.raises(ValueError, match=r"f is constant \(mean 2\)"):
        strata.poisson.solve(np.full((n, n, n), 2.0), bc=bc)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        strata.poisson.solve(np.full((n, n, n), 2.0), bc="dirichlet")  # a mean is ordinary there


def _numpy_spectral_solve(f, h):
    """-Lap_h u = f on the periodic 7-point grid by NumPy's FFT, in float64: u's spectrum is
    f's over the operator's eigenvalues, the mean mode dropped (u has zero mean)."""
    k = np.meshgrid(*[2 * np.pi * np.arange(n) / n for n in f.shape], indexing="ij")
    lam = (6 - 2 * np.cos(k[0]) - 2 * np.cos(k[1]) - 2 * np.cos(k[2])) / h ** 2
    lam[0, 0, 0] = 1.0
    spectrum = np.fft.fftn(f.astype(np.float64)) / lam
    spectrum[0, 0, 0] = 0.0
    return np.fft.ifftn(spectrum).real


needs_cpu_fft = pytest.mark.skipif(not strata.cpu_fft_available(),
                                   reason=strata.cpu_fft_unavailable_reason())


@needs_cpu_fft
@pytest.mark.parametrize("dtype, tol", [(np.float64, 1e-12), (np.float32, 1e-4)])
def test_fft_on_the_cpu_matches_numpys_fft(rng, dtype, tol):
    f = rng.standard_normal((12, 10, 16)).astype(dtype)  # [z][y][x], odd and even lengths mixed
    f[5, 3, 7] += 4.0  # and a mean, which the solve removes, saying so as every solver does
    with pytest.warns(RuntimeWarning, match="f has mean"):
        u, r = strata.poisson.solve(f, bc="periodic", solver="fft")
    assert isinstance(u, np.ndarray) and u.dtype == dtype and u.shape == f.shape
    assert r.converged and r.direct, r.message
    assert len(r.warnings) == 1 and r.rhs_mean == pytest.approx(float(f.mean(dtype=np.float64)), rel=tol)
    ref = _numpy_spectral_solve(f, h=1.0 / f.shape[2])  # the default spacing: x extent 1
    assert np.abs(u - ref).max() <= tol * np.abs(ref).max()
    assert abs(float(u.mean())) <= tol * np.abs(ref).max()


@needs_cpu_fft
def test_fft_on_the_cpu_matches_multigrid(rng):
    f = rng.standard_normal((9, 14, 11))
    f -= f.mean()  # compatible: neither solve has a mean to remove or to warn about
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        u_fft, r = strata.poisson.solve(f, bc="periodic", solver="fft")
        u_mg, r_mg = strata.poisson.solve(f, bc="periodic", solver="mg", rtol=1e-11)
    assert r.converged and r_mg.converged, (r.message, r_mg.message)
    assert np.abs(u_fft - u_mg).max() <= 1e-8 * np.abs(u_mg).max()
    with pytest.raises(ValueError, match="periodic 7-point"):
        strata.poisson.solve(f, bc="neumann", solver="fft")


@pytest.mark.skipif(strata.cpu_fft_available(), reason="built with the CPU's FFT: the tests above run")
def test_fft_on_the_cpu_without_its_library_is_refused_naming_the_package(rng):
    assert "libkissfft-dev" in strata.cpu_fft_unavailable_reason()
    with pytest.raises(ValueError, match="libkissfft-dev"):
        strata.poisson.solve(rng.standard_normal((6, 6, 6)), bc="periodic", solver="fft")


def test_option_refusals_use_the_keywords_names():
    """The keyword the caller typed, not the CLI's option (--rtol, --max-iter)."""
    f = np.random.default_rng(0).standard_normal((8, 8, 8))
    for kwargs, words in (({"rtol": float("nan")}, "rtol must be a number in [0, 1)"),
                          ({"rtol": 1.5}, "rtol must be a number in [0, 1)"),
                          ({"atol": -1.0}, "atol must be a finite number"),
                          ({"rtol": 0.0}, "rtol=0 needs a positive atol"),
                          ({"max_iter": 0}, "max_iter must be >= 1"),
                          ({"solver": "fft"}, "bc='periodic', op='fd7'")):
        with pytest.raises(ValueError, match=re.escape(words)) as e:
            strata.poisson.solve(f, **kwargs)
        assert "--" not in str(e.value), str(e.value)

