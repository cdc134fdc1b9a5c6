"""strata.run: the CLI's apply and poisson on files from Python, one process (the same runs
under mpirun: tests/dist/test_python_run.py)."""
import json
import os

import numpy as np
import pytest

import strata
import strata.run


def test_apply_writes_what_strata_apply_computes(tmp_path):
    u = np.random.default_rng(1).random((9, 10, 11))
    np.save(tmp_path / "u.npy", u)
    r = strata.run.apply(str(tmp_path / "u.npy"), str(tmp_path / "v.npy"), stencil="star2",
                         bc="neumann", device="cpu", json=str(tmp_path / "r.json"))
    assert r["shape"] == (9, 10, 11) and r["precision"] == "f64" and r["root"]
    want = strata.apply("star2", u, bc="neumann")
    assert np.array_equal(np.load(tmp_path / "v.npy"), np.asarray(want))
    assert json.load(open(tmp_path / "r.json"))["stencil"] == r["report"]["stencil"]


def test_a_nonfinite_result_is_refused_naming_the_keyword_and_writes_nothing(tmp_path):
    u = np.ones((5, 6, 7), dtype=np.float32)
    u[2, 3, 4] = np.nan
    np.save(tmp_path / "u.npy", u)
    out = tmp_path / "v.npy"
    with pytest.raises(ValueError, match="allow_nonfinite=True"):
        strata.run.apply(str(tmp_path / "u.npy"), str(out), device="cpu")
    assert not out.exists()
    with pytest.warns(RuntimeWarning, match="non-finite"):
        strata.run.apply(str(tmp_path / "u.npy"), str(out), device="cpu", allow_nonfinite=True)
    assert out.exists()


@pytest.mark.parametrize("kwargs, words", [
    (dict(stencil="star5"), "unknown stencil"),
    (dict(update="relax:x"), "relax:C"),
    (dict(device="tpu"), "unknown device"),
    (dict(bc="mirror"), "unknown boundary"),
])
def test_bad_words_are_refused_before_any_work(tmp_path, kwargs, words):
    np.save(tmp_path / "u.npy", np.zeros((4, 4, 4)))
    with pytest.raises(ValueError, match=words):
        strata.run.apply(str(tmp_path / "u.npy"), str(tmp_path / "v.npy"), **kwargs)
    assert not (tmp_path / "v.npy").exists()


def test_poisson_reports_the_manufactured_error_and_writes_u(tmp_path):
    r = strata.run.poisson((15, 16, 17), solver="mgcg", precision="f64", rtol=1e-10, device="cpu",
                           out=str(tmp_path / "u.npy"))
    assert r["converged"] and r["error_max"] < 1e-2
    assert np.load(tmp_path / "u.npy").shape == (15, 16, 17)


def test_job_is_one_process_without_a_launcher():
    j = strata.run.job()
    assert (j["rank"], j["size"]) == (0, 1)


def test_imaging_messages_name_the_keywords_and_outputs_may_not_replace_inputs(tmp_path):
    cfg = {"grid": {"shape": [26, 20, 24], "spacing": 10.0}, "time": {"steps": 20, "dt": 0.001},
           "sources": [{"position": [125.0, 95.0, 60.0], "frequency": 18.0}],
           "receivers": {"lines": [{"start": [65.0, 95.0, 65.0], "end": [185.0, 95.0, 65.0], "count": 7}]},
           "boundary": {"pml": {"width": 6}}, "device": "cpu"}
    path = tmp_path / "c.json"
    path.write_text(json.dumps(cfg))
    data = tmp_path / "d.npy"
    np.save(data, np.zeros((21, 7)))
    before = data.read_bytes()
    with pytest.raises(ValueError, match=r"^gradient '.*d\.npy' is the data file the run reads"):
        strata.run.gradient(cfg, str(data), str(data))
    with pytest.raises(ValueError, match=r"^json '.*c\.json' is the config file the run reads"):
        strata.run.gradient(str(path), str(data), str(tmp_path / "g.npy"), json=str(path))
    with pytest.raises(ValueError, match=r"^image and json name the same file"):
        strata.run.migrate(cfg, str(data), str(tmp_path / "i.npy"), json=str(tmp_path / "i.npy"))
    with pytest.raises(ValueError, match=r"^data: npy file"):
        strata.run.gradient(cfg, str(tmp_path / "none.npy"), str(tmp_path / "g.npy"))
    assert data.read_bytes() == before and json.loads(path.read_text()) == cfg
    assert not (tmp_path / "g.npy").exists() and not (tmp_path / "i.npy").exists()


def test_messages_name_the_keywords_not_the_cli_options(tmp_path):
    with pytest.raises(ValueError, match=r"^mixed=True needs solver mgcg precision f64"):
        strata.run.poisson((8, 8, 8), solver="mgcg", precision="f32", mixed=True, device="cpu")
    np.save(tmp_path / "u.npy", np.zeros((4, 4, 4)))
    with pytest.raises(ValueError, match=r"^out and json name the same file"):
        strata.run.apply(str(tmp_path / "u.npy"), str(tmp_path / "v.npy"), device="cpu",
                         json=str(tmp_path / "v.npy"))
    with pytest.raises(ValueError, match=r"^json '.*u\.npy' is the in_ file the run reads"):
        strata.run.apply(str(tmp_path / "u.npy"), str(tmp_path / "v.npy"), device="cpu",
                         json=str(tmp_path / "u.npy"))
    assert np.array_equal(np.load(tmp_path / "u.npy"), np.zeros((4, 4, 4)))
    with pytest.raises(ValueError, match=r"^grid '2x1': expected PXxPYxPZ"):
        strata.run.apply(str(tmp_path / "u.npy"), str(tmp_path / "v.npy"), device="cpu", grid="2x1")
    with pytest.raises(ValueError, match=r"^grid '0x1x1': expected PXxPYxPZ"):
        strata.run.poisson((8, 8, 8), solver="mgcg", precision="f64", device="cpu", grid="0x1x1")
