#!/usr/bin/env python3
"""`strata wave --shots` under mpirun: shot i runs on rank i % ranks, and every shot's
seismogram is byte-identical to a plain one-process `strata wave` run with that shot's
sources; rank 0's manifest lists each shot with its rank. A shot that fails validation is
reported once, by one rank, and nothing is written. Tiny grid on --device cpu (CI has 2 cores).
Usage: test_wave_shots.py PATH_TO_STRATA MPIEXEC NP   (MPIEXEC "" : no launcher, NP must be 1)"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clitest import STRATA, check, finish, run_strata  # noqa: E402
from tiny_wave import TINY, launcher  # noqa: E402

MPIEXEC, NP = sys.argv[2], int(sys.argv[3])

SHOTS = [{"position": [20.0 + 10.0 * i, 35.0, 25.0 + 3.0 * i]} for i in range(4)] + [
    {"name": "pair", "sources": [{"position": [30.0, 30.0, 20.0], "frequency": 15.0},
                                 {"position": [60.0, 40.0, 20.0], "amplitude": -1.5}]}]


def mpirun(*args):
    return subprocess.run([*launcher(MPIEXEC, NP), STRATA, *args], capture_output=True, text=True, timeout=300)


with tempfile.TemporaryDirectory() as tmp:
    cfg = os.path.join(tmp, "tiny.json")
    with open(cfg, "w") as f:
        json.dump(TINY, f)
    shots_file = os.path.join(tmp, "shots.json")
    with open(shots_file, "w") as f:
        json.dump(SHOTS, f)
    out = os.path.join(tmp, "out")

    r = mpirun("wave", "--config", cfg, "--shots", shots_file, "--out-dir", out, "--progress", "off")
    check(f"{NP} ranks: shots run exits 0", r.returncode == 0, r.stderr)
    with open(os.path.join(out, "manifest.json")) as f:
        manifest = json.load(f)
    names = [f"shot{i:04d}" for i in range(4)] + ["pair"]
    check("manifest lists every shot in order", [s["name"] for s in manifest["shots"]] == names, str(manifest["shots"]))
    check("manifest: the rank count", manifest["ranks"] == NP, str(manifest["ranks"]))
    ranks = [s["rank"] for s in manifest["shots"]]
    check("shot i ran on rank i % ranks", ranks == [i % NP for i in range(len(names))], str(ranks))
    for line in r.stdout.splitlines():  # each rank says which shots it ran
        if line.startswith("strata wave: shot ") and NP > 1:
            name = line.split(" ")[3]
            check(f"{name} reported by its rank", f"rank {names.index(name) % NP})" in line, line)

    for i, name in enumerate(names):
        single = os.path.join(tmp, "single_" + name)
        sources = manifest["shots"][i]["sources"]
        s = run_strata("wave", "--config", cfg, "--out-dir", single, "--quiet", "--progress", "off",
                       "--set", "sources=" + json.dumps(sources))
        check(f"plain run of {name} exits 0", s.returncode == 0, s.stderr)
        for f in ("seismogram.npy", "receivers.npy"):
            with open(os.path.join(single, f), "rb") as a, open(os.path.join(out, name, f), "rb") as b:
                check(f"{name}/{f} byte-identical to the plain run's", a.read() == b.read())
        with open(os.path.join(single, "report.json")) as a:
            check(f"{name}: the plain run's digest", json.load(a)["digest"] == manifest["shots"][i]["digest"])

    # A shot outside the grid: refused on every rank before any work, said once.
    bad = os.path.join(tmp, "bad.json")
    with open(bad, "w") as f:
        json.dump(SHOTS + [{"position": [20.0, 35.0, 900.0]}], f)
    out_bad = os.path.join(tmp, "out_bad")
    r = mpirun("wave", "--config", cfg, "--shots", bad, "--out-dir", out_bad)
    check("bad shot exits 1", r.returncode != 0, f"rc={r.returncode}")
    check("bad shot said once", r.stderr.count("is outside the grid") == 1, r.stderr)
    check("bad shot names the entry", "key '5.position'" in r.stderr, r.stderr)
    check("bad shot writes nothing", not os.path.exists(out_bad), str(os.listdir(tmp)))

    # --overwrite with a shot's own config.json as --config (the last shot's, on the last rank):
    # refused on every rank before any shot runs, said once, every file left as it was.
    def snapshot(d):
        return {os.path.relpath(os.path.join(p, n), d): open(os.path.join(p, n), "rb").read()
                for p, _, files in os.walk(d) for n in files if n != ".strata.lock"}
    before = snapshot(out)
    own = os.path.join(out, f"shot{3:04d}", "config.json")
    r = mpirun("wave", "--config", own, "--shots", shots_file, "--out-dir", out, "--overwrite", "--progress", "off")
    check("--overwrite of a shot's --config exits 1", r.returncode != 0, f"rc={r.returncode}")
    check("  said once", r.stderr.count("is the previous run's config.json") == 1, r.stderr)
    check("  no shot ran", "strata wave: shot " not in r.stdout, r.stdout)
    check("  every file left as it was", snapshot(out) == before, str(sorted(snapshot(out))))

finish()
