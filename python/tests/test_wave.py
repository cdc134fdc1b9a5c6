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
