#!/usr/bin/env python3
"""`strata wave --shots` in one process: a bad shots file (or option) exits non-zero with a
message that names what is wrong and writes nothing; a good one runs every shot in order
into OUT_DIR/NAME, each seismogram byte-identical to a plain `strata wave` run with that
shot's sources, and writes manifest.json listing them. The MPI runs are
tests/dist/test_wave_shots.py. Standard library only.
Usage: test_wave_shots.py PATH_TO_STRATA"""
import json
import os
import tempfile

from clitest import check, finish, run_strata

TINY = {
    "grid": {"shape": [20, 16, 18], "spacing": 5.0},
    "model": {"type": "layered", "layers": [{"top": 0, "velocity": 1500}, {"top": 40, "velocity": 2000}]},
    "time": {"steps": 24},
    "scheme": {"order": 4, "precision": "f32"},
    "sources": [{"position": [50.0, 40.0, 30.0], "frequency": 20.0}],
    "receivers": {"every": 2, "lines": [{"start": [15.0, 40.0, 10.0], "end": [85.0, 40.0, 10.0], "count": 8}]},
    "boundary": {"pml": {"width": 4}},
    "device": "cpu",
}
SHOTS = [
    {"name": "left", "position": [25.0, 40.0, 30.0]},
    {"position": [60.0, 35.0, 45.0]},
    {"name": "pair", "sources": [{"position": [30.0, 40.0, 25.0], "frequency": 18.0},
                                 {"position": [70.0, 40.0, 25.0], "amplitude": -2.0, "delay": 0.02}]},
]

