"""strata-lab's contract: list (saying that every experiment needs a GPU), refusals that
name the experiments and write nothing, the report's JSON and picture
(on a GPU: the first experiment at its test sizes), and lab/plot.py on reports of both
kinds (bars, lines) without a GPU. And that the lab is apart from strata: `strata lab ...`
runs the strata-lab beside it (or says where to get it), and the strata binary holds none of
the lab's code and does not link cuBLAS (each checked on strata-lab too, where they are).
Usage: test_lab.py STRATA_LAB_BINARY STRATA_BINARY"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from clitest import check, finish, run_strata as run_lab  # clitest runs argv[1]: strata-lab

HERE = os.path.dirname(os.path.abspath(__file__))
PLOT = os.path.join(HERE, "..", "..", "lab", "plot.py")
STRATA_LAB, STRATA = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])


def run_product(*args):
    return subprocess.run([STRATA, *args], capture_output=True, text=True, timeout=300)


has_gpu = "device 0:" in run_product("info").stdout

listing = run_lab("list")
check("list exits 0", listing.returncode == 0, listing.stderr)
names = [line.split(":")[0].strip() for line in listing.stdout.splitlines()[1:] if ":" in line]
check("list names experiments", len(names) >= 1, listing.stdout)
helped = run_lab("--help")
check("help lists the experiments", all(n in helped.stdout for n in names), helped.stdout)
# Which experiments need a GPU is said where they are listed: every one does.
check("list says they need a GPU", "each needs a GPU" in listing.stdout.splitlines()[0], listing.stdout)
check("help says they need a GPU", "needs a GPU" in helped.stdout, helped.stdout)
if not has_gpu:
    check("list says none can run here", "none of these can run on this machine" in listing.stderr, listing.stderr)

with tempfile.TemporaryDirectory() as d:
    js, png = os.path.join(d, "r.json"), os.path.join(d, "r.png")
    r = run_lab("no-such-lab", "--json", js)
    check("unknown experiment refused", r.returncode != 0 and "no experiment 'no-such-lab'" in r.stderr, r.stderr)
    check("unknown experiment writes nothing", not os.listdir(d), os.listdir(d))
    if len(names) >= 2:
        r = run_lab(names[0], names[1], "--plot", png)
        check("--plot of two experiments refused", r.returncode != 0 and "one experiment" in r.stderr, r.stderr)
    with tempfile.NamedTemporaryFile() as plain:  # a file: no directory can be made under it
        r = run_lab(names[0], "--small", "--json", os.path.join(plain.name, "missing", "r.json"))
    check("unwritable --json refused before any run", r.returncode != 0 and "r.json" in r.stderr, r.stderr)
    if has_gpu:  # a missing directory is created, as for every output
        nested = os.path.join(d, "new", "r.json")
        r = run_lab(names[0], "--small", "--reps", "2", "--json", nested)
        check("--json creates its missing directory", r.returncode == 0 and os.path.exists(nested), r.stderr)
        os.remove(nested)
        os.rmdir(os.path.dirname(nested))
    if not has_gpu:
        r = run_lab(names[0], "--small", "--json", js)
        check("no GPU: refused with the reason", r.returncode != 0 and "needs a GPU" in r.stderr, r.stderr)
        check("no GPU: the refusal names the experiment", f"strata-lab {names[0]} needs a GPU" in r.stderr, r.stderr)
        check("no GPU: no advice that cannot work here", "--device" not in r.stderr and "-DSTRATA" not in r.stderr,
              r.stderr)
        check("no GPU: nothing written", not os.listdir(d), os.listdir(d))
        if len(names) >= 2:
            r = run_lab(names[0], names[1], "--small")
            check("no GPU: a refusal names every experiment asked for",
                  r.returncode != 0 and f"strata-lab {names[0]}, {names[1]} need a GPU" in r.stderr, r.stderr)
    else:
        r = run_lab(names[0], "--small", "--reps", "2", "--json", js, "--plot", png)
        check(f"{names[0]} --small runs and validates", r.returncode == 0, r.stdout + r.stderr)
        rep = json.load(open(js)) if os.path.exists(js) else {}
        check("report has validated rows", rep.get("rows") and all(x["validated"] for x in rep["rows"]), rep)
        check("picture written", os.path.exists(png) and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n")
        check("no temporaries left", sorted(os.listdir(d)) == ["r.json", "r.png"], os.listdir(d))

r = run_lab(names[0], "--sise", "3")
check("a mistyped option gets did-you-mean", r.returncode != 0 and
      "strata-lab: unknown option '--sise' (did you mean '--size'?)" in r.stderr, r.stderr)
r = run_lab("--version")
check("--version names strata-lab and the commit", r.returncode == 0 and
      r.stdout.startswith("strata-lab ") and "commit" in r.stdout, r.stdout + r.stderr)

# `strata lab ...` runs strata-lab beside strata with the same words: the same output, the
# same exit status, the same files (or none).
for args in (["list"], ["--help"], [], [names[0], "--reps", "0"]):
    lab, via = run_lab(*args), run_product("lab", *args)
    check(f"{' '.join(['strata lab', *args])} is {' '.join(['strata-lab', *args])}",
          (via.returncode, via.stdout, via.stderr) == (lab.returncode, lab.stdout, lab.stderr),
          f"rc {via.returncode} vs {lab.returncode}\n{via.stdout}{via.stderr}\n---\n{lab.stdout}{lab.stderr}")
with tempfile.TemporaryDirectory() as d:
    js = os.path.join(d, "r.json")
    r = run_product("lab", names[0], "--small", "--reps", "2", "--json", js)
    if has_gpu:
        check("strata lab runs an experiment and writes its report", r.returncode == 0 and os.path.exists(js),
              r.stdout + r.stderr)
    else:
        check("strata lab without a GPU: strata-lab's refusal, nothing written",
              r.returncode == 1 and f"strata-lab {names[0]} needs a GPU" in r.stderr and not os.listdir(d),
              r.stderr)
listed = run_product().stdout
check("bare strata lists the lab verb", any(line.split()[:1] == ["lab"] for line in listed.splitlines()), listed)
# Without strata-lab beside it (a strata copied alone), `strata lab` says where to get it.
with tempfile.TemporaryDirectory() as d:
    alone = os.path.join(d, os.path.basename(STRATA))
    shutil.copy2(STRATA, alone)
    r = subprocess.run([alone, "lab", "list"], capture_output=True, text=True, timeout=300)
    check("strata lab without strata-lab beside it says where to get it",
          r.returncode == 1 and "not beside this strata" in r.stderr and "target strata-lab" in r.stderr
          and "cmake --install" in r.stderr and not r.stdout, r.stdout + r.stderr)

# The lab's code and cuBLAS are in strata-lab and not in strata. Each check is also run on
# strata-lab, where it must find them: a check that sees nothing anywhere proves nothing.
if shutil.which("nm"):
    def lab_symbols(binary):
        out = subprocess.run(["nm", "-C", binary], capture_output=True, text=True).stdout
        return [line for line in out.splitlines() if "strata::lab::" in line]
    check("nm finds the lab's code in strata-lab", lab_symbols(STRATA_LAB), "no strata::lab:: symbol")
    check("strata holds none of the lab's code", not lab_symbols(STRATA), lab_symbols(STRATA)[:5])
else:
    print("skip the symbol check: nm is not installed")
built_with_cuda = "CUDA sm_" in run_lab("--version").stdout
if shutil.which("ldd"):
    def cublas(binary):
        out = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
        return [line.strip() for line in out.splitlines() if "libcublas" in line]
    if built_with_cuda:
        check("ldd finds cuBLAS linked into strata-lab", cublas(STRATA_LAB), "no libcublas")
    check("strata does not link cuBLAS", not cublas(STRATA), cublas(STRATA))
else:
    print("skip the cuBLAS check: ldd is not installed")

# The plot script alone, on both kinds of report (needs matplotlib).
try:
    import matplotlib  # noqa: F401
    with tempfile.TemporaryDirectory() as d:
        bars = {"experiment": "demo", "title": "a ladder", "device": "GPU X", "unit": "GB/s", "rows": [],
                "plot": {"kind": "bars", "title": "", "xlabel": "variant", "ylabel": "GB/s", "logy": False,
                         "series": [{"label": "2^22", "x": ["1 a", "2 b"], "y": [10.0, 20.0]},
                                    {"label": "2^29", "x": ["1 a", "2 b"], "y": [12.0, 30.0]}],
                         "references": [{"label": "cudaMemcpy", "y": 35.0}]}}
        lines = dict(bars, plot=dict(bars["plot"], kind="lines", xlabel="offset (elements)",
                                     series=[{"label": "4 B", "x": [0, 1, 2], "y": [3.0, 2.0, 2.5]}]))
        for name, rep in (("bars", bars), ("lines", lines)):
            src, out = os.path.join(d, name + ".json"), os.path.join(d, name + ".png")
            json.dump(rep, open(src, "w"))
            p = subprocess.run([sys.executable, PLOT, src, out], capture_output=True, text=True)
            check(f"plot.py draws {name}", p.returncode == 0 and os.path.getsize(out) > 10000, p.stderr)
except ImportError:
    print("skip plot.py checks: matplotlib is not installed")

finish()
