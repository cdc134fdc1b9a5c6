#!/usr/bin/env python3
"""strata migrate and strata gradient as programs: on the data a `strata wave` run wrote
(.npy and SEG-Y), images as .npy or SEG-Y depth volumes, the predicted data are that run's seismogram to the byte, checkpointing
changes the work and not the result, the outputs and report are written; bad input (a
missing file, data of the wrong shape or sample interval, a velocity file of another grid,
receivers.every > 1, an output that cannot be written) exits 1 with a message naming it
and writes nothing. Usage: test_imaging.py STRATA"""
import json
import os
import struct
import tempfile

from clitest import check, finish, run_strata

CFG = {
    "grid": {"shape": [26, 20, 24], "spacing": 10.0},
    "model": {"type": "layered", "layers": [{"top": 0, "velocity": 1500}, {"top": 120, "velocity": 1900}]},
    "time": {"steps": 60, "dt": 0.001},
    "scheme": {"order": 8, "precision": "f64"},
    "sources": [{"position": [125.0, 95.0, 60.0], "frequency": 18.0}],
    "receivers": {"lines": [{"start": [65.0, 95.0, 65.0], "end": [185.0, 95.0, 65.0], "count": 7}]},
    "boundary": {"zmin": "free", "pml": {"width": 6}},
    "output": {"snapshots": {"every": 0}, "checkpoint_every": 0, "segy": True},
    "device": "cpu",
}


def refused(name, args, needle, d, outputs, code=1):
    r = run_strata(*args)
    check(f"{name}: exits {code or 'non-zero'}", r.returncode == code if code else r.returncode != 0,
          f"exit {r.returncode}: {r.stdout} {r.stderr}")
    check(f"{name}: says {needle!r}", needle in r.stderr, r.stderr.strip())
    check(f"{name}: writes nothing", not any(os.path.exists(os.path.join(d, o)) for o in outputs),
          str([o for o in outputs if os.path.exists(os.path.join(d, o))]))


