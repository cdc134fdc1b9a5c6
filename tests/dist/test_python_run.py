#!/usr/bin/env python3
"""strata.run (the CLI's drivers from Python) under `mpirun -np N python`: every rank calls
strata.run.apply / poisson / wave / gradient / migrate with the same arguments and the job
writes the same bytes as the CLI (`strata apply` and `strata wave` in one process; `mpirun
-np N strata poisson`, the same distributed solver), a refusal raises the same ValueError on
every rank and writes nothing, a script goes on after one (several runs a job), and N = 1
without mpirun is a one-process run. Usage:
test_python_run.py PYTHONPATH STRATA MPIEXEC NP"""
import json
import os
import struct
import subprocess
import sys
import tempfile

pkg, strata, mpiexec, np_ = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
failures = []
env = dict(os.environ, PYTHONPATH=pkg + os.pathsep + os.environ.get("PYTHONPATH", ""))

WORKER = r'''
import sys, strata.run
d, case = sys.argv[1], sys.argv[2]
job = strata.run.job()
if case == "apply":
    r = strata.run.apply(d + "/u.npy", d + "/py_apply.npy", stencil="star2", bc="periodic",
                         steps=3, update="relax:0.05", device="cpu")
    assert r["steps"] == 3 and r["shape"] == (23, 17, 19), r
    assert r["report"]["stencil"].startswith("star"), r["report"]
elif case == "poisson":
    r = strata.run.poisson((31, 29, 27), solver="mgcg", precision="f64", rtol=1e-10,
                           out=d + "/py_phi.npy", device="cpu", json=d + "/py_report.json")
    assert r["converged"] and r["error_max"] < 1e-2, r
elif case == "wave":
    import json, strata.wave
    cfg = json.load(open(d + "/wave.json"))
    # A grid the shape cannot be split by (3 ranks along x on 1..4 ranks, or too many) is
    # refused on every rank alike, with nothing written; the job goes on with the next run.
    try:
        strata.run.wave(cfg, d + "/py_wave_refused", grid="1x1x%d" % (job["size"] + 1))
        sys.exit("rank %d: a process grid of more boxes than ranks was not refused" % job["rank"])
    except ValueError as e:
        with open("%s/wave_refused.%d" % (d, job["rank"]), "w") as f:
            f.write(str(e))
    r = strata.run.wave(cfg, d + "/py_wave", on_warning=lambda w: None)
    assert r["root"] == (job["rank"] == 0), r
    if r["root"]:
        assert r["result"].seismogram.shape[1] == 12 and r["report"].get("ranks", 1) == job["size"], r
    else:
        assert r["result"] is None, r
    # strata.wave.run with out_dir is the same run (a second one in this job)
    res = strata.wave.run(cfg, out_dir=d + "/py_wave2", on_warning=lambda w: None)
    assert (res is not None) == (job["rank"] == 0), res
elif case == "imaging":
    # The shots dealt over the ranks, summed in the file's order: the CLI's bytes (one process).
    r = strata.run.gradient(d + "/img.json", d + "/obs", d + "/py_grad.npy", shots=d + "/shots.json",
                            overrides=['model.layers.1.velocity=2000'], json=d + "/py_grad.json")
    assert r["root"] == (job["rank"] == 0), r
    if r["root"]:
        assert [s["rank"] for s in r["report"]["shots"]] == [i % job["size"] for i in range(3)], r
    # A shot without data: the same ValueError on every rank, nothing written; the job goes on.
    try:
        strata.run.migrate(d + "/img.json", d + "/obs", d + "/py_refused.npy", shots=d + "/holey.json")
        sys.exit("rank %d: a shot without data was not refused" % job["rank"])
    except ValueError as e:
        with open("%s/imaging_refused.%d" % (d, job["rank"]), "w") as f:
            f.write(str(e))
    r = strata.run.migrate(d + "/img.json", d + "/obs", d + "/py_image.sgy", shots=d + "/shots.json")
elif case == "bad_setting":
    # STRATA_GPU_TRANSPORT=bogus in every rank's environment: refused at the end of the run's
    # checks, on every rank alike, before anything is written.
    try:
        strata.run.apply(d + "/u.npy", d + "/py_bad_setting.npy", device="cpu")
    except ValueError as e:
        with open("%s/bad_setting.%d" % (d, job["rank"]), "w") as f:
            f.write(str(e))
        sys.exit(0)
    sys.exit("rank %d: no ValueError" % job["rank"])
elif case == "refused":
    try:
        strata.run.apply(d + "/u.npy", d + "/adir", device="cpu")  # a directory
    except ValueError as e:
        # A file a rank: the ranks' stdout lines reach mpirun's interleaved.
        with open("%s/refused.%d" % (d, job["rank"]), "w") as f:
            f.write(str(e))
        sys.exit(0)
    sys.exit("rank %d: no ValueError" % job["rank"])
print("rank %d of %d ran" % (job["rank"], job["size"]), flush=True)
'''


