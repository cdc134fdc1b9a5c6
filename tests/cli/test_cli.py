#!/usr/bin/env python3
"""CLI contract tests for `strata`: bad input exits non-zero with a message and writes
nothing; --help/--version/info work; bench writes the documented JSON. Standard library
only. Usage: test_cli.py PATH_TO_STRATA"""
import json
import os
import shutil
import stat
import struct
import tempfile


from clitest import check, finish, has_cpu_fft, run_strata


HAS_GPU = "device 0:" in run_strata("info").stdout
CPU_FFT = has_cpu_fft()


def run(*args):
    return run_strata(*args)


def write_npy(path, shape, values, descr="<f4", fortran=False):
    fmt = {"<f4": "<f", "<f8": "<d", "<i4": "<i", ">f4": ">f"}[descr]
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (
        descr, "True" if fortran else "False", "".join(f"{s}," for s in shape))
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack(fmt[0] + fmt[1] * len(values), *values))


with tempfile.TemporaryDirectory() as tmp:
    good = os.path.join(tmp, "in.npy")
    write_npy(good, (3, 4, 5), [float(i % 7) for i in range(60)])
    out = os.path.join(tmp, "out.npy")

    def refused(name, args, needle):
        if os.path.exists(out):
            os.remove(out)
        device = [] if "--device" in args else ["--device", "cpu"]
        r = run("apply", "--in", good, "--out", out, *device, *args)
        check(name + " exits non-zero", r.returncode != 0, f"rc={r.returncode}")
        check(name + " says why", needle.lower() in r.stderr.lower(), repr(r.stderr))
        check(name + " writes nothing", not os.path.exists(out))
        leftovers = [f for f in os.listdir(tmp) if f.startswith(".out.npy")]
        check(name + " leaves no temporary", not leftovers, str(leftovers))

    refused("unknown stencil", ["--stencil", "9pt", "--coeffs", "1,2"], "unknown stencil")
    refused("radius 5", ["--stencil", "star", "--radius", "5"], "in [1, 4]")
    refused("radius 5 with coeffs", ["--stencil", "star", "--radius", "5", "--coeffs", "1,2,3,4,5,6"], "in [1, 4]")
    refused("NaN coefficient", ["--stencil", "7pt", "--coeffs", "1,nan"], "finite")
    refused("wrong coefficient count", ["--stencil", "7pt", "--coeffs", "1,2,3"], "takes 2 coefficients")
    refused("box27 count", ["--stencil", "box27", "--coeffs", "1,2,3"], "27 coefficients")
    refused("bad --bc", ["--bc", "mirror"], "unknown boundary")
    refused("bad dirichlet value", ["--bc", "dirichlet:x"], "not a finite number")
    refused("bad precision", ["--precision", "f16"], "unknown precision")
    refused("bad device", ["--device", "tpu"], "unknown device")
    refused("bare relax", ["--steps", "2", "--update", "relax"], "relax:C")
    refused("star2 with another radius", ["--stencil", "star2", "--radius", "3"], "star2 has radius 2")
    refused("star5", ["--stencil", "star5"], "unknown stencil")
    refused("--fuse 5", ["--steps", "4", "--fuse", "5"], "--fuse: must be a whole number in [0, 4]")
    refused("--fuse -1", ["--steps", "4", "--fuse", "-1"], "--fuse: must be a whole number in [0, 4]")

    # --stencil starR is --stencil star --radius R, byte for byte (R = 1..4, an odd shape).
    for radius in range(1, 5):
        a, b = os.path.join(tmp, "a.npy"), os.path.join(tmp, "b.npy")
        ra = run("apply", "--in", good, "--out", a, "--device", "cpu", "--stencil", f"star{radius}",
                 "--bc", "periodic")
        rb = run("apply", "--in", good, "--out", b, "--device", "cpu", "--stencil", "star", "--radius",
                 str(radius), "--bc", "periodic")
        check(f"star{radius} runs", ra.returncode == 0 and rb.returncode == 0, ra.stderr + rb.stderr)
        check(f"star{radius} is star --radius {radius}",
              os.path.exists(a) and os.path.exists(b) and open(a, "rb").read() == open(b, "rb").read())
        for p in (a, b):
            if os.path.exists(p):
                os.remove(p)

    r = run("apply", "--in", os.path.join(tmp, "missing.npy"), "--out", out, "--device", "cpu")
    check("missing file exits non-zero", r.returncode != 0)
    check("missing file is named", "missing.npy" in r.stderr, r.stderr)
    check("missing file writes nothing", not os.path.exists(out))

    for name, descr, fortran, shape, needle in [
            ("int32 input", "<i4", False, (3, 4, 5), "dtype"),
            ("big-endian input", ">f4", False, (3, 4, 5), "big-endian"),
            ("fortran input", "<f4", True, (3, 4, 5), "fortran"),
            ("2D input", "<f4", False, (12, 5), "3D")]:
        bad = os.path.join(tmp, "bad.npy")
        write_npy(bad, shape, list(range(60)) if descr == "<i4" else [1.0] * 60, descr, fortran)
        r = run("apply", "--in", bad, "--out", out, "--device", "cpu")
        check(name + " refused", r.returncode != 0 and needle.lower() in r.stderr.lower(), r.stderr)
        check(name + " writes nothing", not os.path.exists(out))

    # An input larger than the memory available is refused before it is read, with the
    # figure and the memory there is (a sparse 1 TiB file costs no disk).
    huge = os.path.join(tmp, "huge.npy")
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (256, 1024, 1048576), }"
    header += " " * (64 - (10 + len(header) + 1) % 64) + "\n"
    with open(huge, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.truncate(f.tell() + 256 * 1024 * 1048576 * 4)
    r = run("apply", "--in", huge, "--out", out, "--device", "cpu")
    check("an input larger than memory is refused", r.returncode == 1 and "of host memory" in r.stderr
          and "is available" in r.stderr, r.stderr)
    check("an input larger than memory writes nothing", not os.path.exists(out))
    check("a machine without a GPU is not told to use one", HAS_GPU or "cuda" not in r.stderr.lower(), r.stderr)
    os.remove(huge)

    # An existing output survives a failed run untouched.
    with open(out, "wb") as f:
        f.write(b"keep me")
    r = run("apply", "--in", good, "--out", out, "--stencil", "star", "--radius", "9", "--device", "cpu")
    with open(out, "rb") as f:
        check("failed run keeps the old output", f.read() == b"keep me")
    os.remove(out)

    r = run("apply", "--in", good, "--out", out, "--device", "cpu", "--bc", "periodic")
    check("good apply succeeds", r.returncode == 0, r.stderr)
    check("good apply writes the output", os.path.exists(out))

    # NaN and Inf: a coefficient f32 cannot hold is refused up front; a result that overflows,
    # or NaN in the input, is an error that writes nothing unless --allow-nonfinite.
    refused("coefficient beyond f32", ["--stencil", "7pt", "--coeffs", "1e39,1", "--precision", "f32"],
            "not representable in f32")
    refused("result overflows f32", ["--stencil", "7pt", "--coeffs", "1e38,1"], "the result holds")
    r = run("apply", "--in", good, "--out", out, "--device", "cpu", "--coeffs", "1e38,1")
    check("an overflowing result says the input was finite", "the input is finite" in r.stderr, r.stderr)
    r = run("apply", "--in", good, "--out", out, "--device", "cpu", "--coeffs", "1e38,1", "--allow-nonfinite")
    check("--allow-nonfinite writes it with a warning", r.returncode == 0 and os.path.exists(out)
          and "warning: the result holds" in r.stderr, r.stderr)
    os.remove(out)
    nan_in = os.path.join(tmp, "nan.npy")
    report = os.path.join(tmp, "report.json")
    write_npy(nan_in, (3, 4, 5), [float("nan") if i == 17 else 1.0 for i in range(60)])
    for device in (["--device", "cpu"], []):  # the default device checks on the GPU where there is one
        r = run("apply", "--in", nan_in, "--out", out, "--json", report, *device)
        check(f"NaN in the input is reported {device}", r.returncode == 1 and
              "the input holds 1 non-finite value" in r.stderr and "(x, y, z) = (2, 3, 0)" in r.stderr, r.stderr)
        check(f"NaN in the input writes nothing {device}", not os.path.exists(out) and not os.path.exists(report))
    # A float64 file narrowed to f32 (--precision f32) holds finite values beyond f32's range:
    # they become inf on reading, and the refusal says so (the file itself holds no inf).
    wide_in = os.path.join(tmp, "wide.npy")
    write_npy(wide_in, (3, 4, 5), [1e39 if i == 17 else 1.0 for i in range(60)], descr="<f8")
    r = run("apply", "--in", wide_in, "--out", out, "--device", "cpu", "--precision", "f32")
    check("a float64 value beyond f32, read as f32, is said to be the narrowing",
          r.returncode == 1 and "read as f32 from a float64 file" in r.stderr
          and "--precision f64 keeps them" in r.stderr and not os.path.exists(out), r.stderr)
    r = run("apply", "--in", wide_in, "--out", out, "--device", "cpu")
    check("the same file at its own precision runs", r.returncode == 0 and os.path.exists(out), r.stderr)
    os.remove(out)
    r = run("apply", "--in", nan_in, "--out", out, "--device", "cpu")
    check("an f32 file's NaN is not said to be a narrowing",
          r.returncode == 1 and "the input holds 1 non-finite value" in r.stderr and "float64 file" not in r.stderr,
          r.stderr)
    # Nor a float64 file's own NaN: narrowing makes only infs.
    nan64 = os.path.join(tmp, "nan64.npy")
    write_npy(nan64, (3, 4, 5), [float("nan") if i == 17 else 1.0 for i in range(60)], descr="<f8")
    r = run("apply", "--in", nan64, "--out", out, "--device", "cpu", "--precision", "f32")
    check("a float64 file's NaN read as f32 is not said to be a narrowing",
          r.returncode == 1 and "the first nan" in r.stderr and "float64 file" not in r.stderr, r.stderr)

    # Two outputs that name one file, as the same path, another spelling of it or a link to
    # it, are refused before any work, naming both options; nothing is written.
    link_to_out = os.path.join(tmp, "link-to-out.npy")
    with open(out, "wb") as f:
        f.write(b"keep me")
    os.symlink(out, link_to_out)
    for spelling in (out, os.path.join(tmp, ".", os.path.basename(out)), link_to_out):
        for verb in (["apply", "--in", good, "--out", out, "--device", "cpu"],
                     ["poisson", "--n", "8", "--device", "cpu", "--out", out]):
            r = run(*verb, "--json", spelling)
            check(f"{verb[0]} --out and --json as {os.path.basename(spelling)} refused",
                  r.returncode != 0 and "--out and --json name the same file" in r.stderr, r.stderr)
            with open(out, "rb") as f:
                check(f"{verb[0]} --out and --json as one file leave it as it was", f.read() == b"keep me")
    os.remove(link_to_out)
    os.remove(out)

    # The report over the input (apply's --in, poisson's --rhs file), by a path or a link, is
    # refused before any work and the input left as it was; the result over the input is the
    # in-place run, allowed.
    rhs = os.path.join(tmp, "rhs.npy")
    with open(rhs, "wb") as f:
        header = "{'descr': '<f8', 'fortran_order': False, 'shape': (8, 8, 8), }"
        header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(b"".join(struct.pack("<d", (i % 7) - 3.0) for i in range(512)))
    link_to_rhs = os.path.join(tmp, "link-to-rhs.npy")
    os.symlink(rhs, link_to_rhs)
    copy = os.path.join(tmp, "copy.npy")
    shutil.copy(good, copy)
    for verb, source, option in ((["apply", "--in", copy, "--out", out, "--device", "cpu"], copy, "--in"),
                                 (["poisson", "--n", "8", "--rhs", rhs, "--device", "cpu", "--out", out], rhs, "--rhs")):
        before = open(source, "rb").read()
        for spelling in (source, link_to_rhs if option == "--rhs" else source):
            r = run(*verb, "--json", spelling)
            check(f"{verb[0]} --json over {option} ({os.path.basename(spelling)}) refused",
                  r.returncode == 1 and f"is the {option} file the run reads" in r.stderr, r.stderr)
            check(f"{verb[0]} --json over {option}: the input left as it was, nothing written",
                  open(source, "rb").read() == before and not os.path.exists(out))
    r = run("apply", "--in", copy, "--out", copy, "--device", "cpu")
    check("apply --out over --in runs in place", r.returncode == 0, r.stderr)
    os.remove(link_to_rhs)

    # --json: the run, its rate and every phase of the process, which add up to the total.
    for device in (["--device", "cpu"], []):
        r = run("apply", "--in", good, "--out", out, "--steps", "3", "--update", "relax:0.1", "--json", report, *device)
        check(f"apply --json succeeds {device}", r.returncode == 0 and os.path.exists(report), r.stderr)
        if r.returncode != 0:
            continue
        with open(report) as f:
            j = json.load(f)
        t = j["timing_ms"]
        phases = ["process_start", "input", "check_input", "compute", "check_result", "output", "total"]
        check(f"the report has every phase {device}", all(k in t and t[k] >= 0 for k in phases), str(t))
        parts = sum(v for k, v in t.items() if k != "total")
        check(f"the phases add up to the total {device}", parts <= t["total"] * 1.001 and parts >= 0.5 * t["total"],
              str(t))
        check(f"the report says what ran {device}", j["steps"] == 3 and j["shape"] == [5, 4, 3] and
              j["precision"] == "f32" and abs(j["compute_s"] * 1e3 - t["compute"]) < 1e-6 and j["gpts_per_step"] > 0,
              str(j))
        check(f"the line names the phases {device}", "whole process" in r.stdout and "read" in r.stdout, r.stdout)
        os.remove(out)
        os.remove(report)

    # Outputs that are not a plain regular file are written as `>` would write them.
    def apply_to(target):
        return run("apply", "--in", good, "--out", target, "--device", "cpu")

    real = os.path.join(tmp, "real.npy")
    link = os.path.join(tmp, "link.npy")
    with open(real, "wb") as f:
        f.write(b"old")
    os.symlink("real.npy", link)
    r = apply_to(link)
    check("--out through a symlink succeeds", r.returncode == 0, r.stderr)
    check("--out keeps the symlink", os.path.islink(link))
    check("--out writes the symlink's target", open(real, "rb").read(6) == b"\x93NUMPY")

    first, second = os.path.join(tmp, "first.npy"), os.path.join(tmp, "second.npy")
    with open(first, "wb") as f:
        f.write(b"old")
    os.link(first, second)
    r = apply_to(first)
    check("--out to a hard-linked file succeeds", r.returncode == 0, r.stderr)
    check("--out keeps the hard link", open(second, "rb").read(6) == b"\x93NUMPY" and os.stat(first).st_nlink == 2)

    fifo = os.path.join(tmp, "pipe.npy")
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # strata's open for writing does not wait
    r = apply_to(fifo)
    try:
        data = os.read(reader, 1 << 16)
    except BlockingIOError:
        data = b""
    os.close(reader)
    check("--out to a FIFO succeeds", r.returncode == 0, r.stderr)
    check("--out to a FIFO sends the array through it", data[:6] == b"\x93NUMPY" and len(data) == 128 + 60 * 4,
          str(len(data)))
    check("--out keeps the FIFO", stat.S_ISFIFO(os.lstat(fifo).st_mode))

    frozen = os.path.join(tmp, "frozen.npy")
    with open(frozen, "wb") as f:
        f.write(b"keep")
    os.chmod(frozen, 0o444)
    r = apply_to(frozen)
    check("--out to a read-only file is refused", r.returncode != 0 and "read-only" in r.stderr, r.stderr)
    check("--out leaves the read-only file alone", open(frozen, "rb").read() == b"keep")
    check("no temporaries beside the outputs", not [f for f in os.listdir(tmp) if ".tmp." in f], str(os.listdir(tmp)))

    # --json to this process's standard output lands in it, after what was printed.
    r = run("bench", "--device", "cpu", "--size", "8", "--reps", "1", "--warmup", "0", "--kernel", "copy",
            "--json", "/proc/self/fd/1")
    check("--json /proc/self/fd/1 succeeds", r.returncode == 0, r.stderr)
    body = r.stdout[r.stdout.find("{"):]
    try:
        check("--json /proc/self/fd/1 writes the JSON to stdout", "results" in json.loads(body), body[:200])
    except ValueError:
        check("--json /proc/self/fd/1 writes the JSON to stdout", False, r.stdout[:300])

    for args in (["--help"], ["--version"], ["info"], ["apply", "--help"], ["bench", "--help"], ["demo", "--help"]):
        r = run(*args)
        check(" ".join(args) + " exits 0", r.returncode == 0, r.stderr)
    # Bare `strata` lists the verbs, one line each, and exits 0 (like --help).
    r = run()
    verbs = ["info", "apply", "bench", "demo", "lab", "poisson", "wave"]
    listed = {line.split()[0]: line for line in r.stdout.splitlines() if line.startswith("  ") and line.split()}
    check("bare strata exits 0", r.returncode == 0, f"rc={r.returncode} {r.stderr}")
    check("bare strata lists every verb with a line of description",
          all(v in listed and len(listed[v].split()) >= 3 and len(listed[v]) <= 110 for v in verbs), r.stdout)
    # A mistyped verb or option names what was probably meant.
    r = run("aply", "--in", good)
    check("a mistyped verb gets did-you-mean", r.returncode == 1 and "did you mean 'apply'" in r.stderr, r.stderr)
    r = run("apply", "--stencl", "7pt", "--in", good, "--out", out)
    check("a mistyped option gets did-you-mean", r.returncode != 0 and
          "strata apply: unknown option '--stencl' (did you mean '--stencil'?)" in r.stderr, r.stderr)
    r = run("wave", "--config", good, "--overwite")
    check("a mistyped flag gets did-you-mean", r.returncode != 0 and "did you mean '--overwrite'" in r.stderr,
          r.stderr)
    r = run("poisson", "--n", "8", "--zzz", "1")
    check("an option with no near name is named alone", r.returncode != 0 and
          "unknown option '--zzz'" in r.stderr and "did you mean" not in r.stderr, r.stderr)
    r = run("frobnicate")
    check("an unknown verb is named", r.returncode != 0 and "unknown command 'frobnicate'" in r.stderr
          and "wave" in r.stderr, r.stderr)
    check("--version names the commit", "commit" in run("--version").stdout)
    info = run("info").stdout
    check("info without a GPU says what runs and what needs one",
          HAS_GPU or "runs every verb but `strata lab`, which needs a GPU" in info, info)
    check("info says whether the CPU has an FFT, and where not what to install",
          "CPU FFT:       yes (KissFFT" in info if CPU_FFT else
          "CPU FFT:       no (built without the CPU's FFT" in info and "libkissfft-dev" in info
          and (HAS_GPU or "`poisson --solver fft` needs the CPU FFT too" in info), info)

    js = os.path.join(tmp, "bench.json")
    r = run("bench", "--device", "cpu", "--size", "12", "--reps", "2", "--warmup", "0", "--json", js)
    check("cpu bench runs", r.returncode == 0, r.stderr)
    doc = json.load(open(js))
    fields = {"kernel", "precision", "shape", "gpts_per_s", "gb_per_s", "bytes_per_point_eff", "ratio_to_copy"}
    check("bench json has device and commit", "device" in doc and "commit" in doc)
    check("bench json results have the fields",
          doc["results"] and all(fields <= set(x) for x in doc["results"]), str(doc["results"][:1]))
    check("bench json ratio of copy is 1",
          any(x["kernel"] == "copy" and abs(x["ratio_to_copy"] - 1) < 1e-12 for x in doc["results"]))
    # --kernel all on the CPU runs every family but dist (several ranks), and says so; --size
    # sizes the reductions and the solvers too; a CPU run is never told to use cuda.
    r = run("bench", "--device", "cpu", "--kernel", "all", "--size", "8", "--reps", "1", "--warmup", "0",
            "--precision", "f32", "--json", js)
    check("cpu bench all runs", r.returncode == 0, r.stderr)
    check("cpu bench all says dist is skipped", "dist skipped" in r.stderr, r.stderr)
    check("cpu bench all skips no other family",
          [line for line in r.stderr.splitlines() if line.startswith("strata bench:") and "skipped" in line]
          == ["strata bench: dist skipped: it times several ranks (mpirun -np N strata bench --kernel dist)"],
          r.stderr)
    check("cpu bench all never says cuda", "cuda" not in r.stderr.lower(), r.stderr)
    doc = json.load(open(js)) if r.returncode == 0 else {"results": []}
    sums = [x for x in doc["results"] if x["kernel"] == "sum"]
    check("--size sizes the reductions", sums and all(x["points"] == 8 ** 3 for x in sums), str(sums[:1]))
    families = {x["kernel"] for x in doc["results"]}
    check("cpu bench all runs every family on the CPU",
          {"copy", "7pt", "sum", "dot", "max_abs", "steps:7pt", "vcycle_fd7", "solve_periodic_fd7"} <= families
          and any(k.startswith("wave") for k in families), str(sorted(families)))
    check("cpu bench all has the fft rows where the CPU has an FFT, else says why not",
          ("fft_periodic_fd7" in families) == CPU_FFT
          and (CPU_FFT or "fft_periodic_fd7   skipped: built without the CPU's FFT" in r.stderr), r.stderr[-500:])
    check("cpu bench all rows are the CPU's", all(x["device"] == "cpu" for x in doc["results"]),
          str({x["device"] for x in doc["results"]}))
    # On a GPU the wave family's target is judged against cudaMemcpy of the same run (issue
    # 38's reference: the fused update >= 0.85 of cudaMemcpy over 16 B a point), the copy
    # kernel staying the table's ratio. (Without a GPU there is nothing to judge: not run.)
    if HAS_GPU:
        rw = run("bench", "--kernel", "wave", "--size", "64", "--precision", "f32", "--reps", "2",
                 "--warmup", "0", "--json", js)
        rows = json.load(open(js))["results"] if rw.returncode == 0 else []
        mc = [x for x in rows if x["kernel"] == "memcpy"]
        waves = [x for x in rows if x["kernel"] == "wave"]
        check("gpu bench wave has one cudaMemcpy row and its update rows",
              rw.returncode == 0 and len(mc) == 1 and mc[0]["gb_per_s"] > 0 and waves, rw.stderr[-500:])
        if len(mc) == 1 and waves:
            m = mc[0]["gb_per_s"]
            close = lambda a, b: abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-30)
            check("gpu bench wave: each update's ratio_to_memcpy is its GB/s over cudaMemcpy's",
                  all(close(x["extra"]["ratio_to_memcpy"], x["gb_per_s"] / m) for x in waves), str(waves[:1]))
            check("gpu bench wave: the 0.85 target is cudaMemcpy's rate over 16 B a point",
                  all(close(x["extra"]["target_gpts_per_s"], 0.85 * m / 16)
                      and x["extra"]["meets_target"] == (x["gpts_per_s"] >= 0.85 * m / 16) for x in waves),
                  str(waves[:1]))
        # The correlating update's shapes: each checked against the solver's before it is timed,
        # one of them the solver's, inside the layers at 64^3; on a grid too small for 16-point
        # layers (24^3) the whole interior, not an internal error.
        corr = [x for x in rows if x["kernel"] == "wave_correlate"]
        check("gpu bench wave has the correlating shapes, checked, the solver's among them",
              corr and all("bit for bit" in x["extra"]["validated"] for x in corr)
              and sum(1 for x in corr if x["extra"]["default"]) == 1
              and all(x["extra"]["region"].startswith("inside") and x["points"] == 32 * 32 * 48 for x in corr),
              str(corr[:1]))
        check("gpu bench wave times the solver's correlating shape again with q zero",
              sum(1 for x in corr if x["extra"].get("q", "").startswith("zero")) == 1, str(corr[-1:]))
        rs = run("bench", "--kernel", "wave", "--size", "24", "--precision", "f64", "--reps", "2",
                 "--warmup", "0", "--json", js)
        small = [x for x in json.load(open(js))["results"] if x["kernel"] == "wave_correlate"] \
            if rs.returncode == 0 else []
        check("gpu bench wave at 24^3: the correlating rows on the whole interior",
              small and all(x["extra"]["region"] == "the whole interior" and x["points"] == 24 ** 3 for x in small),
              rs.stderr[-500:])
    # Host <-> device copies: a GPU's family, skipped on the CPU saying so; on a GPU each way
    # up and down, checked and timed, the pinned cudaMemcpy the others' reference.
    rt = run("bench", "--device", "cpu", "--kernel", "transfers", "--json", js)
    check("cpu bench transfers is skipped, saying why",
          rt.returncode == 0 and "transfers  skipped: host <-> device copies need a GPU" in rt.stderr
          and json.load(open(js))["results"] == [], rt.stderr)
    if HAS_GPU:
        rt = run("bench", "--kernel", "transfers", "--size", "256", "--reps", "2", "--json", js)
        rows = json.load(open(js))["results"] if rt.returncode == 0 else []
        ways = sorted((x["precision"], x["kernel"], x["variant"]) for x in rows)
        want = sorted((p, k, v) for p in ("f32", "f64") for k in ("h2d", "d2h") for v in
                      ("cudaMemcpy-pinned", "cudaMemcpy-pageable", "strata-copy_bytes", "strata-copy-field"))
        check("gpu bench transfers: every way up and down, in each precision (--precision all)",
              ways == want, rt.stderr[-500:] + str(ways))
        check("gpu bench transfers: each row moves one field's interior over the pinned rate",
              rows and all(x["extra"]["bytes"] == 256 ** 3 * {"f32": 4, "f64": 8}[x["precision"]] and
                           x["gb_per_s"] > 0 and
                           (x["reference"] == "pinned") == (x["variant"] != "cudaMemcpy-pinned")
                           for x in rows), str(rows[:1]))
    # --steps is the imaging family's shot length, refused where no imaging row runs (its own
    # variable: the checks above read the --kernel all run's r).
    rs = run("bench", "--device", "cpu", "--kernel", "imaging", "--size", "24", "--steps", "12", "--reps", "1",
             "--warmup", "0", "--precision", "f32", "--json", js)
    rows = json.load(open(js))["results"] if rs.returncode == 0 else []
    check("bench --steps sets the imaging shot's steps",
          rows and all(x.get("extra", {}).get("steps") == 12 for x in rows), rs.stderr + str(rows[:1]))
    mig = [x for x in rows if x["kernel"] == "imaging_migrate"]
    check("bench imaging: the forward run, the gradient's strategies and migrate's shot with its illumination",
          {x["kernel"] for x in rows} == {"imaging_forward", "imaging_gradient", "imaging_migrate"}
          and len(mig) == 1 and mig[0]["extra"]["illumination"] is True
          and mig[0]["extra"]["ratio_to_forward"] > 1, str([(x["kernel"], x["variant"]) for x in rows]))
    rs = run("bench", "--device", "cpu", "--kernel", "imaging_boundary_saving", "--size", "24", "--steps", "12",
             "--reps", "1", "--warmup", "0", "--precision", "f32", "--json", js)
    rows = json.load(open(js))["results"] if rs.returncode == 0 else []
    check("bench --kernel imaging_boundary_saving: that row and the forward run it is measured against",
          [(x["kernel"], x["variant"]) for x in rows] == [("imaging_forward", "solver"),
                                                          ("imaging_gradient", "boundary-saving")],
          rs.stderr + str([(x["kernel"], x["variant"]) for x in rows]))
    rs = run("bench", "--device", "cpu", "--kernel", "copy", "--size", "8", "--steps", "12")
    check("bench --steps without the imaging family is refused",
          rs.returncode != 0 and "does not run it" in rs.stderr, rs.stderr)
    # --grid is the dist family's strong-scaling grid: refused without that family, or when
    # it does not fit the job (one rank here) or is not a grid, before any kernel is timed.
    for args, words in ((["--kernel", "copy", "--grid", "1x1x1"], "does not run it"),
                        (["--kernel", "dist", "--grid", "1x1x2"], "mpirun -np 2"),
                        (["--kernel", "dist", "--grid", "2x1"], "expected PXxPYxPZ")):
        rg = run("bench", "--device", "cpu", "--size", "8", *args)
        check(f"bench {' '.join(args)} refused", rg.returncode != 0 and words in rg.stderr and
              "median_ms" not in rg.stdout, rg.stderr)
    r = run("bench", "--device", "cpu", "--kernel", "9pt")
    check("bench unknown kernel refused", r.returncode != 0 and "unknown kernel" in r.stderr, r.stderr)
    for empty in ("", " ", ","):  # nothing named: refused, not an empty run reported as done
        js_empty = os.path.join(os.path.dirname(js), "empty.json")
        r0 = run("bench", "--device", "cpu", "--kernel", empty, "--json", js_empty)
        check(f"bench --kernel {empty!r} refused", r0.returncode != 0 and "no kernel named" in r0.stderr
              and not os.path.exists(js_empty), r0.stderr)
    check("bench unknown kernel lists every family and member",
          all(k in r.stderr for k in ("stencils", "box27", "reduce", "max_abs", "wave", "poisson", "all")),
          r.stderr)
    # A member runs alone; a family named whole runs all of it, whatever else is listed.
    os.remove(js)
    r = run("bench", "--device", "cpu", "--kernel", "dot,7pt", "--size", "8", "--reps", "1", "--warmup", "0",
            "--precision", "f32", "--json", js)
    kinds = sorted({x["kernel"] for x in json.load(open(js))["results"]}) if r.returncode == 0 else []
    check("bench members run alone (and the copy reference)", kinds == ["7pt", "copy", "dot"] or
          kinds == ["7pt", "copy", "dot", "memcpy"], f"{r.stderr} {kinds}")
    r = run("bench", "--device", "cpu", "--kernel", "sum,reduce", "--size", "8", "--reps", "1", "--warmup", "0",
            "--precision", "f32", "--json", js)
    kinds = {x["kernel"] for x in json.load(open(js))["results"]} if r.returncode == 0 else set()
    check("bench family named whole runs all of it", {"sum", "dot", "max_abs"} <= kinds, f"{r.stderr} {kinds}")
    # The solver families on the CPU: the report's rows and format, at the sizes asked for.
    os.remove(js)
    r = run("bench", "--device", "cpu", "--kernel", "poisson,steps", "--shape", "10,8,6", "--reps", "2",
            "--warmup", "0", "--json", js)
    check("bench poisson,steps on the cpu runs", r.returncode == 0, r.stderr[-500:])
    check("bench poisson,steps on the cpu never says cuda", "cuda" not in r.stderr.lower(), r.stderr)
    check("bench poisson,steps rows are printed once, in the table (none on stderr)",
          not [line for line in r.stderr.splitlines() if "skipped" not in line and line.split()[:1] and
               line.split()[0].startswith(("vcycle_", "solve_", "fft_", "steps"))], r.stderr)
    rows = json.load(open(js))["results"] if r.returncode == 0 else []
    by = {(x["kernel"], x["variant"], x["precision"]) for x in rows}
    fft_rows = {("fft_periodic_fd7", "kissfft", "f32"), ("fft_periodic_fd7", "kissfft", "f64")}
    check("poisson rows: V-cycles, solves, fft", {("vcycle_fd7", "V(2,2)-cheb", "f32"), ("vcycle_fe27", "V(2,2)-cheb", "f32"),
                                                  ("solve_dirichlet_fd7", "mgcg-mixed", "f64"),
                                                  ("solve_dirichlet_fd7", "fmg", "f32"),
                                                  ("solve_periodic_fd7", "mg", "f32")}
          | (fft_rows if CPU_FFT else set()) <= by, sorted(by))
    check("poisson fft rows only where the CPU has an FFT",
          CPU_FFT or not {x for x in by if x[0] == "fft_periodic_fd7"}, sorted(by))
    check("steps rows per stencil and precision, against the copy",
          all(("steps:" + s, "per-step", p) in by for s in ("7pt", "star2", "star4", "sym27") for p in ("f32", "f64"))
          and all(x["reference"] == "copy" and x["ratio_to_copy"] > 0 for x in rows if x["kernel"].startswith("steps:")),
          sorted(by))
    check("every row ran on the shape asked for", rows and all(x["shape"] == [10, 8, 6] for x in rows),
          str({tuple(x["shape"]) for x in rows}))
    check("every row is timed", all(x["median_ms"] > 0 for x in rows), str([x["kernel"] for x in rows if not x["median_ms"] > 0]))
    solves = [x for x in rows if x["kernel"].startswith("solve_")]
    check("the solves converge and report their error",
          solves and all(x["extra"]["converged"] or x["variant"] == "fmg" for x in solves)
          and all(0 < x["extra"]["error_rel_l2"] < 0.1 for x in solves), str([x["extra"] for x in solves])[:500])

    # `strata bench` prints each row once: in its table on stdout, and not again on stderr.
    r = run("bench", "--device", "cpu", "--kernel", "7pt", "--size", "8", "--reps", "1", "--warmup", "0",
            "--precision", "f32")
    rows = [line for line in (r.stdout + r.stderr).splitlines() if line.split()[:1] == ["7pt"]
            or line.strip().startswith("7pt ")]
    check("bench prints each row once", r.returncode == 0 and len(rows) == 1, r.stdout + r.stderr)
    check("bench's table says its shape order", "shape (x,y,z)" in r.stdout and "8x8x8" in r.stdout, r.stdout)

    # One sign convention: every default stencil computes +Lap(u), exact on quadratics: +2 on
    # x^2, y^2, z^2, 0 on xy (sym27 gave -2), scaled by 1/h^2 with --spacing h.
    n, rr = 12, 4  # the points rr from the faces see only the polynomial
    for name, poly, lap in [("x2", lambda z, y, x: x * x, 2.0), ("y2", lambda z, y, x: y * y, 2.0),
                            ("z2", lambda z, y, x: z * z, 2.0), ("xy", lambda z, y, x: x * y, 0.0)]:
        src = os.path.join(tmp, f"poly_{name}.npy")
        write_npy(src, (n, n, n), [poly(z, y, x) for z in range(n) for y in range(n) for x in range(n)], "<f8")
        for stencil in (["--stencil", "7pt"], ["--stencil", "star", "--radius", "2"],
                        ["--stencil", "star", "--radius", "3"], ["--stencil", "star", "--radius", "4"],
                        ["--stencil", "sym27"]):
            for h in ("1", "0.5"):
                dst = os.path.join(tmp, "lap.npy")
                spacing = ["--spacing", h] if h != "1" else []
                r = run("apply", "--in", src, "--out", dst, "--device", "cpu", "--bc", "neumann", *spacing, *stencil)
                if r.returncode != 0:
                    check(f"{stencil} on {name} runs", False, r.stderr)
                    continue
                raw = open(dst, "rb").read()
                hl = struct.unpack("<H", raw[8:10])[0]
                vals = struct.unpack(f"<{n ** 3}d", raw[10 + hl:])
                want = lap / float(h) ** 2
                inner = [vals[(z * n + y) * n + x] for z in range(rr, n - rr) for y in range(rr, n - rr)
                         for x in range(rr, n - rr)]
                check(f"{' '.join(stencil[1:])} on {name} at h={h} is +Lap ({want})",
                      all(abs(v - want) < 1e-8 for v in inner), f"got {inner[:3]}")
    r = run("apply", "--in", good, "--out", out, "--device", "cpu", "--coeffs", "-6,1", "--spacing", "2")
    check("--spacing with --coeffs is refused", r.returncode != 0 and "default Laplacians only" in r.stderr, r.stderr)
    r = run("apply", "--help")
    check("apply --help states the sign", "+Lap(u)" in r.stdout and "-Lap" in r.stdout, r.stdout)

    # Coefficients and values print with the digits that matter (shortest round trip).
    r = run("apply", "--in", good, "--out", out, "--device", "cpu", "--coeffs", "-0.6,0.1", "--bc",
            "dirichlet:0.3333333333333333")
    check("coefficients print as given", "7pt [-0.6,0.1], dirichlet:0.3333333333333333 boundary" in r.stdout,
          r.stdout)
    check("shapes say their order", "5x4x3 (x,y,z)" in r.stdout, r.stdout)

    # Missing parent directories of an output are created, as strata wave's directory is;
    # a run that fails creates none.
    nested = os.path.join(tmp, "new", "deeper", "lap.npy")
    r = run("apply", "--in", good, "--out", nested, "--device", "cpu", "--json", os.path.join(tmp, "j", "r.json"))
    check("apply creates the parents of --out and --json", r.returncode == 0 and os.path.exists(nested)
          and os.path.exists(os.path.join(tmp, "j", "r.json")), r.stderr)
    r = run("apply", "--in", nan_in, "--out", os.path.join(tmp, "none", "x.npy"), "--device", "cpu")
    check("a failed apply creates no directory", r.returncode == 1 and not os.path.exists(os.path.join(tmp, "none")),
          r.stderr)
    blocked = os.path.join(good, "sub", "x.npy")
    r = run("apply", "--in", good, "--out", blocked, "--device", "cpu")
    check("a parent that is a file is refused", r.returncode != 0 and "not a directory" in r.stderr, r.stderr)

finish()