with tempfile.TemporaryDirectory() as d:
    cfg = os.path.join(d, "cfg.json")
    json.dump(CFG, open(cfg, "w"))
    run = os.path.join(d, "run")
    r = run_strata("wave", "--config", cfg, "--out-dir", run, "--progress", "off")
    check("strata wave writes the data", r.returncode == 0, r.stderr)
    seis, sgy = os.path.join(run, "seismogram.npy"), os.path.join(run, "seismogram.sgy")
    p = lambda name: os.path.join(d, name)

    r = run_strata("gradient", "--config", cfg, "--data", seis, "--gradient", p("g.npy"), "--predicted",
                   p("pred.npy"), "--illumination", p("ill.npy"), "--json", p("g.json"))
    check("gradient runs", r.returncode == 0, r.stderr)
    check("gradient prints the misfit", "misfit 0.000000e+00" in r.stdout, r.stdout)
    check("the predicted data are strata wave's seismogram, byte for byte",
          os.path.exists(p("pred.npy")) and open(p("pred.npy"), "rb").read() == open(seis, "rb").read())
    rep = json.load(open(p("g.json"))) if os.path.exists(p("g.json")) else {}
    check("the report", rep.get("verb") == "gradient" and rep.get("misfit") == 0 and rep.get("steps") == 60
          and rep.get("receivers") == 7 and rep.get("forward_steps") == 60
          and rep.get("forward_timed_steps") == 60, str(rep))  # every step timed: no boundary saving
    ts = rep.get("timing_s", {})
    check("the report says where the wall time went",
          set(ts) == {"process_start", "read", "run", "write", "total"} and ts["run"] > 0
          and ts["total"] >= ts["process_start"] + ts["read"] + ts["run"] + ts["write"] - 1e-6, str(ts))
    check("the line says the wall time", "wall " in r.stdout, r.stdout)
    cost = rep.get("cost", {})
    check("the report says where the run's time went",
          set(cost) == {"setup_s", "setup_parts_s", "finish_s", "finish_parts_s", "forward_s", "adjoint_s",
                        "checkpoints_s", "run_s", "forward_gpts_per_s", "in_forward_runs"}
          and cost["forward_s"] + cost["adjoint_s"] + cost["checkpoints_s"] + cost["setup_s"]
          + cost["finish_s"] <= cost["run_s"] and cost["setup_s"] > 0 and cost["finish_s"] > 0
          and cost["forward_gpts_per_s"] > 0 and cost["in_forward_runs"] >= 1, str(cost))
    parts = cost.get("setup_parts_s", {})
    check("the set-up's parts are named and within it",
          {"forward_backend", "adjoint_backend"} <= set(parts)
          and set(parts) <= {"ring", "forward_backend", "adjoint_backend", "kept_states", "rings", "fused_lists"}
          and all(v >= 0 for v in parts.values()) and sum(parts.values()) <= cost.get("setup_s", 0) + 1e-9, str(cost))
    ends = cost.get("finish_parts_s", {})
    check("the finish's parts are named and within it",
          set(ends) in ({"correlation", "illumination", "gradient", "released"},
                        {"correlation", "outside_zeroed", "illumination", "gradient", "released"})
          and all(v >= 0 for v in ends.values()) and sum(ends.values()) <= cost.get("finish_s", 0) + 1e-9, str(cost))
    check("the line says the cost in forward runs", "forward runs' time" in r.stdout, r.stdout)
    check("the gradient and illumination are written", os.path.exists(p("g.npy")) and os.path.exists(p("ill.npy")))

    # Data of another model (velocity x 1.02 below 120 m): a misfit, and the same gradient
    # whatever the number of kept states.
    other = dict(CFG, model={"type": "layered", "layers": [{"top": 0, "velocity": 1500}, {"top": 120, "velocity": 1938}]})
    ocfg = p("other.json")
    json.dump(other, open(ocfg, "w"))
    r = run_strata("wave", "--config", ocfg, "--out-dir", p("orun"), "--progress", "off")
    obs = os.path.join(p("orun"), "seismogram.npy")
    a = run_strata("gradient", "--config", cfg, "--data", obs, "--gradient", p("ga.npy"))
    b = run_strata("gradient", "--config", cfg, "--data", obs, "--gradient", p("gb.npy"), "--checkpoints", "3",
                   "--json", p("gb.json"))
    check("a misfit against another model's data", a.returncode == 0 and "misfit 0.000000e+00" not in a.stdout,
          a.stdout + a.stderr)
    check("3 kept states: the same gradient, byte for byte", b.returncode == 0 and os.path.exists(p("gb.npy"))
          and open(p("ga.npy"), "rb").read() == open(p("gb.npy"), "rb").read(), b.stderr)
    gb = json.load(open(p("gb.json"))) if os.path.exists(p("gb.json")) else {}
    check("3 kept states: more forward steps, said", gb.get("checkpoints") == 3 and gb.get("forward_steps", 0) > 60,
          str(gb))

    r = run_strata("gradient", "--config", cfg, "--data", sgy, "--gradient", p("gs.npy"))
    check("SEG-Y data (f32 samples): a misfit of rounding alone", r.returncode == 0 and "misfit" in r.stdout,
          r.stdout + r.stderr)

    r = run_strata("migrate", "--config", cfg, "--data", obs, "--image", p("im.npy"), "--compensated", p("c.npy"))
    check("migrate writes the image and its compensated form", r.returncode == 0 and os.path.exists(p("im.npy"))
          and os.path.exists(p("c.npy")), r.stderr)
    # Without --compensated or --illumination nothing needs the illumination: not summed (a pass
    # over the wavefield each forward step), said in the report, the image the same bytes.
    r = run_strata("migrate", "--config", cfg, "--data", obs, "--image", p("im0.npy"), "--json", p("im0.json"))
    rep0 = json.load(open(p("im0.json"))) if os.path.exists(p("im0.json")) else {}
    r1 = run_strata("migrate", "--config", cfg, "--data", obs, "--image", p("im1.npy"), "--illumination",
                    p("il1.npy"), "--json", p("im1.json"))
    rep1 = json.load(open(p("im1.json"))) if os.path.exists(p("im1.json")) else {}
    check("migrate sums the illumination only for an output that needs it, the image unchanged",
          r.returncode == 0 and r1.returncode == 0 and rep0.get("illumination") is False
          and rep1.get("illumination") is True and os.path.exists(p("il1.npy"))
          and open(p("im0.npy"), "rb").read() == open(p("im.npy"), "rb").read()
          and open(p("im1.npy"), "rb").read() == open(p("im.npy"), "rb").read(),
          r.stderr + r1.stderr + str(rep0.get("illumination")) + str(rep1.get("illumination")))
    # Sources of amplitude 0 light nothing: the compensated image is the image (0), not 0 / 0.
    dark = p("dark.json")
    json.dump({**CFG, "sources": [{**src, "amplitude": 0.0} for src in CFG["sources"]]}, open(dark, "w"))
    r = run_strata("migrate", "--config", dark, "--data", obs, "--image", p("dim.npy"), "--compensated",
                   p("dc.npy"))
    check("migrate with sources of amplitude 0 runs", r.returncode == 0, r.stderr)
    if r.returncode == 0:
        raw = open(p("dc.npy"), "rb").read()
        start = 10 + struct.unpack("<H", raw[8:10])[0]  # a version 1.0 header, '<f8' values
        values = struct.unpack("<%dd" % ((len(raw) - start) // 8), raw[start:])
        check("  and its compensated image is 0, not NaN", len(values) > 0 and all(v == 0 for v in values),
              str(values[:4]))
    # The image as a SEG-Y depth volume: one trace per (x, y) column, the depth step in mm.
    r = run_strata("migrate", "--config", cfg, "--data", obs, "--image", p("im.sgy"), "--compensated", p("c.segy"))
    check("migrate writes SEG-Y images", r.returncode == 0 and os.path.exists(p("im.sgy"))
          and os.path.exists(p("c.segy")), r.stderr)
    if os.path.exists(p("im.sgy")):
        raw = open(p("im.sgy"), "rb").read()
        ns, dt = struct.unpack(">H", raw[3220:3222])[0], struct.unpack(">H", raw[3216:3218])[0]
        check("the volume: 24 samples down, 10 m as 10000 (mm)", (ns, dt) == (24, 10000), str((ns, dt)))
        check("the volume: 26 x 20 traces", (len(raw) - 3600) == 26 * 20 * (240 + 4 * 24), str(len(raw)))
        try:
            import numpy as np
            import segyio
        except ImportError:
            print("skip the SEG-Y image against segyio (numpy or segyio not installed)")
        else:
            with segyio.open(p("im.sgy")) as f:
                cube = segyio.tools.cube(f)  # (inline = y, crossline = x, depth)
                depths = list(f.samples[:2])
            im = np.load(p("im.npy"))
            check("segyio reads the image as the (y, x, z) cube of the .npy in float32",
                  np.array_equal(cube, np.transpose(im, (1, 2, 0)).astype(np.float32)))
            check("segyio's samples are depths in metres", depths == [0.0, 10.0], str(depths))

    out = ["x.npy", "x.json"]
    base = ["gradient", "--config", cfg, "--gradient", p("x.npy"), "--json", p("x.json")]
    refused("missing data file", base + ["--data", p("none.npy")], "none.npy", d, out)
    def npy2(path, rows, cols):
        header = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
        header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
        with open(path, "wb") as f:
            f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
            f.write(b"\0" * (8 * rows * cols))
    npy2(p("short.npy"), 60, 7)
    npy2(p("nan.npy"), 61, 7)
    with open(p("nan.npy"), "r+b") as f:  # row 30, receiver 4: NaN
        f.seek(-8 * (61 * 7 - (30 * 7 + 4)), 2)
        f.write(struct.pack("<d", float("nan")))
    refused("data holding a NaN", base + ["--data", p("nan.npy")], "row 30, receiver 4", d, out)
    refused("data of 60 rows", base + ["--data", p("short.npy")], "61 rows", d, out)
    # An empty array is refused, not taken for the zeros that no data stand for.
    for rows, cols in [(0, 7), (0, 0), (61, 0)]:
        npy2(p("empty.npy"), rows, cols)
        refused(f"empty data ({rows}, {cols})", base + ["--data", p("empty.npy")], "empty", d, out)
    # Finite data whose half sum of squares overflows: no misfit can be summed (it was reported
    # as inf, null in the JSON, with a gradient written). The largest value is named. Row 0
    # (step 0) is not compared: a huge value there alone runs.
    def fill_npy(path, rows, cols, values):
        npy2(path, rows, cols)
        with open(path, "r+b") as f:
            for (row, col), v in values.items():
                f.seek(-8 * (rows * cols - (row * cols + col)), 2)
                f.write(struct.pack("<d", v))
    fill_npy(p("huge.npy"), 61, 7, {**{(r, c): 1e160 for r in range(1, 61) for c in range(7)}, (20, 3): -1e170})
    refused("data whose squares overflow", base + ["--data", p("huge.npy")],
            "the data hold -1e+170 at row 20, receiver 3: 1/2 |data|^2 overflows a double", d, out)
    # In an f32 run a datum beyond float's range is refused as the velocity is, before any work
    # on either device: a GPU's adjoint took it as inf (a NaN gradient), the CPU's (in double)
    # as it is.
    fill_npy(p("wide.npy"), 61, 7, {(12, 5): 4e38})
    refused("f32 data beyond float's range", base + ["--data", p("wide.npy"), "--set", 'scheme.precision="f32"'],
            "the data hold 4e+38 at row 12, receiver 5, outside the range of f32", d, out)
    check("  the same data run in f64", run_strata(*base, "--data", p("wide.npy")).returncode == 0)
    # A result that outgrows a double while the run goes (a source of amplitude 1e200 against a
    # datum of 1e150: each finite, their product not) is refused, the array and point named,
    # nothing written; a NaN gradient was written, exit 0.
    loud = p("loud.json")
    json.dump({**CFG, "sources": [{**src, "amplitude": 1e200} for src in CFG["sources"]]}, open(loud, "w"))
    fill_npy(p("d150.npy"), 61, 7, {(30, 3): 1e150})
    for o in out:
        if os.path.exists(os.path.join(d, o)):
            os.remove(os.path.join(d, o))
    refused("a gradient that outgrows a double",
            ["gradient", "--config", loud, "--data", p("d150.npy"), "--gradient", p("x.npy"), "--json", p("x.json")],
            "the run's values outgrew a double", d, out)
    for o in out:
        if os.path.exists(os.path.join(d, o)):
            os.remove(os.path.join(d, o))
    # An output that names one of the run's input files (the data, the velocity model, by any
    # spelling or link) is refused before any work, the input left as it was: an inversion's
    # data or model replaced by a gradient was once allowed.
    data_bytes = open(seis, "rb").read()
    os.symlink(seis, p("data-link.npy"))
    for name, extra, needle in [
            ("--gradient over --data", ["--data", seis, "--gradient", seis],
             "--gradient '%s' is the --data file the run reads" % seis),
            ("--predicted over --data by a link", ["--data", seis, "--gradient", p("x.npy"), "--predicted", p("data-link.npy")],
             "--predicted '%s' is the --data file" % p("data-link.npy")),
            ("--illumination over --velocity", ["--data", seis, "--gradient", p("x.npy"), "--velocity", p("v.npy"),
                                                "--illumination", p("v.npy")], "is the --velocity file"),
            ("--json over --config", ["--data", seis, "--gradient", p("x.npy"), "--json", cfg],
             "--json '%s' is the --config file" % cfg)]:
        if "--velocity" in extra:
            npy3 = "{'descr': '<f8', 'fortran_order': False, 'shape': (24, 20, 26), }"
            npy3 += " " * ((64 - (10 + len(npy3) + 1) % 64) % 64) + "\n"
            with open(p("v.npy"), "wb") as f:
                f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(npy3)) + npy3.encode())
                f.write(struct.pack("<d", 1700.0) * (24 * 20 * 26))
        before = {q: open(q, "rb").read() for q in (seis, p("v.npy"), cfg) if os.path.exists(q)}
        r = run_strata("gradient", "--config", cfg, *extra)
        check(f"{name}: exits 1", r.returncode == 1, f"exit {r.returncode}: {r.stderr}")
        check(f"{name}: says so", needle in r.stderr, r.stderr.strip())
        check(f"{name}: the input is left as it was", all(open(q, "rb").read() == b for q, b in before.items()))
        check(f"{name}: writes nothing", not os.path.exists(p("x.npy")))
    check("the data are the wave run's still", open(seis, "rb").read() == data_bytes)
    fill_npy(p("row0.npy"), 61, 7, {(0, c): 1e300 for c in range(7)})
    r = run_strata(*(base + ["--data", p("row0.npy")]))
    check("huge values in row 0 alone run (row 0 is not compared)",
          r.returncode == 0 and os.path.exists(p("x.npy")), r.stderr[-400:])
    for f in out:
        if os.path.exists(p(f)):
            os.remove(p(f))
    # The shape, not only the count: a transposed seismogram, or one of as many values in
    # another shape, is refused (both were once run as if they were the data).
    npy2(p("transposed.npy"), 7, 61)
    refused("transposed data", base + ["--data", p("transposed.npy")],
            "the data are (7, 61); the configuration records 61 rows", d, out)
    refused("transposed data: said", base + ["--data", p("transposed.npy")], "the array is transposed", d, out)
    npy2(p("column.npy"), 427, 1)
    refused("data of as many values in one column", base + ["--data", p("column.npy")], "the data are (427, 1)", d, out)
    refused("a velocity file of another grid", base + ["--data", seis, "--velocity", p("short.npy")], "--velocity", d, out)
    # A velocity that is a finite double but no f32 (beyond float's range, or below its
    # smallest value) is refused as the run's precision holds it, not run as inf or 0.
    def velocity_npy(path, odd_one, at):
        nx_, ny_, nz_ = CFG["grid"]["shape"]
        header = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d, %d), }" % (nz_, ny_, nx_)
        header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
        values = [1500.0] * (nx_ * ny_ * nz_)
        values[at] = odd_one
        with open(path, "wb") as f:
            f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
            f.write(struct.pack("<%dd" % len(values), *values))
    f32 = ["--set", "scheme.precision=f32"]
    for name, odd, at in [("beyond f32's range", 1e39, 777), ("below f32's smallest", 1e-50, 12)]:
        velocity_npy(p("odd.npy"), odd, at)
        nx_, ny_, _ = CFG["grid"]["shape"]
        refused(f"an f32 run's velocity {name}", base + f32 + ["--data", seis, "--velocity", p("odd.npy")],
                f"at [z][y][x] = [{at // (nx_ * ny_)}][{at // nx_ % ny_}][{at % nx_}]", d, out)
    r = run_strata(*(base + f32 + ["--data", seis, "--velocity", p("odd.npy")]))
    check("an f32 run's velocity out of f32's range: says so", "outside the range of f32" in r.stderr, r.stderr)
    every = dict(CFG, receivers={**CFG["receivers"], "every": 2})
    json.dump(every, open(p("every.json"), "w"))
    refused("receivers.every = 2", ["gradient", "--config", p("every.json"), "--data", seis, "--gradient", p("x.npy")],
            "receivers.every", d, out)
    refused("a sample interval that is not dt", base + ["--data", sgy, "--set", "time.dt=0.0009"], "sample interval", d, out)
    # --predicted as SEG-Y: strata wave's seismogram.sgy of the same data (float32 samples),
    # which --data reads back; a dt SEG-Y cannot hold is refused before the run.
    r = run_strata("gradient", "--config", cfg, "--data", seis, "--gradient", p("gp.npy"), "--predicted", p("pred.sgy"))
    check("--predicted as SEG-Y", r.returncode == 0 and os.path.exists(p("pred.sgy")), r.stderr)
    misfits = []
    for name, data_file in (("ma", sgy), ("mb", p("pred.sgy"))):
        run_strata("gradient", "--config", cfg, "--data", data_file, "--gradient", p(name + ".npy"), "--json",
                   p(name + ".json"))
        misfits.append(json.load(open(p(name + ".json")))["misfit"] if os.path.exists(p(name + ".json")) else None)
    check("--predicted's SEG-Y reads back as strata wave's seismogram.sgy (the same misfit)",
          misfits[0] is not None and misfits[0] == misfits[1], str(misfits))
    # The configuration's output.segy is strata wave's seismogram.sgy, which imaging does not
    # write: its limit on dt is not the run's.
    r = run_strata(*(base + ["--data", seis, "--set", "time.dt=0.0012345"]))
    check("output.segy does not bind imaging's dt", r.returncode == 0 and os.path.exists(p("x.npy")), r.stderr)
    for o in out:
        if os.path.exists(p(o)):
            os.remove(p(o))
    refused("--predicted as SEG-Y with a dt SEG-Y cannot hold",
            base + ["--data", seis, "--predicted", p("x.sgy"), "--set", "time.dt=0.0012345"], "--predicted (SEG-Y)",
            d, out + ["x.sgy"])
    os.mkdir(p("adir"))
    r = run_strata("gradient", "--config", cfg, "--data", seis, "--gradient", p("g.sgy"), "--illumination",
                   p("ill.sgy"))
    check("gradient and illumination as SEG-Y (their labels in the textual header)", r.returncode == 0
          and os.path.exists(p("g.sgy")) and os.path.exists(p("ill.sgy")), r.stderr)
    # The model as a SEG-Y depth volume: what --illumination just wrote is a volume of the grid.
    if os.path.exists(p("ill.sgy")):
        r = run_strata("gradient", "--config", cfg, "--data", seis, "--velocity", p("ill.sgy"), "--gradient",
                       p("gv.npy"))
        check("--velocity as SEG-Y is read (and refused for its values, none of them a velocity)",
              r.returncode == 1 and "every velocity must be finite and > 0" in r.stderr, r.stderr)
    try:
        import numpy as np
        import segyio
    except ImportError:
        print("skip --velocity from a segyio-made cube (numpy or segyio not installed)")
    else:  # a model cube written by segyio (IBM floats, its own headers): the same run as the .npy
        nx_, ny_, nz_ = CFG["grid"]["shape"]
        zz = np.arange(nz_)[:, None, None] * 10.0
        vel = np.broadcast_to(np.where(zz < 120, 1500.0, 1900.0) + 2.0 * np.arange(nx_)[None, None, :],
                              (nz_, ny_, nx_)).copy()
        np.save(p("vel.npy"), vel)
        segyio.tools.from_array(p("vel.sgy"), np.ascontiguousarray(np.transpose(vel, (1, 2, 0))).astype(np.float32),
                                dt=10000)
        a = run_strata("gradient", "--config", cfg, "--data", seis, "--velocity", p("vel.npy"), "--gradient", p("gva.npy"))
        b = run_strata("gradient", "--config", cfg, "--data", seis, "--velocity", p("vel.sgy"), "--gradient", p("gvb.npy"))
        check("--velocity from segyio's cube: the same gradient as from the .npy", a.returncode == 0
              and b.returncode == 0 and os.path.exists(p("gvb.npy"))
              and np.array_equal(np.load(p("gva.npy")), np.load(p("gvb.npy"))), a.stderr + b.stderr)
    r = run_strata("gradient", "--config", cfg, "--data", seis, "--gradient", p("gbs.npy"), "--boundary-saving",
                   "--json", p("gbs.json"))
    rep = json.load(open(p("gbs.json"))) if os.path.exists(p("gbs.json")) else {}
    check("--boundary-saving runs and says so", r.returncode == 0 and rep.get("strategy") == "boundary saving"
          and rep.get("forward_steps") == 120 and "boundary saving" in r.stdout, r.stdout + r.stderr)
    refused("--boundary-saving with --checkpoints", base + ["--data", seis, "--boundary-saving", "--checkpoints", "3"],
            "not both", d, out)
    refused("--data-dt that is not the run's dt", base + ["--data", seis, "--data-dt", "0.0011"],
            "sample interval", d, out)
    refused("--data-dt that disagrees with the SEG-Y file's", base + ["--data", sgy, "--data-dt", "0.002"],
            "given as the data's dt", d, out)
    r = run_strata("gradient", "--config", cfg, "--data", seis, "--data-dt", "0.001", "--gradient", p("gd.npy"))
    check("--data-dt that is the run's dt: runs", r.returncode == 0, r.stderr)
    refused("a SEG-Y image of a spacing not in whole mm", ["migrate", "--config", cfg, "--data", seis,
            "--set", "grid.spacing=10.0004", "--image", p("x.sgy")], "not a whole number of millimetres", d, ["x.sgy"])
    refused("an output that is a directory", ["gradient", "--config", cfg, "--data", seis, "--gradient", p("adir"),
                                             "--json", p("x.json")], "adir", d, out)
    refused("no --image (a usage error: CLI11's code)", ["migrate", "--config", cfg, "--data", seis], "--image", d,
            out, code=None)

finish()
