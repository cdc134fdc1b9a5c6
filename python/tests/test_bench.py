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


def test_run_all_on_the_cpu_names_what_it_leaves_out():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rows = strata.bench.run("all", size=8, precision="f64", reps=1, warmup=0)
    assert {r["kernel"] for r in rows} >= {"copy", "7pt", "sum"}
    said = " ".join(str(w.message) for w in caught)
    assert "poisson skipped" in said


@pytest.mark.parametrize("kwargs, words", [
    (dict(kernel="nope"), "unknown kernel 'nope'"),
    (dict(kernel="poisson"), "needs --device cuda"),
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
