#!/usr/bin/env python3
"""`strata wave` from the command line: bad input exits non-zero with a message and
writes nothing; a tiny CPU run writes every documented output (seismogram.sgy with
output.segy, read here with struct); a restart continues to byte-identical files;
--print-config is a complete configuration. Standard library only.
Usage: test_wave.py PATH_TO_STRATA"""
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import time


from clitest import STRATA, check, finish, run_strata


def run(*args, cwd=None):
    return run_strata("wave", *args, cwd=cwd)


def npy_data(path):
    """The values of a little-endian float32 .npy, flat (C order)."""
    with open(path, "rb") as f:
        assert f.read(6) == b"\x93NUMPY"
        major = f.read(2)[0]
        n = struct.unpack("<H" if major == 1 else "<I", f.read(2 if major == 1 else 4))[0]
        header = f.read(n).decode()
        kind = "<f" if "'<f4'" in header else "<d"
        data = f.read()
    return list(struct.unpack(f"{kind[0]}{len(data) // struct.calcsize(kind[1])}{kind[1]}", data))


def segy_traces(path):
    """A big-endian IEEE float32 SEG-Y file read with the standard library: the binary header's
    (dt in us, samples per trace, format), and per trace (group x, group y, group elevation,
    source depth, coordinate scalar, elevation scalar, samples)."""
    raw = open(path, "rb").read()
    dt, ns, fmt = struct.unpack(">H2xH2xH", raw[3216:3226])
    size = 240 + 4 * ns
    traces = []
    for at in range(3600, len(raw), size):
        h = raw[at:at + 240]
        elev, = struct.unpack(">i", h[40:44])
        depth, = struct.unpack(">i", h[48:52])
        es, cs = struct.unpack(">hh", h[68:72])
        gx, gy = struct.unpack(">ii", h[80:88])
        traces.append((gx, gy, elev, depth, cs, es, list(struct.unpack(f">{ns}f", raw[at + 240:at + size]))))
    return (dt, ns, fmt), traces


def npy_shape(path):
    with open(path, "rb") as f:
        assert f.read(6) == b"\x93NUMPY"
        major = f.read(2)[0]
        n = struct.unpack("<H" if major == 1 else "<I", f.read(2 if major == 1 else 4))[0]
        header = f.read(n).decode()
    return tuple(int(s) for s in re.search(r"'shape': \(([^)]*)\)", header).group(1).split(",") if s.strip())


TINY = {
    "grid": {"shape": [24, 20, 22], "spacing": 5.0},
    "model": {"type": "layered", "layers": [{"top": 0, "velocity": 1500}, {"top": 50, "velocity": 2000}]},
    "time": {"steps": 30},
    "scheme": {"order": 4, "precision": "f32"},
    "sources": [{"position": [60.0, 50.0, 40.0], "frequency": 25.0}],
    "receivers": {"every": 2, "points": [[30.0, 50.0, 20.0]],
                  "lines": [{"start": [20.0, 50.0, 10.0], "end": [100.0, 50.0, 10.0], "count": 9}]},
    "boundary": {"pml": {"width": 5}},
    "output": {"snapshots": {"every": 15}, "checkpoint_every": 15},
    "device": "cpu",
}

