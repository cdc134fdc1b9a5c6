// The complete, commented default configuration `strata wave --print-config` prints: every
// key at its default (tests check that it parses to exactly the defaults), plus one example
// source and receiver line so that it runs as it stands (a few seconds on a CPU).
#include "strata/wave.hpp"

namespace strata::wave {

std::string default_config_text() {
  return R"JSON({
  // strata wave: acoustic waves u_tt = v(x)^2 Lap(u) + sum_s s(t) delta(x - x_s).
  // Comments are allowed. Every key below is optional (this is its default); an unknown
  // key is an error. Override any key from the command line: --set time.steps=500.
  // Coordinates are metres; grid point (i, j, k) sits at ((i+0.5)h, (j+0.5)h, (k+0.5)h),
  // so the domain is [0, n*h] per axis. z is depth: k = 0 is the top.
  "grid": {
    "shape": [64, 64, 64],        // interior points [nx, ny, nz]
    "spacing": 10.0               // h (m), the same on every axis
  },
  "model": {
    "type": "constant",           // constant | layered | npy
    "velocity": 2000.0,           // constant: v (m/s)
    "layers": [],                 // layered: [{"top": 0, "velocity": 1500}, {"top": 200, "velocity": 2500}]
                                  //   tops in m, ascending, the first at 0
    "file": ""                    // npy: (nz, ny, nx) float32/float64 array of v (m/s)
  },
  "time": {
    "steps": 300,                 // time steps to run (total, counting from step 0)
    "dt": null,                   // s; null: cfl_safety * the stability limit
    "cfl_safety": 0.8             // fraction of the limit dt <= 2 / (v_max sqrt(lambda_max))
  },
  "scheme": {
    "order": 8,                   // space order 2 | 4 | 6 | 8 (stencil radius order/2)
    "precision": "f32"            // f32 | f64
  },
  // Ricker wavelets at off-grid points (trilinear injection); delay null: 1.5 / frequency.
  "sources": [
    {"position": [320.0, 320.0, 200.0], "frequency": 15.0, "amplitude": 1.0, "delay": null}
  ],
  "receivers": {
    "every": 1,                   // sample u every this many steps (row 0 is step 0)
    "points": [],                 // [[x, y, z], ...]
    "lines": [                    // count points evenly from start to end (both included)
      {"start": [170.0, 320.0, 20.0], "end": [470.0, 320.0, 20.0], "count": 31}
    ],
    "planes": []                  // [{"axis": "z", "position": 100.0, "stride": 4}]: every
                                  //   stride-th grid point of the plane, interpolated along axis
  },
  "boundary": {
    // pml: absorbing (convolutional PML); free: u = 0 on the face (pressure release);
    // rigid: du/dn = 0 on the face; periodic: wraps (both faces of the axis).
    "xmin": "pml", "xmax": "pml", "ymin": "pml", "ymax": "pml",
    "zmin": "free",               // the top: a free surface
    "zmax": "pml",
    "pml": {
      "width": 16,                // points per absorbing layer
      "reflection": 0.0001,       // target reflection coefficient at normal incidence
      "power": 4.0,               // damping profile d0 * (depth in layer)^power
      "alpha": null               // frequency shift (1/s) at the inner edge; null: pi * f_peak
    }
  },
  "output": {
    "dir": "wave-out",            // created if missing; every file written atomically
    "snapshots": {
      "every": 0,                 // u every N steps (0: none) as:
      "npy": true,                //   snapshots/u_STEP.npy  (nz, ny, nx)
      "vti": true,                //   snapshots/u_STEP.vti  (VTK image data for ParaView)
      "png": true                 //   snapshots/u_STEP.png  (the slice below)
    },
    "png": {
      "axis": "y",                // slice normal: x | y | z
      "index": null,              // grid index along axis; null: the middle
      "colormap": "seismic",      // seismic | viridis | gray
      "clip": 0.995               // colour range: this quantile of |u|
    },
    "seismogram_png": true,       // seismogram.png next to seismogram.npy
    "checkpoint_every": 0         // checkpoint.strata every N steps and at the last (0: none)
  },
  "device": "auto"                // auto | cpu | cuda
}
)JSON";
}

}  // namespace strata::wave