with tempfile.TemporaryDirectory() as tmp:
    cfg = os.path.join(tmp, "tiny.json")
    with open(cfg, "w") as f:
        json.dump(TINY, f)
    shots_file = os.path.join(tmp, "shots.json")
    out = os.path.join(tmp, "out")

    def wave(*args):
        return run_strata("wave", "--config", cfg, "--progress", "off", *args)

    def refused(name, shots, needle, extra=(), text=None):
        with open(shots_file, "w") as f:
            f.write(text if text is not None else json.dumps(shots))
        r = wave("--shots", shots_file, "--out-dir", out, *extra)
        check(name + " exits 1", r.returncode == 1, f"rc={r.returncode} {r.stderr!r}")
        check(name + " says why", needle.lower() in r.stderr.lower(), repr(r.stderr))
        check(name + " writes nothing", not os.path.exists(out), str(os.listdir(tmp)))

    refused("not a list", {"shots": SHOTS}, "must be a list of shots")
    refused("empty list", [], "the list of shots is empty")
    refused("empty file", None, "is empty; expected a list of shots", text="  \n")
    refused("not JSON", None, "not valid JSON", text="[{\"position\": [1, 2, 3],]")
    refused("unknown key", [{"position": [25, 40, 30], "frequncy": 3}], "unknown key '0.frequncy'")
    refused("unknown source key", [{"sources": [{"position": [25, 40, 30], "freq": 3}]}], "unknown key '0.sources.0.freq'")
    refused("source key out of range", [{"sources": [{"position": [25, 40, 30], "frequency": -3}]}],
            "key '0.sources.0.frequency': must be a number in (0, inf)")
    refused("duplicate names", [{"name": "a", "position": [25, 40, 30]}, {"name": "a", "position": [30, 40, 30]}],
            "shots 0 and 1 are both named \"a\"")
    refused("name clashes with a default name", [{"position": [25, 40, 30]}, {"name": "shot0000", "position": [30, 40, 30]}],
            "both named \"shot0000\"")
    refused("name with a slash", [{"name": "a/b", "position": [25, 40, 30]}], "holds '/'")
    refused("hidden name", [{"name": ".a", "position": [25, 40, 30]}], "starts with '.'")
    refused("the manifest's name", [{"name": "manifest.json", "position": [25, 40, 30]}], "manifest's file name")
    refused("position outside the grid", [{"position": [25, 40, 30]}, {"position": [25, 40, 300]}],
            "key '1.position': [25, 40, 300] is outside the grid: each coordinate must lie in x [2.5, 97.5]")
    refused("source outside the grid", [{"sources": [{"position": [25, 40, 30]}, {"position": [-1, 40, 30]}]}],
            "key '0.sources.1.position': [-1, 40, 30] is outside the grid")
    refused("both position and sources", [{"position": [25, 40, 30], "sources": [{"position": [25, 40, 30]}]}],
            "not both")
    refused("neither position nor sources", [{"name": "x"}], "key '0.position' is required")
    refused("a misspelt position", [{"name": "x", "positon": [25, 40, 30]}],
            "unknown key '0.positon': allowed keys in '0': name, position, sources")
    refused("empty sources", [{"sources": []}], "must hold at least one source")
    refused("position with two configured sources", [{"position": [25, 40, 30]}],
            "the configuration has 2 sources", ["--set", "sources.1={\"position\": [40, 40, 30]}"])
    refused("position with no configured source", [{"position": [25, 40, 30]}],
            "the configuration has 0 sources", ["--set", "sources=[]"])
    refused("frequency above Nyquist", [{"position": [25, 40, 30]}, {"sources": [{"position": [25, 40, 30], "frequency": 5000}]}],
            "shot 1 (\"shot0001\"): sources.0.frequency = 5000 Hz is above the time step's Nyquist")
    refused("--restart", SHOTS, "with --shots every shot is a run of its own", ["--restart"])
    refused("CFL violation", SHOTS, "stability (CFL) limit", ["--dt", "0.01"])
    r = wave("--shots", os.path.join(tmp, "nope.json"), "--out-dir", out)
    check("missing shots file exits 1", r.returncode == 1 and "cannot read shots file" in r.stderr, repr(r.stderr))
    check("missing shots file writes nothing", not os.path.exists(out))
    os.makedirs(out)
    with open(os.path.join(out, "notes.txt"), "w") as f:
        f.write("mine")
    with open(shots_file, "w") as f:
        json.dump(SHOTS, f)
    r = wave("--shots", shots_file, "--out-dir", out)
    check("a non-empty directory is refused", r.returncode == 1 and "is not empty" in r.stderr, repr(r.stderr))
    r = wave("--shots", shots_file, "--out-dir", out, "--overwrite")
    check("--overwrite keeps a file strata did not write", r.returncode == 1 and "did not write" in r.stderr, repr(r.stderr))
    check("refused runs leave the directory as it was", os.listdir(out) == ["notes.txt"], str(os.listdir(out)))
    os.remove(os.path.join(out, "notes.txt"))

    # A good run: every shot, in order, into its directory.
    r = wave("--shots", shots_file, "--out-dir", out)
    check("shots run exits 0", r.returncode == 0, r.stderr)
    names = ["left", "shot0001", "pair"]
    order = [line.split(" ")[3] for line in r.stdout.splitlines() if line.startswith("strata wave: shot ")]
    check("shots run in list order", order == names, r.stdout)
    check("the directory holds the manifest and one directory per shot",
          sorted(os.listdir(out)) == sorted(names + ["manifest.json", ".strata.lock"]), str(os.listdir(out)))
    with open(os.path.join(out, "manifest.json")) as f:
        manifest = json.load(f)
    check("manifest lists every shot in order", [s["name"] for s in manifest["shots"]] == names, str(manifest["shots"]))
    check("manifest: one rank", manifest["ranks"] == 1 and all(s["rank"] == 0 for s in manifest["shots"]))
    for s in manifest["shots"]:
        files = [os.path.join(out, p) for p in s["files"]]
        check(f"manifest: {s['name']}'s files exist", len(files) >= 4 and all(os.path.isfile(p) for p in files),
              str(s["files"]))
    check("manifest: a position shot keeps the configuration's wavelet",
          manifest["shots"][0]["sources"][0]["frequency"] == 20.0 and manifest["shots"][0]["sources"][0]["position"] == [25.0, 40.0, 30.0],
          str(manifest["shots"][0]["sources"]))

    # Each shot against a plain run with its sources: the same bytes.
    for i, name in enumerate(names):
        sources = manifest["shots"][i]["sources"]
        single = os.path.join(tmp, "single_" + name)
        r = wave("--out-dir", single, "--quiet", "--set", "sources=" + json.dumps(sources))
        check(f"plain run of {name} exits 0", r.returncode == 0, r.stderr)
        for f in ("seismogram.npy", "receivers.npy"):
            with open(os.path.join(single, f), "rb") as a, open(os.path.join(out, name, f), "rb") as b:
                check(f"{name}/{f} is byte-identical to the plain run's", a.read() == b.read())
        with open(os.path.join(single, "report.json")) as a, open(os.path.join(out, name, "report.json")) as b:
            check(f"{name}: the same physics digest", json.load(a)["digest"] == json.load(b)["digest"] == manifest["shots"][i]["digest"])
    with open(os.path.join(out, "left", "seismogram.npy"), "rb") as a, open(os.path.join(out, "pair", "seismogram.npy"), "rb") as b:
        check("different shots give different seismograms", a.read() != b.read())

    # A shot's directory is a plain run's: its config.json runs again as it stands.
    again = os.path.join(tmp, "again")
    r = run_strata("wave", "--config", os.path.join(out, "pair", "config.json"), "--out-dir", again, "--quiet", "--progress", "off")
    with open(os.path.join(again, "seismogram.npy"), "rb") as a, open(os.path.join(out, "pair", "seismogram.npy"), "rb") as b:
        check("a shot's config.json reruns to the same seismogram", r.returncode == 0 and a.read() == b.read(), r.stderr)

    # Again into the same directory: refused without --overwrite, replaced with it.
    r = wave("--shots", shots_file, "--out-dir", out)
    check("a second run into the directory is refused", r.returncode == 1 and "is not empty" in r.stderr, repr(r.stderr))
    # It offers what a shots run takes: --overwrite, not --restart (which --shots refuses).
    check("  and offers --overwrite, not --restart", "--overwrite to run the shots again" in r.stderr
          and "--restart to continue it" not in r.stderr, repr(r.stderr))
    # A shot's directory left behind (here the manifest moved away): the same advice, and no
    # --restart unless the shot can continue (its checkpoint and config.json are there).
    manifest, kept = os.path.join(out, "manifest.json"), os.path.join(os.path.dirname(out), "manifest.kept")
    os.rename(manifest, kept)
    r = wave("--shots", shots_file, "--out-dir", out)
    check("a shot's directory left behind: refused, offering --overwrite and no --restart",
          r.returncode == 1 and "--overwrite to run the shots again" in r.stderr and "--restart" not in r.stderr,
          repr(r.stderr))
    first = os.path.join(out, names[0])
    with open(os.path.join(first, "checkpoint.strata"), "w") as f:
        f.write("a checkpoint's place")
    r = wave("--shots", shots_file, "--out-dir", out)
    os.remove(os.path.join(first, "checkpoint.strata"))
    os.rename(kept, manifest)
    check("  with a checkpoint there, the shot's own --restart is named",
          r.returncode == 1 and os.path.join(first, "config.json") + " --restart" in r.stderr, repr(r.stderr))
    with open(shots_file, "w") as f:
        json.dump(SHOTS[:2], f)
    r = wave("--shots", shots_file, "--out-dir", out, "--overwrite")
    check("--overwrite with a shot less refuses the stale shot's directory",
          r.returncode == 1 and "pair" in r.stderr, repr(r.stderr))
    with open(shots_file, "w") as f:
        json.dump(SHOTS, f)
    r = wave("--shots", shots_file, "--out-dir", out, "--overwrite", "--quiet")
    check("--overwrite replaces the shots", r.returncode == 0 and r.stdout == "", r.stderr + r.stdout)
    check("--overwrite leaves the manifest", os.path.isfile(os.path.join(out, "manifest.json")))

    # A shot's config.json given as --config (by its path or a link) is an input that --overwrite
    # would remove with that shot's files: refused before any shot runs, every file left as it
    # was (the manifest, and the shots before it in the list not rerun); a copy runs.
    def snapshot(d):
        return {os.path.relpath(os.path.join(r, n), d): open(os.path.join(r, n), "rb").read()
                for r, _, names in os.walk(d) for n in names}
    before = snapshot(out)
    link = os.path.join(tmp, "shot-link.json")
    os.symlink(os.path.join(out, "shot0001", "config.json"), link)
    for given in (os.path.join(out, "shot0001", "config.json"), link):
        r = run_strata("wave", "--config", given, "--shots", shots_file, "--out-dir", out, "--overwrite",
                       "--progress", "off")
        check(f"--overwrite refuses to remove its --config, a shot's config.json ({os.path.basename(given)})",
              r.returncode == 1 and "is the previous run's config.json" in r.stderr and r.stdout == "",
              repr(r.stderr + r.stdout))
        check("  and leaves every file as it was", snapshot(out) == before, str(sorted(snapshot(out))))
    copy = os.path.join(tmp, "shot-copy.json")
    with open(copy, "wb") as f:
        f.write(before[os.path.join("shot0001", "config.json")])
    r = run_strata("wave", "--config", copy, "--shots", shots_file, "--out-dir", out, "--overwrite", "--quiet",
                   "--progress", "off")
    check("--overwrite with a copy of a shot's configuration runs", r.returncode == 0, r.stderr)

finish()
