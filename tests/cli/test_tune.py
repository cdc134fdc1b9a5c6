#!/usr/bin/env python3
"""Launch-shape tuning from the command line: where `strata info` says the cache is
(STRATA_TUNE_CACHE, XDG_CACHE_HOME, HOME), a corrupt or foreign cache ignored with a note and
left as it is, a bad STRATA_TUNE or --tune refused naming the values allowed, `strata tune`'s
refusals; on a GPU, `strata tune` on one family prints its table, writes its JSON and the
cache, and `strata info`, `strata bench` and a verb's --json report then say the shape came
from the cache.
Usage: test_tune.py PATH_TO_STRATA"""
import json
import os
import subprocess
import tempfile

from clitest import STRATA, check, finish

CLEARED = ("STRATA_TUNE", "STRATA_TUNE_CACHE", "XDG_CACHE_HOME")


def strata(*args, **env):
    e = {k: v for k, v in os.environ.items() if k not in CLEARED}
    e.update(env)
    return subprocess.run([STRATA, *args], capture_output=True, text=True, timeout=600, env=e)


with tempfile.TemporaryDirectory() as tmp:
    home = os.path.join(tmp, "home")
    os.makedirs(home)
    r = strata("info", HOME=home)
    has_gpu = "device 0:" in r.stdout
    check("info exits 0", r.returncode == 0, r.stderr)
    check("info names the mode", "launch shapes: STRATA_TUNE=auto" in r.stdout, r.stdout)
    check("the cache is under HOME",
          os.path.join(home, ".cache/strata/tuning.json") + " (not written yet)" in r.stdout, r.stdout)
    xdg = os.path.join(tmp, "xdg")
    r = strata("info", HOME=home, XDG_CACHE_HOME=xdg)
    check("XDG_CACHE_HOME moves it", os.path.join(xdg, "strata/tuning.json") in r.stdout, r.stdout)
    r = strata("info", HOME=home, XDG_CACHE_HOME="relative")
    check("a relative XDG_CACHE_HOME is ignored", os.path.join(home, ".cache/strata/tuning.json") in r.stdout,
          r.stdout)
    r = strata("info", HOME=home, STRATA_TUNE="off")
    check("STRATA_TUNE=off is shown", "STRATA_TUNE=off" in r.stdout, r.stdout)

    cache = os.path.join(tmp, "tuning.json")
    for text, why in (("{ not json", "not JSON"), ('{"somebody": "else"}', "not a strata tuning cache"),
                      ('{"format": "strata-tuning", "version": 99, "entries": []}', "format version 99")):
        with open(cache, "w") as f:
            f.write(text)
        r = strata("info", STRATA_TUNE_CACHE=cache)
        check(f"{why}: info still exits 0", r.returncode == 0, r.stderr)
        check(f"{why}: said and ignored", "(ignored)" in r.stdout and why in r.stdout
              and "left as it is" in r.stdout, r.stdout)
        r = strata("bench", "--kernel", "7pt", "--size", "8", "--reps", "1", "--precision", "f32",
                   STRATA_TUNE_CACHE=cache)
        check(f"{why}: a benchmark runs", r.returncode == 0, r.stderr)
        check(f"{why}: the file is left as it is", open(cache).read() == text)

    for value in ("fast", "OFF", "1"):
        r = strata("info", STRATA_TUNE=value)
        check(f"STRATA_TUNE={value} refused", r.returncode == 1 and f"STRATA_TUNE='{value}'" in r.stderr
              and "allowed auto" in r.stderr and "off" in r.stderr, r.stderr)
        check(f"STRATA_TUNE={value}: nothing printed first", r.stdout == "", r.stdout)
    r = strata("bench", "--kernel", "7pt", "--size", "8", "--reps", "1", "--tune", "fast")
    check("--tune fast refused", r.returncode == 1 and "--tune='fast'" in r.stderr, r.stderr)
    r = strata("bench", "--kernel", "7pt", "--size", "8", "--reps", "1", "--device", "cpu", STRATA_TUNE="fast")
    check("a CPU run does not read STRATA_TUNE", r.returncode == 0, r.stderr)

    out = os.path.join(tmp, "tune.json")
    r = strata("tune", "--kernel", "9pt", "--json", out)
    check("tune --kernel 9pt refused", r.returncode == 1 and "--kernel '9pt': allowed" in r.stderr
          and "7pt.f32" in r.stderr, r.stderr)
    r = strata("tune", "--size", "8")
    check("tune --size 8 refused", r.returncode != 0 and "--size" in r.stderr, r.stderr)
    check("a refused tune writes nothing", not os.path.exists(out))
    if not has_gpu:
        r = strata("tune", "--json", out, STRATA_TUNE_CACHE=os.path.join(tmp, "new.json"))
        # The words every GPU-only refusal uses, whatever the reason (no CUDA in the build, no
        # device, an old driver): README's test and users read them.
        check("tune without a GPU refused", r.returncode == 1 and "needs a GPU" in r.stderr
              and "no GPU can be used" in r.stderr, r.stderr)
        check("... writing nothing", not os.path.exists(out) and not os.path.exists(os.path.join(tmp, "new.json")))
    else:
        fresh = os.path.join(tmp, "fresh", "tuning.json")
        r = strata("tune", "--kernel", "7pt", "--precision", "f32", "--size", "128", "--json", out,
                   STRATA_TUNE_CACHE=fresh)
        check("tune 7pt f32 runs", r.returncode == 0, r.stderr)
        check("its table marks the choice", "7pt.f32" in r.stdout and "chosen" in r.stdout, r.stdout)
        doc = json.load(open(out))
        fams = doc["families"]
        check("the JSON has the one family", [f["family"] for f in fams] == ["7pt.f32"], str(fams))
        check("every candidate timed", len(fams[0]["candidates"]) >= 3
              and all(c["median_ms"] > 0 and "refused" not in c for c in fams[0]["candidates"]), str(fams))
        check("no shipped row from one family", doc["shipped_row"] == "", doc["shipped_row"])
        saved = json.load(open(fresh))
        check("the cache is written", saved["format"] == "strata-tuning" and
              saved["entries"][0]["families"]["7pt.f32"]["variant"] == fams[0]["chosen"], str(saved))
        r = strata("info", STRATA_TUNE_CACHE=fresh)
        check("info counts the cached family", "1 of 18 families from the cache" in r.stdout, r.stdout)
        bj = os.path.join(tmp, "bench.json")
        r = strata("bench", "--kernel", "7pt", "--precision", "f32", "--size", "128", "--reps", "3",
                   "--json", bj, STRATA_TUNE_CACHE=fresh)
        check("bench runs with the cache", r.returncode == 0, r.stderr)
        rows = [x for x in json.load(open(bj))["results"] if x["kernel"] == "7pt"]
        check("bench's 7pt row ran the cached shape", rows and rows[0]["variant"] == fams[0]["chosen"]
              and rows[0]["extra"]["choice"] == "cache", str(rows))
        pj = os.path.join(tmp, "poisson.json")
        r = strata("poisson", "--n", "31", "--solver", "cg", "--precision", "f32", "--device", "cuda",
                   "--rtol", "1e-4", "--json", pj, STRATA_TUNE_CACHE=fresh)
        shapes = json.load(open(pj)).get("launch_shapes", {}) if r.returncode == 0 else {}
        check("a verb's report says which shape its stencil took", any(
            c["family"] == "7pt.f32" and c["source"] == "cache" for c in shapes.get("choices", [])), r.stderr + str(shapes))
        r = strata("bench", "--kernel", "7pt", "--precision", "f32", "--size", "128", "--reps", "3",
                   "--tune", "off", "--json", bj, STRATA_TUNE_CACHE=fresh)
        rows = [x for x in json.load(open(bj))["results"] if x["kernel"] == "7pt"]
        check("--tune off does not read the cache", rows and rows[0]["extra"]["choice"] in
              ("shipped", "nearest", "policy"), str(rows))
finish()