def write_npy(path, shape, values):
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d, %d), }" % shape
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%dd" % len(values), *values))


def python_ranks(d, case, **more_env):
    cmd = [sys.executable, os.path.join(d, "worker.py"), d, case]
    if np_ > 1:
        cmd = [mpiexec, "-np", str(np_)] + cmd
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=dict(env, **more_env))


def same_bytes(what, a, b):
    if not (os.path.exists(a) and os.path.exists(b)):
        failures.append("%s: missing output (%s %s)" % (what, os.path.exists(a), os.path.exists(b)))
    elif open(a, "rb").read() != open(b, "rb").read():
        failures.append("%s: strata.run on %d rank(s) differs from the CLI" % (what, np_))


with tempfile.TemporaryDirectory() as d:
    with open(os.path.join(d, "worker.py"), "w") as f:
        f.write(WORKER)
    shape = (23, 17, 19)
    write_npy(os.path.join(d, "u.npy"), shape,
              [((i * 7919) % 1013) / 101.3 - 5.0 for i in range(shape[0] * shape[1] * shape[2])])

    r = python_ranks(d, "apply")
    if r.returncode:
        failures.append("apply: exit %d: %s %s" % (r.returncode, r.stdout, r.stderr))
    cli = subprocess.run([strata, "apply", "--device", "cpu", "--in", os.path.join(d, "u.npy"), "--out",
                          os.path.join(d, "cli_apply.npy"), "--stencil", "star", "--radius", "2", "--bc",
                          "periodic", "--steps", "3", "--update", "relax:0.05"],
                         capture_output=True, text=True, timeout=300)
    if cli.returncode:
        failures.append("cli apply: " + cli.stderr)
    same_bytes("apply", os.path.join(d, "cli_apply.npy"), os.path.join(d, "py_apply.npy"))

    r = python_ranks(d, "poisson")
    if r.returncode:
        failures.append("poisson: exit %d: %s %s" % (r.returncode, r.stdout, r.stderr))
    cli_cmd = [strata, "poisson", "--device", "cpu", "--shape", "27,29,31", "--solver", "mgcg",
               "--precision", "f64", "--rtol", "1e-10", "--quiet", "--out", os.path.join(d, "cli_phi.npy")]
    if np_ > 1:
        cli_cmd = [mpiexec, "-np", str(np_)] + cli_cmd
    cli = subprocess.run(cli_cmd, capture_output=True, text=True, timeout=300)
    if cli.returncode:
        failures.append("cli poisson: " + cli.stderr)
    same_bytes("poisson", os.path.join(d, "cli_phi.npy"), os.path.join(d, "py_phi.npy"))
    if not os.path.exists(os.path.join(d, "py_report.json")):
        failures.append("poisson: no JSON report written")

    wave_cfg = {"grid": {"shape": [24, 22, 28], "spacing": 5.0},
                "model": {"type": "layered", "layers": [{"top": 0, "velocity": 1500},
                                                        {"top": 70, "velocity": 2100}]},
                "time": {"steps": 24}, "scheme": {"order": 4, "precision": "f64"},
                "sources": [{"position": [55.0, 52.0, 60.0], "frequency": 30.0}],
                "receivers": {"lines": [{"start": [10.0, 50.0, 20.0], "end": [110.0, 50.0, 20.0],
                                         "count": 12}]},
                "boundary": {"zmin": "free", "pml": {"width": 4}},
                "output": {"snapshots": {"every": 0}, "checkpoint_every": 0}, "device": "cpu"}
    with open(os.path.join(d, "wave.json"), "w") as f:
        json.dump(wave_cfg, f)
    r = python_ranks(d, "wave")
    if r.returncode:
        failures.append("wave: exit %d: %s %s" % (r.returncode, r.stdout, r.stderr))
    said = [open(os.path.join(d, "wave_refused.%d" % k)).read()
            for k in range(np_) if os.path.exists(os.path.join(d, "wave_refused.%d" % k))]
    if len(said) != np_ or len(set(said)) != 1 or "grid" not in said[0]:
        failures.append("wave: a refused grid must raise the same ValueError on every rank: %r" % said)
    if os.path.exists(os.path.join(d, "py_wave_refused")) and os.listdir(os.path.join(d, "py_wave_refused")):
        failures.append("wave: the refused run wrote files")
    cli = subprocess.run([strata, "wave", "--config", os.path.join(d, "wave.json"), "--out-dir",
                          os.path.join(d, "cli_wave"), "--progress", "off"],
                         capture_output=True, text=True, timeout=300)
    if cli.returncode:
        failures.append("cli wave: " + cli.stderr)
    for out in ("py_wave", "py_wave2"):
        for name in ("seismogram.npy", "receivers.npy"):
            same_bytes("wave %s/%s" % (out, name), os.path.join(d, "cli_wave", name),
                       os.path.join(d, out, name))

    img_cfg = dict(wave_cfg, receivers=dict(wave_cfg["receivers"], every=1), time={"steps": 40})
    with open(os.path.join(d, "img.json"), "w") as f:
        json.dump(img_cfg, f)
    shots = [{"position": [35.0 + 20.0 * i, 52.0, 60.0]} for i in range(3)]
    with open(os.path.join(d, "shots.json"), "w") as f:
        json.dump(shots, f)
    with open(os.path.join(d, "holey.json"), "w") as f:
        json.dump(shots + [{"name": "ghost", "position": [50.0, 52.0, 60.0]}], f)
    cli = subprocess.run([strata, "wave", "--config", os.path.join(d, "img.json"), "--shots",
                          os.path.join(d, "shots.json"), "--out-dir", os.path.join(d, "obs"), "--progress", "off"],
                         capture_output=True, text=True, timeout=300)
    if cli.returncode:
        failures.append("cli wave --shots: " + cli.stderr)
    r = python_ranks(d, "imaging")
    if r.returncode:
        failures.append("imaging: exit %d: %s %s" % (r.returncode, r.stdout, r.stderr))
    cli = subprocess.run([strata, "gradient", "--config", os.path.join(d, "img.json"), "--shots",
                          os.path.join(d, "shots.json"), "--data", os.path.join(d, "obs"), "--set",
                          "model.layers.1.velocity=2000", "--gradient", os.path.join(d, "cli_grad.npy")],
                         capture_output=True, text=True, timeout=300)
    if cli.returncode:
        failures.append("cli gradient --shots: " + cli.stderr)
    same_bytes("imaging gradient", os.path.join(d, "cli_grad.npy"), os.path.join(d, "py_grad.npy"))
    said = [open(os.path.join(d, "imaging_refused.%d" % k)).read()
            for k in range(np_) if os.path.exists(os.path.join(d, "imaging_refused.%d" % k))]
    if len(said) != np_ or len(set(said)) != 1 or "ghost" not in said[0]:
        failures.append("imaging: a shot without data must raise the same ValueError on every rank: %r" % said)
    if os.path.exists(os.path.join(d, "py_refused.npy")):
        failures.append("imaging: the refused run wrote its image")
    if not os.path.exists(os.path.join(d, "py_image.sgy")):
        failures.append("imaging: the run after the refusal wrote no image")

    os.mkdir(os.path.join(d, "adir"))
    r = python_ranks(d, "refused")
    said = []
    for rank in range(np_):
        p = os.path.join(d, "refused.%d" % rank)
        if os.path.exists(p):
            said.append(open(p).read())
    if r.returncode or len(said) != np_ or len(set(said)) != 1 or "adir" not in said[0]:
        failures.append("refused: every rank must raise the same ValueError naming the path: exit %d, %r %s"
                        % (r.returncode, said, r.stderr))
    if os.listdir(os.path.join(d, "adir")):
        failures.append("refused: something was written")

    if np_ > 1:
        r = python_ranks(d, "bad_setting", STRATA_GPU_TRANSPORT="bogus")
        said = [open(os.path.join(d, "bad_setting.%d" % k)).read()
                for k in range(np_) if os.path.exists(os.path.join(d, "bad_setting.%d" % k))]
        if (r.returncode or len(said) != np_ or len(set(said)) != 1
                or "STRATA_GPU_TRANSPORT=bogus: expected auto, ipc or nccl" not in said[0]):
            failures.append("bad setting: every rank must raise the same ValueError naming it: exit %d, %r %s"
                            % (r.returncode, said, r.stderr))
        if os.path.exists(os.path.join(d, "py_bad_setting.npy")):
            failures.append("bad setting: the refused run wrote its output")

for f in failures:
    print("FAIL", f)
print("%d failure(s)" % len(failures) if failures else "ok: strata.run on %d rank(s) matches the CLI" % np_)
sys.exit(1 if failures else 0)
