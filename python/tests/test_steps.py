"""strata.steps: repeated stencil steps on Fields and arrays, against NumPy's own steps."""
import numpy as np
import pytest

import strata

MODES = {"dirichlet:0.25": ("constant", {"constant_values": 0.25}), "neumann": ("symmetric", {}),
         "periodic": ("wrap", {})}


def lap(u, bc):
    mode, kw = MODES[bc]
    v = np.pad(u, 1, mode=mode, **kw)
    return (v[2:, 1:-1, 1:-1] + v[:-2, 1:-1, 1:-1] + v[1:-1, 2:, 1:-1] + v[1:-1, :-2, 1:-1]
            + v[1:-1, 1:-1, 2:] + v[1:-1, 1:-1, :-2] - 6 * u)


@pytest.mark.parametrize("bc", list(MODES))
@pytest.mark.parametrize("update", ["relax", "repeat"])
@pytest.mark.parametrize("fuse", [0, 1, 3])
def test_steps_on_arrays_and_fields_match_numpy(rng, bc, update, fuse):
    u = rng.standard_normal((7, 9, 12))
    want = u.copy()
    for _ in range(5):
        want = want + 0.1 * lap(want, bc) if update == "relax" else lap(want, bc)
    got = strata.steps("7pt", u, 5, bc=bc, update=update, c=0.1, fuse=fuse)
    assert type(got) is np.ndarray and got.shape == u.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * np.abs(want).max())
    f = strata.Field.from_array(u)
    assert strata.steps("7pt", f, 5, bc=bc, update=update, c=0.1, fuse=fuse) is f
    np.testing.assert_array_equal(f.interior, got)


def test_steps_refuses_bad_arguments(rng):
    u = rng.standard_normal((4, 4, 4))
    with pytest.raises(ValueError, match="update"):
        strata.steps("7pt", u, 2, update="explode")
    with pytest.raises(ValueError, match="steps"):
        strata.steps("7pt", u, -1)
    with pytest.raises(ValueError, match="fuse"):
        strata.steps("7pt", u, 2, fuse=-1)
    with pytest.raises(ValueError, match="finite"):
        strata.steps("7pt", u, 2, c=float("nan"))
