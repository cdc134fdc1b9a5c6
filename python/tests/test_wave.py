"""strata.wave.run: in memory and as `strata wave` (a run directory), the same seismogram
either way; the final wavefield as a Field; progress; a stop that leaves no results."""
import json
import os

import numpy as np
import pytest

import strata


def _config(steps=60):
    n, h = 24, 10.0
    return {"grid": {"shape": [n, n, n], "spacing": h}, "time": {"steps": steps},
            "scheme": {"precision": "f64"},
            "sources": [{"position": [120, 120, 60], "frequency": 25}],
            "receivers": {"lines": [{"start": [20, 120, 20], "end": [220, 120, 20], "count": 11}],
                          "every": 2},
            "boundary": {"pml": {"width": 6}},
            "output": {"snapshots": {"every": 30, "vti": False, "png": False}, "seismogram_png": False}}


def test_in_memory_and_run_directory_agree(tmp_path):
    seen = []
    m = strata.wave.run(_config(), wavefield=True, on_progress=seen.append, progress_interval_s=0)
    assert m.seismogram.shape == (31, 11) and m.receivers.shape == (11, 3)
    assert np.allclose(m.receivers[:, 0], np.linspace(20, 220, 11))
    assert m.times[1] == pytest.approx(2 * m.dt)
    assert np.abs(m.seismogram).max() > 0 and np.isfinite(m.seismogram).all()
    assert isinstance(m.wavefield, strata.Field) and m.wavefield.shape == (24, 24, 24)
    assert strata.max_abs(m.wavefield) > 0
    assert seen[-1]["final"] and seen[-1]["step"] == 60

    d = tmp_path / "run"
    r = strata.wave.run(_config(), out_dir=str(d))
    assert np.array_equal(r.seismogram, m.seismogram) and np.array_equal(r.receivers, m.receivers)
    assert r.report["last_step"] == 60 and os.path.exists(d / "snapshots")


def test_a_path_and_overrides_are_read(tmp_path):
    p = tmp_path / "wave.json"
    p.write_text(json.dumps(_config()))
    r = strata.wave.run(str(p), overrides=["time.steps=10"])
    assert r.seismogram.shape[0] == 6
    # One string is one override, not one a character.
    assert strata.wave.run(str(p), overrides="time.steps=10").seismogram.shape == r.seismogram.shape
    with pytest.raises(TypeError, match="key.path=VALUE"):
        strata.wave.run(str(p), overrides=["time.steps=10", 3])


def test_bad_configurations_are_refused():
    with pytest.raises(ValueError, match="bogus"):
        strata.wave.run({"bogus": 1})
    with pytest.raises(TypeError, match="dict or a path"):
        strata.wave.run(42)


def test_a_stop_in_progress_leaves_no_results(tmp_path):
    def stop(p):
        if p["step"] >= 10:
            raise KeyboardInterrupt
    d = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        strata.wave.run(_config(400), out_dir=str(d), on_progress=stop, progress_interval_s=1e-9)
    assert not (d / "seismogram.npy").exists() and not (d / "report.json").exists()
    with pytest.raises(KeyboardInterrupt):
        strata.wave.run(_config(400), on_progress=stop, progress_interval_s=1e-9)


# Progress: the CLI's line on stderr, by default only when stderr is a terminal (pytest's
# capture is none), always with progress=True, never with False; the caller's on_progress
# is called either way.
def test_progress_shows_in_a_terminal_only_unless_asked(capsys):
    seen = []
    strata.wave.run(_config(20), on_progress=seen.append, progress_interval_s=0)
    assert capsys.readouterr().err == "" and seen and seen[-1]["final"]
    assert "step 20/20" in seen[-1]["text"]
    seen.clear()
    strata.wave.run(_config(20), progress=True, on_progress=seen.append, progress_interval_s=0)
    err = capsys.readouterr().err
    assert "strata.wave.run: step 20/20  100.0%" in err and "ETA" in err and seen
    strata.wave.run(_config(20), progress=False, progress_interval_s=0)
    assert capsys.readouterr().err == ""


def test_a_runs_warnings_reach_python(tmp_path):
    cfg = _config(10)
    cfg["sources"][0]["position"] = [15, 120, 120]  # inside the absorbing layer (6 points of 10 m)
    with pytest.warns(RuntimeWarning, match="strata.wave.run: sources.0 lies inside an absorbing layer"):
        strata.wave.run(cfg)
    heard = []
    strata.wave.run(cfg, on_warning=heard.append)
    assert heard
