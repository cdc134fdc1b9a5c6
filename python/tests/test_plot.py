"""strata.plot draws readable figures: labelled axes in metres and seconds, a colour bar,
a title with step and time, one clip across a series; seismogram offsets from the source; the
model with its sources and receivers; python -m strata.plot renders a run (the README's own
quick.json run included) into RUN_DIR/plots, which a later `--overwrite` run removes; it says
what it cannot draw; strata.plot is there after `import strata`, matplotlib only when drawing."""
import os
import subprocess
import sys

import numpy as np
import pytest

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def test_strata_plot_comes_with_import_strata_without_matplotlib():
    code = ("import sys, strata; f = strata.plot.wavefield; "
            "assert 'matplotlib' not in sys.modules, 'import strata imported matplotlib'")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_drawing_without_matplotlib_says_how_to_get_it():
    code = ("import sys; sys.modules['matplotlib'] = None\n"
            "import numpy as np, strata\n"
            "try:\n    strata.plot.wavefield(np.zeros((2, 2, 2)), 1.0)\n"
            "except ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and "pip install matplotlib" in out.stdout, out.stdout + out.stderr


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
    assert list(im.get_extent()) == [0, 140.0, 100.0, 0]  # a tuple before matplotlib 3.6
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
        assert ax.get_xlabel() == "distance along the receiver line (m)" and ax.get_ylabel() == "time (s)"
    with pytest.raises(ValueError, match="mode"):
        strata.plot.seismogram(traces, t, mode="heatmap")


def test_seismogram_offsets_are_measured_from_the_source():
    # quick.json: 31 receivers from x = 170 to 470 m, the source at x = 320 m.
    recs = np.stack([np.linspace(170, 470, 31), np.full(31, 320.0), np.full(31, 20.0)], axis=1)
    src = [{"position": [320.0, 320.0, 60.0], "frequency": 12.0}]
    x, label = strata.plot.receiver_axis(recs, src)
    assert label == "offset from the source (m)" and x[0] == -150 and x[15] == 0 and x[-1] == 150
    t = np.linspace(0, 0.5, 50)
    traces = np.outer(np.sin(30 * t), np.ones(31))
    ax = strata.plot.seismogram(traces, t, recs, sources=src)
    assert ax.get_xlabel() == "offset from the source (m)"
    assert ax.get_xlim() == pytest.approx((-155, 155))
    assert len(ax.figure.axes) == 2                       # the picture and its colour bar
    assert ax.figure.axes[1].get_ylabel() == "u (pressure, arbitrary units)"
    # Receivers that are not one line in order: numbered.
    ax = strata.plot.seismogram(traces[:, :3], t, [[0, 0, 0], [10, 0, 0], [10, 10, 0]], sources=src)
    assert ax.get_xlabel() == "receiver (seismogram column)"


def _model_config():
    return {"grid": {"shape": [30, 8, 20], "spacing": 10.0},
            "model": {"type": "layered", "layers": [{"top": 0, "velocity": 1500}, {"top": 100, "velocity": 2500}]},
            "sources": [{"position": [150, 40, 30], "frequency": 20}],
            "receivers": {"lines": [{"start": [50, 40, 10], "end": [250, 40, 10], "count": 5}]},
            "boundary": {"pml": {"width": 4}}}


def test_model_shows_velocity_sources_and_receivers():
    im = strata.plot.model(_model_config())
    ax = im.axes
    assert ax.get_xlabel() == "x (m)" and ax.get_ylabel() == "depth z (m)"
    assert list(im.get_extent()) == [0, 300.0, 200.0, 0]
    v = im.get_array()
    assert v[0, 0] == 1500 and v[-1, 0] == 2500      # the layers, the top row at depth 5 m
    assert ax.figure.axes[1].get_ylabel() == "velocity (m/s)"
    receivers, source = ax.collections             # drawn in that order
    assert receivers.get_offsets().shape == (5, 2)
    assert np.allclose(source.get_offsets(), [[150, 30]])
    assert len(ax.lines) == 1                        # the absorbing layers' inner edge
    assert "y = 45 m" in ax.get_title()


def _png_size(path):
    import matplotlib.image
    h, w = matplotlib.image.imread(path).shape[:2]
    return w, h


def test_python_m_strata_plot_on_the_readme_quick_run(tmp_path):
    """The README's run (examples/wave/quick.json writes .vti snapshots, not .npy), shortened;
    then a run with --overwrite into the same directory, which removes the plots."""
    quick = os.path.join(REPO, "examples", "wave", "quick.json")
    run = tmp_path / "run1"
    over = ["time.steps=100", "output.snapshots.every=50", "output.checkpoint_every=0", "device=cpu"]
    strata.wave.run(quick, out_dir=str(run), overrides=over)
    out = subprocess.run([sys.executable, "-m", "strata.plot", str(run)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    files = sorted(os.listdir(run / "plots"))
    assert files == ["model.png", "seismogram_density.png", "seismogram_wiggle.png", "u_000050.png",
                     "u_000100.png"], files
    w, h = _png_size(run / "plots" / "u_000050.png")
    assert w > 400 and h > 300
    assert "note" not in out.stderr, out.stderr
    # The plots are the run's: a new run with --overwrite takes the directory.
    strata.wave.run(quick, out_dir=str(run), overrides=over, overwrite=True)
    assert not os.path.exists(run / "plots")
    cli = subprocess.run([sys.executable, "-m", "strata.plot", str(run)], capture_output=True, text=True)
    assert cli.returncode == 0, cli.stderr


def test_python_m_strata_plot_says_what_it_cannot_draw(tmp_path):
    cfg = {"grid": {"shape": [16, 16, 16], "spacing": 10.0}, "time": {"steps": 20},
           "sources": [{"position": [80, 80, 40], "frequency": 20}],
           "receivers": {"points": [[40, 80, 20]]},
           "boundary": {"pml": {"width": 4}},
           "output": {"snapshots": {"every": 10, "npy": False, "vti": False, "png": True}}}
    strata.wave.run(cfg, out_dir=str(tmp_path / "run"))
    out = subprocess.run([sys.executable, "-m", "strata.plot", str(tmp_path / "run")],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "pictures only" in out.stderr and "output.snapshots.npy=true" in out.stderr, out.stderr
    assert not any(f.startswith("u_") for f in os.listdir(tmp_path / "run" / "plots"))
    bad = subprocess.run([sys.executable, "-m", "strata.plot", str(tmp_path)], capture_output=True, text=True)
    assert bad.returncode == 1 and "not the directory of a finished" in bad.stderr, bad.stderr


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
    assert "seismogram_density.png" in files and "seismogram_wiggle.png" in files and "model.png" in files
    assert sum(f.startswith("u_") for f in files) == 2   # steps 20 and 40
    assert not [f for f in files if ".tmp." in f]
