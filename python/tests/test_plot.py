"""strata.plot draws readable figures: labelled axes in metres and seconds, a colour bar,
a title with step and time, one clip across a series; python -m strata.plot renders a run."""
import subprocess
import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import strata  # noqa: E402
import strata.plot  # noqa: E402


def test_wavefield_slice_has_units_colour_bar_and_title():
    u = np.zeros((10, 12, 14))
    u[5, 6, 7] = 1.0
    im = strata.plot.wavefield(u, 10.0, absorbing={"xmin": 2, "xmax": 2, "zmax": 2},
                               step=40, time=0.05)
    ax = im.axes
    assert ax.get_xlabel() == "x (m)" and "z (m)" in ax.get_ylabel()
    assert "step 40" in ax.get_title() and "t = 0.05 s" in ax.get_title()
    assert im.get_extent() == [0, 140.0, 100.0, 0]
    assert len(ax.figure.axes) == 2            # the image and its colour bar
    assert len(ax.lines) == 1                  # the absorbing layers' outline


def test_one_clip_across_a_series():
    a, b = np.full((4, 4), 1.0), np.full((4, 4), 10.0)
    assert strata.plot.shared_clip([a, b], 0.5) == pytest.approx(5.5)


def test_seismogram_agc_and_modes():
    t = np.linspace(0, 1, 200)
    traces = np.outer(np.exp(-5 * t) * np.sin(40 * t), np.ones(5))
    g = strata.plot.agc(traces, 21)
    late, early = np.abs(g[150:]).max(), np.abs(g[:50]).max()
    assert late > 0.3 * early                 # AGC lifts the late, weak part
    recs = np.stack([np.linspace(0, 40, 5), np.zeros(5), np.zeros(5)], axis=1)
    for mode in ("density", "wiggle"):
        ax = strata.plot.seismogram(traces, t, recs, mode=mode, gain=0.1)
        assert ax.get_xlabel() == "offset (m)" and ax.get_ylabel() == "time (s)"
    with pytest.raises(ValueError, match="mode"):
        strata.plot.seismogram(traces, t, mode="heatmap")


def test_residuals_plot():
    ax = strata.plot.residuals([1.0, 1e-2, 1e-4])
    assert ax.get_yscale() == "log"


def test_python_m_strata_plot_renders_a_run_directory(tmp_path):
    cfg = {"grid": {"shape": [20, 20, 20], "spacing": 5.0}, "time": {"steps": 40},
           "sources": [{"position": [50, 50, 20], "frequency": 40}],
           "receivers": {"lines": [{"start": [10, 50, 10], "end": [90, 50, 10], "count": 9}]},
           "boundary": {"pml": {"width": 4}},
           "output": {"snapshots": {"every": 20, "vti": False, "png": False}, "seismogram_png": False}}
    strata.wave.run(cfg, out_dir=str(tmp_path / "run"))
    out = subprocess.run([sys.executable, "-m", "strata.plot", str(tmp_path / "run"),
                          "--out", str(tmp_path / "plots")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    files = sorted(p.name for p in (tmp_path / "plots").iterdir())
    assert "seismogram_density.png" in files and "seismogram_wiggle.png" in files
    assert sum(f.startswith("u_") for f in files) == 2   # steps 20 and 40