with tempfile.TemporaryDirectory() as tmp:
    cfg = os.path.join(tmp, "tiny.json")
    with open(cfg, "w") as f:
        json.dump(TINY, f)
    out = os.path.join(tmp, "out")

    def refused(name, args, needle):
        r = run("--config", cfg, "--out-dir", out, *args)
        check(name + " exits non-zero", r.returncode != 0, f"rc={r.returncode}")
        check(name + " says why", needle.lower() in r.stderr.lower(), repr(r.stderr))
        check(name + " writes nothing", not os.path.exists(out), str(os.listdir(tmp)))

    refused("unknown key", ["--set", "grid.shap=[4,4,4]"], "unknown key 'grid.shap'")
    refused("negative velocity", ["--set", "model.type=constant", "--set", "model.velocity=-1500"], "model.velocity")
    refused("source outside the grid", ["--set", "sources.0.position=[60, 50, 500]"], "outside the grid")
    refused("CFL violation", ["--dt", "0.01"], "stability (CFL) limit")
    refused("unreadable model", ["--set", "model.type=npy", "--set", "model.file=" + os.path.join(tmp, "nope.npy")],
            "nope.npy")
    refused("bad order", ["--order", "5"], "scheme.order")
    refused("a delay past the end", ["--set", "sources.0.delay=1e200"], "allowed [0,")
    refused("an amplitude beyond f32", ["--set", "sources.0.amplitude=1e300"], "would overflow f32")
    refused("a frequency beyond Nyquist", ["--set", "sources.0.frequency=1e300"], "Nyquist")
    refused("periodic pair", ["--set", "boundary.xmin=periodic"], "both be periodic")
    refused("output.segy with an automatic dt of fractional microseconds",  # 0.8123 x h / (2 v_max) = 1015.375 us
            ["--set", "output.segy=true", "--set", "time.cfl_safety=0.8123"], "set time.dt = 0.001015, or")
    refused("output.segy with a dt of fractional microseconds", ["--set", "output.segy=true", "--dt", "0.00012345"],
            "set time.dt = 0.000123")
    refused("output.segy beyond 65535 samples", ["--set", "output.segy=true", "--dt", "0.0001", "--steps", "200000"],
            "at most 65535")
    refused("missing checkpoint", ["--restart", os.path.join(tmp, "none.strata")], "none.strata")
    r = run("--config", os.path.join(tmp, "missing.json"), "--out-dir", out)
    check("missing config refused", r.returncode != 0 and "missing.json" in r.stderr, r.stderr)
    bad = os.path.join(tmp, "bad.json")
    with open(bad, "w") as f:
        f.write('{"grid": {"shape": [8, 8, 8],}')
    r = run("--config", bad, "--out-dir", out)
    check("invalid JSON refused", r.returncode != 0 and "not valid json" in r.stderr.lower(), r.stderr)
    check("invalid JSON writes nothing", not os.path.exists(out))
    r = run("--out-dir", out)
    check("no --config refused", r.returncode != 0 and "--print-config" in r.stderr, r.stderr)

    # Messages name the problem in the user's terms, never the parser's internals.
    refused("array index beyond 64 bits", ["--set", "sources.99999999999999999999999.frequency=20"], "past the end")
    r = run("--config", tmp, "--out-dir", out)
    check("--config DIR refused", r.returncode != 0 and "is a directory" in r.stderr, r.stderr)
    for name, text, needle in [("null config", "null", "must be an object"),
                               ("empty config", "", "is empty"),
                               ("duplicate key", '{"time": {"steps": 5, "steps": 6}}', "appears twice")]:
        with open(bad, "w") as f:
            f.write(text)
        r = run("--config", bad, "--out-dir", out)
        check(name + " refused", r.returncode != 0 and needle in r.stderr, r.stderr)
        check(name + " writes nothing", not os.path.exists(out))
    r = subprocess.run([STRATA.encode(), b"wave", b"--config", cfg.encode(), b"--out-dir",
                        os.path.join(tmp, "out").encode() + b"\xff"], capture_output=True, timeout=300)
    err = r.stderr.decode(errors="replace")
    check("non-UTF-8 --out-dir refused by name", r.returncode == 1 and "--out-dir" in err and "UTF-8" in err, err)
    check("non-UTF-8 --out-dir writes nothing", not [f for f in os.listdir(tmp) if f.startswith("out")])

    # A footprint larger than the memory available is refused before any work, with the
    # figure and the limit (it used to end in std::bad_alloc, or the kernel killed it).
    r = run_strata("wave", "--config", cfg, "--out-dir", out, "--set", "grid.shape=[600,600,600]",
                   address_space=1536 << 20)
    check("a run larger than ulimit -v is refused", r.returncode == 1 and "of host memory" in r.stderr
          and "(ulimit -v)" in r.stderr, r.stderr)
    check("a run larger than ulimit -v writes nothing", not os.path.exists(out))
    refused("a run larger than any machine", ["--set", "grid.shape=[1048576,1048576,2]", "--set", "sources=[]",
                                              "--set", "receivers.lines=[]", "--set", "receivers.points=[]"],
            "is available")

    # A value an override gave is blamed on the override, not on the file.
    refused("a bad --set names --set", ["--set", "time.steps=-5"], "--set time.steps=-5: key 'time.steps'")
    # A value that opens as an array or object is JSON: what is wrong is said where, not taken
    # for a string (NaN is not JSON; 1e400 overflows a double).
    refused("an array --set that is not JSON", ["--set", 'sources=[{"position": [NaN, 1, 1], "frequency": 10}]'],
            "not valid JSON: parse error at line 1, column")
    refused("an --set number beyond a double", ["--set", 'sources=[{"position": [60, 50, 40], "frequency": 1e400}]'],
            "not valid JSON: number overflow")
    r = run("--config", cfg, "--out-dir", out, "--set", "time.steps=-5")
    check("a bad --set does not blame the file", cfg + ":" not in r.stderr, r.stderr)
    refused("a bad --dt names --dt", ["--dt", "-1"], "--dt -1: key 'time.dt'")
    refused("a bad --precision names it", ["--precision", "f16"], "--precision f16: key 'scheme.precision'")

    # The output directory and its missing parents are created, as every verb's outputs.
    nested = os.path.join(tmp, "runs", "today", "out")
    r = run("--config", cfg, "--out-dir", nested, "--progress", "off", "--steps", "2")
    check("--out-dir with missing parents is created", r.returncode == 0 and
          os.path.exists(os.path.join(nested, "report.json")), r.stderr)

    # A successful tiny run.
    r = run("--config", cfg, "--out-dir", out, "--progress", "off")
    check("tiny run succeeds", r.returncode == 0, r.stderr)
    check("report on stdout", "Gpts/s" in r.stdout, r.stdout)
    check("no copy ratio on the CPU (it means nothing there)", "ratio" not in r.stdout and "copy" not in r.stdout,
          r.stdout)
    for f in ["config.json", "report.json", "seismogram.npy", "seismogram.png", "receivers.npy", "checkpoint.strata",
              "snapshots/u_000015.npy", "snapshots/u_000030.vti", "snapshots/u_000030.png"]:
        check("writes " + f, os.path.exists(os.path.join(out, f)))
    if os.path.exists(os.path.join(out, "seismogram.npy")):
        check("seismogram is (time, receiver)", npy_shape(os.path.join(out, "seismogram.npy")) == (16, 10),
              str(npy_shape(os.path.join(out, "seismogram.npy"))))
        check("snapshot is (nz, ny, nx)", npy_shape(os.path.join(out, "snapshots/u_000015.npy")) == (22, 20, 24))
        check("receivers are (n, 3)", npy_shape(os.path.join(out, "receivers.npy")) == (10, 3))
        with open(os.path.join(out, "seismogram.png"), "rb") as f:
            check("seismogram.png is a PNG", f.read(8) == b"\x89PNG\r\n\x1a\n")
        with open(os.path.join(out, "snapshots/u_000030.vti"), "rb") as f:
            head = f.read(400)
            check("snapshot .vti is VTK image data", b'type="ImageData"' in head and b'WholeExtent="0 23 0 19 0 21"' in head,
                  head)
        rep = json.load(open(os.path.join(out, "report.json")))
        for k in ["steps_run", "gpts_per_s", "gb_per_s", "wall_s", "dt"]:
            check("report.json has " + k, k in rep, str(rep.keys()))
        for k in ["ratio_to_copy", "copy_gb_per_s"]:
            check("report.json on the CPU has no " + k, k not in rep, str(rep.keys()))
        check("report counts 30 steps", rep.get("steps_run") == 30, str(rep.get("steps_run")))
        # Where the time went, from the process's start: the CLI's time before the run, then the
        # model and the fields apart (a CPU run starts no device); only the run's own phases are
        # in wall_s.
        ph = rep.get("phases_s", {})
        names = list(ph)
        check("report.json phases begin at the process's start, then model and fields",
              names[:3] == ["process_start", "model", "fields"] and "device_start" not in ph
              and "setup" not in ph, str(names))
        check("report.json phases are times and the run's own add up within wall_s",
              all(isinstance(v, (int, float)) and v >= 0 for v in ph.values())
              and sum(v for k, v in ph.items() if k not in ("process_start", "mpi_start")) <= rep["wall_s"] + 1e-6
              and 0 < ph.get("process_start", 0) < 60, str(ph))
        leftovers = [f for f in os.listdir(out) if ".tmp." in f]
        check("no temporaries left", not leftovers, str(leftovers))

        # config.json is a complete configuration that runs again.
        again = os.path.join(tmp, "again")
        r = run("--config", os.path.join(out, "config.json"), "--out-dir", again, "--quiet")
        check("config.json reruns", r.returncode == 0, r.stderr)
        same = open(os.path.join(out, "seismogram.npy"), "rb").read() == open(os.path.join(again, "seismogram.npy"), "rb").read()
        check("rerun is deterministic", same)

        # Interrupted at 15, restarted to 30: byte-identical seismogram and last snapshot.
        part = os.path.join(tmp, "part")
        r = run("--config", cfg, "--out-dir", part, "--steps", "15", "--quiet")
        check("partial run succeeds", r.returncode == 0, r.stderr)
        r = run("--config", cfg, "--out-dir", part, "--restart", "--quiet")
        check("restart succeeds", r.returncode == 0, r.stderr)
        for f in ["seismogram.npy", "snapshots/u_000030.npy"]:
            a = open(os.path.join(out, f), "rb").read()
            b = open(os.path.join(part, f), "rb").read() if os.path.exists(os.path.join(part, f)) else b""
            check("restart reproduces " + f, a == b and len(a) > 0)
        other = os.path.join(tmp, "other")
        r = run("--config", cfg, "--out-dir", other, "--set", "sources.0.frequency=20",
                "--restart", os.path.join(part, "checkpoint.strata"))
        check("restart of another configuration refused", r.returncode != 0 and "different configuration" in r.stderr,
              r.stderr)
        check("refused restart writes nothing", not os.path.exists(other))

    # output.segy: seismogram.sgy holds seismogram.npy's columns as traces, the receivers'
    # coordinates in centimetres; every other file is the bits of a run without it, and
    # --overwrite removes it with the run's other files.
    plain, segy = os.path.join(tmp, "plain"), os.path.join(tmp, "segy")
    r = run("--config", cfg, "--out-dir", plain, "--dt", "0.0005", "--quiet", "--progress", "off")
    check("a run for output.segy's comparison succeeds", r.returncode == 0, r.stderr)
    r = run("--config", cfg, "--out-dir", segy, "--dt", "0.0005", "--set", "output.segy=true", "--quiet",
            "--progress", "off")
    check("a run with output.segy succeeds", r.returncode == 0, r.stderr)
    sgy = os.path.join(segy, "seismogram.sgy")
    check("output.segy writes seismogram.sgy", os.path.exists(sgy))
    check("without output.segy no seismogram.sgy", not os.path.exists(os.path.join(plain, "seismogram.sgy")))
    for f in ["seismogram.npy", "receivers.npy", "snapshots/u_000030.npy"]:
        same = open(os.path.join(plain, f), "rb").read() == open(os.path.join(segy, f), "rb").read()
        check("output.segy leaves " + f + " as it was", same)
    if os.path.exists(sgy):
        (dt, ns, fmt), traces = segy_traces(sgy)
        check("seismogram.sgy: dt = time.dt x receivers.every in us, 16 samples, IEEE float32",
              (dt, ns, fmt) == (1000, 16, 5), str((dt, ns, fmt)))
        seis = npy_data(os.path.join(segy, "seismogram.npy"))
        recs = npy_data(os.path.join(segy, "receivers.npy"))
        check("seismogram.sgy has a trace per receiver", len(traces) == 10, str(len(traces)))
        for i, (gx, gy, elev, depth, cs, es, samples) in enumerate(traces):
            check(f"seismogram.sgy trace {i} is seismogram.npy's column {i}", samples == seis[i::10])
            check(f"seismogram.sgy trace {i} sits at receiver {i}", (cs, es) == (-100, -100) and
                  (gx / 100, gy / 100, -elev / 100) == tuple(recs[3 * i:3 * i + 3]) and depth == 4000,
                  str((gx, gy, elev, depth, cs, es, recs[3 * i:3 * i + 3])))
    r = run("--config", cfg, "--out-dir", segy, "--dt", "0.0005", "--overwrite", "--quiet", "--progress", "off")
    check("--overwrite removes seismogram.sgy", r.returncode == 0 and not os.path.exists(sgy), r.stderr)

    # Progress reaches a batch log: plain lines (no carriage returns) every --progress-every
    # seconds and after the last step, without a terminal and without asking.
    r = run("--config", cfg, "--out-dir", os.path.join(tmp, "progress"), "--set", "grid.shape=[48,48,48]",
            "--steps", "300", "--progress-every", "0.2", "--quiet")
    lines = [l for l in r.stderr.splitlines() if l.startswith("strata wave: step ")]
    check("progress without a terminal is plain lines", r.returncode == 0 and "\r" not in r.stderr and len(lines) >= 2
          and lines[-1].startswith("strata wave: step 300/300"), repr(r.stderr[-400:]))
    r = run("--config", cfg, "--out-dir", os.path.join(tmp, "silent"), "--progress", "off", "--quiet")
    check("--progress off prints no progress", r.returncode == 0 and "step" not in r.stderr, r.stderr)

    # A run without sources computes zeros: said, and the report has no wavelength figure.
    r = run("--config", cfg, "--out-dir", os.path.join(tmp, "nosource"), "--set", "sources=[]", "--set",
            "receivers.points=[]", "--set", "receivers.lines=[]", "--progress", "off")
    check("a run without sources warns", r.returncode == 0 and "warning: no sources" in r.stderr
          and "warning: no receivers" in r.stderr, r.stderr)
    check("a run without sources reports no wavelength", "no source" in r.stdout and "0 points per" not in r.stdout,
          r.stdout)
    if os.path.exists(os.path.join(tmp, "nosource", "report.json")):
        rep = json.load(open(os.path.join(tmp, "nosource", "report.json")))
        check("report.json without sources: points_per_wavelength is null", rep["points_per_wavelength"] is None
              and any("no sources" in w for w in rep["warnings"]), str(rep))

    # The output directory is a unit: a re-run into it is refused unless --overwrite (which
    # replaces every file of the previous run) or --restart; a run in progress holds a lock.
    r = run("--config", cfg, "--out-dir", out, "--set", "sources.0.frequency=20")
    check("a second run into a used directory is refused", r.returncode == 1 and "is not empty" in r.stderr, r.stderr)
    check("  offering --overwrite and --restart", "use --overwrite to replace" in r.stderr
          and "--restart to continue it" in r.stderr, r.stderr)
    # A directory of someone else's files: --overwrite would refuse them, so it is not offered.
    foreign = os.path.join(tmp, "foreign")
    os.makedirs(foreign)
    with open(os.path.join(foreign, "notes.txt"), "w") as f:
        f.write("mine")
    r = run("--config", cfg, "--out-dir", foreign)
    check("a directory of files strata did not write: refused, offering to move them, not --overwrite",
          r.returncode == 1 and "move them or use another --out-dir" in r.stderr
          and "use --overwrite" not in r.stderr, r.stderr)
    r = run("--config", cfg, "--out-dir", out, "--set", "output.snapshots.every=10", "--set",
            "output.checkpoint_every=0", "--overwrite", "--quiet")
    check("--overwrite replaces the previous run", r.returncode == 0, r.stderr)
    snaps = sorted(os.listdir(os.path.join(out, "snapshots"))) if os.path.isdir(os.path.join(out, "snapshots")) else []
    check("--overwrite leaves only the new run's snapshots",
          snaps == sorted(f"u_0000{n}.{e}" for n in (10, 20, 30) for e in ("npy", "vti", "png")), str(snaps))
    check("--overwrite removes the previous checkpoint", not os.path.exists(os.path.join(out, "checkpoint.strata")))
    # The previous run's config.json given as --config (by its path or a link) is an input that
    # --overwrite would remove before the run, and a failed run would leave it gone: refused,
    # every file left; a copy of it elsewhere runs.
    own = os.path.join(out, "config.json")
    own_bytes, before = open(own, "rb").read(), sorted(os.listdir(out))
    os.symlink(own, os.path.join(tmp, "own-link.json"))
    for given in (own, os.path.join(tmp, "own-link.json")):
        r = run("--config", given, "--out-dir", out, "--overwrite", "--quiet")
        check(f"--overwrite refuses to remove its --config ({os.path.basename(given)})",
              r.returncode == 1 and "is the previous run's config.json" in r.stderr, r.stderr)
        check("  and leaves the directory as it was",
              open(own, "rb").read() == own_bytes and sorted(os.listdir(out)) == before, str(os.listdir(out)))
    shutil.copy(own, os.path.join(tmp, "own-copy.json"))
    r = run("--config", os.path.join(tmp, "own-copy.json"), "--out-dir", out, "--overwrite", "--quiet")
    check("--overwrite with a copy of the previous configuration runs", r.returncode == 0, r.stderr)
    busy = os.path.join(tmp, "busy")
    first = subprocess.Popen([STRATA, "wave", "--config", cfg, "--out-dir", busy, "--set", "grid.shape=[64,64,64]",
                              "--steps", "600", "--quiet", "--progress", "off"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for _ in range(200):
        if os.path.exists(os.path.join(busy, ".strata.lock")):
            break
        time.sleep(0.05)
    r = run("--config", cfg, "--out-dir", busy, "--overwrite")
    running = first.poll() is None
    out1, err1 = first.communicate(timeout=600)
    check("a run into a directory in use is refused", r.returncode == 1 and "in use by another strata run" in r.stderr
          and running, r.stderr)
    check("the run holding the directory is unaffected", first.returncode == 0, err1)

    # The README's restart example, as written: the first run leaves a checkpoint (of its last
    # step), and the second continues it from there.
    readme = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "README.md")).read()
    examples = [l.split("#")[0].split() for l in readme.splitlines()
                if l.startswith("strata wave --config examples/wave/quick.json --out-dir run1")]
    check("the README has the restart example", len(examples) == 2 and "--restart" in examples[1], str(examples))
    repo = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    reports = []
    for words in examples:
        words = [os.path.join(repo, w) if w.startswith("examples/") else w for w in words]
        r = run_strata(*words[1:], "--device", "cpu", "--quiet", "--progress", "off", cwd=tmp)
        check("README: " + " ".join(words[1:]), r.returncode == 0, r.stderr)
        path = os.path.join(tmp, "run1", "report.json")
        reports.append(json.load(open(path)) if os.path.exists(path) else {})
    if len(reports) == 2:
        check("the README's restart continues the first run", reports[1].get("first_step") == reports[0].get("last_step")
              and reports[1].get("steps_run", 0) > 0, str([(x.get("first_step"), x.get("last_step")) for x in reports]))

    # --print-config: every key, parses once comments are stripped, and runs as it stands.
    r = subprocess.run([STRATA, "wave", "--print-config"], capture_output=True, text=True)
    text = re.sub(r"//[^\n]*", "", r.stdout)
    try:
        doc = json.loads(text)
        check("--print-config is JSON with comments", True)
        for k in ["grid", "model", "time", "scheme", "sources", "receivers", "boundary", "output", "device"]:
            check("--print-config has " + k, k in doc)
    except ValueError as e:
        check("--print-config is JSON with comments", False, str(e))

finish()
