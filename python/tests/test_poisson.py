"""strata.poisson.solve: converges on a manufactured problem, returns the same kind as f,
a report with the residual history, clear errors, and a callback that can stop it."""
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
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        strata.poisson.solve(np.full((n, n, n), 2.0), bc="dirichlet")  # a mean is ordinary there
