"""strata.bench: run() gives the rows `strata bench` prints (same families, names, checks);
bad names, devices and precisions are ValueErrors; apply()/overhead() time the Python path."""
import warnings

import pytest

import strata


def test_run_gives_the_cli_rows_with_the_copy_reference():
    rows = strata.bench.run("7pt,sum", size=16, precision="f32", reps=2, warmup=0)
    kernels = [(r["kernel"], r["variant"]) for r in rows]
    assert ("7pt", "ref") in kernels and ("sum", "ref") in kernels and ("copy", "ref") in kernels
    for r in rows:
        assert r["device"] == "cpu" and r["precision"] == "f32"
        assert r["median_ms"] > 0 and r["gpts_per_s"] > 0
        assert r["reference"] == "copy" or r["kernel"] == "copy"
    stencil = next(r for r in rows if r["kernel"] == "7pt")
    assert stencil["shape"] == [16, 16, 16]


def test_run_all_on_the_cpu_runs_every_family_but_dist():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rows = strata.bench.run("all", size=8, precision="f64", reps=1, warmup=0)
    fft = {"fft_periodic_fd7"} if strata.cpu_fft_available() else set()
    assert {r["kernel"] for r in rows} >= {"copy", "7pt", "sum", "steps:7pt", "vcycle_fd7"} | fft
    assert {r["device"] for r in rows} == {"cpu"}
    said = [str(w.message) for w in caught]
    assert len(said) == 1 and "dist skipped" in said[0], said


def test_run_poisson_on_the_cpu_gives_the_solver_rows():
    rows = strata.bench.run("poisson", shape=(12, 10, 8), reps=2, warmup=0)
    fft = [r for r in rows if r["kernel"] == "fft_periodic_fd7"]
    if strata.cpu_fft_available():
        assert {r["variant"] for r in fft} == {"kissfft"} and {r["precision"] for r in fft} == {"f32", "f64"}
    else:  # the rows need the CPU's FFT; multigrid's row on the same problem still runs
        assert not fft and any(r["kernel"] == "solve_periodic_fd7" for r in rows)
    assert all(r["shape"] == [12, 10, 8] and r["median_ms"] > 0 for r in rows)
    solves = [r for r in rows if r["kernel"].startswith("solve_")]
    assert solves and all(0 < r["extra"]["error_rel_l2"] < 0.1 for r in solves)


@pytest.mark.parametrize("kwargs, words", [
    (dict(kernel="nope"), "unknown kernel 'nope'"),
    (dict(kernel="7pt", device="gpu"), "allowed 'cpu', 'cuda'"),
    (dict(kernel="7pt", precision="f16"), "allowed 'f32', 'f64'"),
    (dict(kernel="7pt", shape=(0, 4, 4)), "positive"),
    (dict(kernel="7pt", reps=0), "reps"),
])
def test_run_refuses_bad_arguments(kwargs, words):
    with pytest.raises(ValueError, match=words):
        strata.bench.run(**kwargs)


def test_python_path_timings():
    r = strata.bench.apply(shape=(8, 8, 8), repeats=5)
    assert r["seconds"] > 0 and r["gpts_per_s"] > 0
    assert strata.bench.overhead(repeats=50) > 0
