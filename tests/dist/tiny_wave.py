"""What the distributed CLI tests of the wave verbs share: a tiny configuration (seconds on
--device cpu; CI has 2 cores) and the launcher's words for NP ranks."""
import copy

TINY = {
    "grid": {"shape": [18, 14, 16], "spacing": 5.0},
    "model": {"type": "layered", "layers": [{"top": 0, "velocity": 1500}, {"top": 35, "velocity": 1900}]},
    "time": {"steps": 20},
    "scheme": {"order": 4, "precision": "f64"},
    "sources": [{"position": [45.0, 35.0, 30.0], "frequency": 20.0}],
    "receivers": {"every": 1, "points": [[20.0, 35.0, 10.0]],
                  "lines": [{"start": [15.0, 35.0, 12.0], "end": [75.0, 35.0, 12.0], "count": 6}]},
    "boundary": {"pml": {"width": 4}},
    "device": "cpu",
}


def tiny(**changes):
    """TINY with top-level sections replaced (a deep copy)."""
    c = copy.deepcopy(TINY)
    c.update(changes)
    return c


def launcher(mpiexec, np):
    """[mpiexec, -n, NP], or nothing where there is no launcher (NP is then 1)."""
    return [mpiexec, "-n", str(np)] if mpiexec else []
