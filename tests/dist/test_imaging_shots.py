#!/usr/bin/env python3
"""`strata gradient` / `strata migrate --shots` under mpirun: shot i runs on rank i % ranks and
rank 0 sums the shots' gradients, images and illuminations in the shots file's order, so the
outputs are the same bits as the one-process runs of each shot added in that order (and the
same on any number of ranks); the misfit is the sum of the shots' misfits in that order.
Refused on every rank before any work, said once, nothing written: --predicted with --shots,
a shot whose data are missing, an output over a shot's data file, and (several ranks) one
shot without --shots. Tiny grid on
--device cpu (CI has 2 cores).
Usage: test_imaging_shots.py PATH_TO_STRATA MPIEXEC NP   (MPIEXEC "" : no launcher, NP must be 1)"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clitest import STRATA, check, finish, run_strata  # noqa: E402
from tiny_wave import launcher, tiny  # noqa: E402

MPIEXEC, NP = sys.argv[2], int(sys.argv[3])

TINY = tiny(time={"steps": 120}, sources=[{"position": [45.0, 35.0, 30.0], "frequency": 40.0}],
            receivers={"every": 1, "lines": [{"start": [15.0, 35.0, 12.0], "end": [75.0, 35.0, 12.0], "count": 6}]})
SHOTS = [{"position": [25.0 + 12.0 * i, 35.0, 25.0 + 2.0 * i]} for i in range(4)]
SHOTS[2] = {"name": "middle", **SHOTS[2]}
NAMES = ["shot0000", "shot0001", "middle", "shot0003"]
MODEL = ["--set", 'model.type="constant"', "--set", "model.velocity=1650"]  # the background


def mpirun(*args):
    return subprocess.run([*launcher(MPIEXEC, NP), STRATA, *args], capture_output=True, text=True, timeout=300)


def load(path):
    return np.load(path)


with tempfile.TemporaryDirectory() as tmp:
    cfg = os.path.join(tmp, "tiny.json")
    with open(cfg, "w") as f:
        json.dump(TINY, f)
    shots_file = os.path.join(tmp, "shots.json")
    with open(shots_file, "w") as f:
        json.dump(SHOTS, f)
    obs = os.path.join(tmp, "obs")
    r = run_strata("wave", "--config", cfg, "--shots", shots_file, "--out-dir", obs, "--progress", "off")
    check("the observed shots are made", r.returncode == 0, r.stderr)

    # Each shot alone, in one process; then the sums in the file's order from zero.
    grad = np.zeros((16, 14, 18))
    image = np.zeros((16, 14, 18))
    light = np.zeros((16, 14, 18))
    misfit = 0.0
    for i, name in enumerate(NAMES):
        one = ["--config", cfg, "--data", os.path.join(obs, name, "seismogram.npy"), *MODEL,
               "--set", "sources=" + json.dumps([{**TINY["sources"][0], "position": SHOTS[i]["position"]}])]
        g, j = os.path.join(tmp, f"g{i}.npy"), os.path.join(tmp, f"g{i}.json")
        s = run_strata("gradient", *one, "--gradient", g, "--json", j)
        check(f"{name} alone: gradient exits 0", s.returncode == 0, s.stderr)
        with open(j) as f:
            misfit += json.load(f)["misfit"]
        grad += load(g)
        im, il = os.path.join(tmp, f"i{i}.npy"), os.path.join(tmp, f"l{i}.npy")
        s = run_strata("migrate", *one, "--image", im, "--illumination", il)
        check(f"{name} alone: migrate exits 0", s.returncode == 0, s.stderr)
        image += load(im)
        light += load(il)
    check("the shots' misfits are not zero", misfit > 0, str(misfit))

    out = os.path.join(tmp, f"np{NP}")
    os.mkdir(out)
    common = ["--config", cfg, "--shots", shots_file, "--data", obs, *MODEL]
    r = mpirun("gradient", *common, "--gradient", os.path.join(out, "g.npy"), "--json", os.path.join(out, "g.json"))
    check(f"{NP} ranks: gradient --shots exits 0", r.returncode == 0, r.stderr)
    check("the summary is printed once", r.stdout.count("strata gradient: misfit") == 1, r.stdout)
    g = load(os.path.join(out, "g.npy"))
    check("the gradient is the shots' sum in order, bit for bit", np.array_equal(g, grad),
          f"max diff {np.abs(g - grad).max():.3e}")
    check("the gradient is not zero", np.abs(g).max() > 0)
    with open(os.path.join(out, "g.json")) as f:
        rep = json.load(f)
    check("the misfit is the shots' sum in order", rep["misfit"] == misfit, f"{rep['misfit']!r} vs {misfit!r}")
    check("the report lists the shots in order", [s["name"] for s in rep["shots"]] == NAMES, str(rep["shots"]))
    check("shot i ran on rank i % ranks", [s["rank"] for s in rep["shots"]] == [i % NP for i in range(4)],
          str(rep["shots"]))
    check("the report's rank count", rep["ranks"] == NP, str(rep.get("ranks")))

    r = mpirun("migrate", *common, "--image", os.path.join(out, "im.npy"), "--compensated",
               os.path.join(out, "c.npy"), "--illumination", os.path.join(out, "il.npy"))
    check(f"{NP} ranks: migrate --shots exits 0", r.returncode == 0, r.stderr)
    check("the stacked image, bit for bit", np.array_equal(load(os.path.join(out, "im.npy")), image))
    check("the stacked illumination, bit for bit", np.array_equal(load(os.path.join(out, "il.npy")), light))
    comp = image / (light + 1e-3 * light.max())
    check("the stack's compensated image is its image over its illumination",
          np.array_equal(load(os.path.join(out, "c.npy")), comp))

    # Refusals: on every rank before any work, said once, nothing written.
    def refused(what, args, needle, written):
        r = mpirun(*args)
        check(f"{what}: exits 1", r.returncode == 1, f"rc={r.returncode} {r.stderr}")
        check(f"{what}: said once", r.stderr.count(needle) == 1, r.stderr)
        check(f"{what}: nothing written", not os.path.exists(written), written)

    p = os.path.join(out, "p.npy")
    refused("--predicted with --shots", ["gradient", *common, "--gradient", os.path.join(out, "g2.npy"),
                                         "--predicted", p], "--predicted writes one shot's data", p)
    holey = os.path.join(tmp, "holey.json")
    with open(holey, "w") as f:
        json.dump(SHOTS + [{"name": "ghost", "position": [40.0, 35.0, 30.0]}], f)
    g2 = os.path.join(out, "g3.npy")
    refused("a shot without data", ["gradient", "--config", cfg, "--shots", holey, "--data", obs, *MODEL,
                                    "--gradient", g2], "shot ghost has neither", g2)
    one_file = os.path.join(obs, "middle", "seismogram.npy")
    refused("--data a file, not the shots' directory", ["gradient", "--config", cfg, "--shots", shots_file, "--data",
                                                        one_file, *MODEL, "--gradient", g2],
            "is not a directory: with --shots it is the directory strata wave --shots wrote", g2)
    # An output over one shot's data file (an input, as --data is for one shot): refused on
    # every rank, the data left as they were.
    victim = os.path.join(obs, "middle", "seismogram.npy")
    victim_bytes = open(victim, "rb").read()
    r = mpirun("gradient", "--config", cfg, "--shots", shots_file, "--data", obs, *MODEL, "--gradient", victim)
    needle = "is the --data directory's shot middle file the run reads"
    check("an output over a shot's data: exits 1", r.returncode == 1, f"rc={r.returncode} {r.stderr}")
    check("an output over a shot's data: said once", r.stderr.count(needle) == 1, r.stderr)
    check("an output over a shot's data: the data left as they were", open(victim, "rb").read() == victim_bytes)
    # Each shot's data with one value whose half square is most of a double's range: each
    # shot's misfit is finite, their sum is not. Refused once the shots are summed (no rank
    # can see the others' data before), said once, nothing written; it was reported as inf
    # (null in the report) beside a gradient.
    wide = os.path.join(tmp, "wide")
    for name in NAMES:
        os.makedirs(os.path.join(wide, name))
        seis = np.load(os.path.join(obs, name, "seismogram.npy")).astype(np.float64)
        seis[40, 2] = 1.2e154
        np.save(os.path.join(wide, name, "seismogram.npy"), seis)
    g5 = os.path.join(out, "g5.npy")
    r = mpirun("gradient", "--config", cfg, "--shots", shots_file, "--data", wide, *MODEL, "--gradient", g5,
               "--json", os.path.join(out, "g5.json"))
    needle = "summed over 4 shots whose own misfits are finite: their sum overflows a double"
    check("a misfit summed beyond a double: exits non-zero", r.returncode != 0, f"rc={r.returncode} {r.stderr}")
    check("a misfit summed beyond a double: said once", r.stderr.count(needle) == 1, r.stderr)
    check("a misfit summed beyond a double: nothing written",
          not os.path.exists(g5) and not os.path.exists(os.path.join(out, "g5.json")))
    if NP > 1:
        g4 = os.path.join(out, "g4.npy")
        refused("one shot on several ranks", ["gradient", "--config", cfg, "--data",
                                              os.path.join(obs, "shot0000", "seismogram.npy"), *MODEL,
                                              "--gradient", g4], "one shot runs in one process", g4)

finish()
