#!/usr/bin/env python3
"""The issue-15 targets of the Python package, measured on the GPU: strata.apply on a 512^3
Field against the C++ rate of `strata bench` in the same run, the per-call overhead of a
tiny (8^3) apply, and strata.apply on a CuPy array (no ghosts: copied into a padded Field)
beside torch.compile of the same 7-point Laplacian.
Usage: tools/python-bench.py STRATA_BINARY [--json FILE] [--size N]"""
import argparse
import json
import subprocess
import time

import strata

p = argparse.ArgumentParser()
p.add_argument("strata")
p.add_argument("--json")
p.add_argument("--size", type=int, default=512)
a = p.parse_args()
n, dev = a.size, "cuda" if strata.cuda_available() else "cpu"
res = {"device": dev}

py = strata.bench.apply((n, n, n), "7pt", "float32", dev, repeats=20)
res["python_512"] = py
out = subprocess.run([a.strata, "bench", "--kernel", "7pt", "--size", str(n), "--precision", "f32",
                      "--json", "/dev/stdout"], capture_output=True, text=True)
res["cli_bench_stdout"] = out.stdout[-4000:]
try:  # the table, then the JSON document
    rows = json.loads(out.stdout[out.stdout.index("\n{") + 1:])["results"]
    cpp = {r["kernel"]: r for r in rows if r["precision"] == "f32"}
    # Like for like: strata.apply on a Field is strata::apply (ghost fill + kernel) in C++.
    res["cpp_apply_s"] = cpp["apply:7pt"]["median_ms"] / 1e3
    res["cpp_kernel_s"] = cpp["7pt"]["median_ms"] / 1e3
    res["python_over_cpp_apply"] = res["cpp_apply_s"] / py["seconds"]
    res["python_over_cpp_kernel"] = res["cpp_kernel_s"] / py["seconds"]
    print(f"C++ strata::apply {res['cpp_apply_s'] * 1e3:.4f} ms, apply_interior {res['cpp_kernel_s'] * 1e3:.4f} ms: "
          f"Python's rate is {res['python_over_cpp_apply']:.3f} of the first, {res['python_over_cpp_kernel']:.3f} of the second")
except (ValueError, KeyError) as e:
    res["cpp_compare"] = f"could not read `strata bench` JSON: {e!r}"
res["overhead_8_us"] = strata.bench.overhead((8, 8, 8), device=dev)
print(f"python {n}^3 7pt f32: {py['seconds'] * 1e3:.4f} ms, {py['gpts_per_s']:.2f} Gpts/s; "
      f"8^3 overhead {res['overhead_8_us']:.2f} us")

try:
    import cupy as cp
    import torch
    if dev == "cuda":
        # Where the 512^3 call's time goes: host enqueue against GPU time per call (CUDA
        # events around 50 back-to-back calls), per boundary rule (the ghost fill differs).
        f = strata.Field((n, n, n), dtype="float32", device="cuda")
        o = strata.Field((n, n, n), dtype="float32", device="cuda")
        for _ in range(3):
            strata.apply("7pt", f, out=o)
        strata.synchronize()
        t0 = time.perf_counter()
        for _ in range(50):
            strata.apply("7pt", f, out=o)
        res["field_apply_enqueue_us"] = 1e6 * (time.perf_counter() - t0) / 50
        strata.synchronize()
        s_ev, e_ev = cp.cuda.Event(), cp.cuda.Event()
        for bc in ("dirichlet", "neumann", "periodic"):
            s_ev.record()
            for _ in range(50):
                strata.apply("7pt", f, out=o, bc=bc)
            e_ev.record()
            e_ev.synchronize()
            res[f"field_apply_events_us_{bc}"] = 1e3 * cp.cuda.get_elapsed_time(s_ev, e_ev) / 50
        print("Field apply per call: enqueue {:.1f} us; GPU {}".format(
            res["field_apply_enqueue_us"],
            ", ".join(f"{bc} {res[f'field_apply_events_us_{bc}']:.1f} us"
                      for bc in ("dirichlet", "neumann", "periodic"))))
        del f, o
    x = cp.random.standard_normal((n, n, n), dtype=cp.float32)

    def timed(fn, reps=10):
        fn()
        cp.cuda.runtime.deviceSynchronize()
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        cp.cuda.runtime.deviceSynchronize()
        return (time.perf_counter() - t0) / reps

    res["cupy_array_apply_s"] = timed(lambda: strata.apply("7pt", x, bc="dirichlet"))
    y = cp.empty_like(x)
    res["cupy_array_apply_out_s"] = timed(lambda: strata.apply("7pt", x, bc="dirichlet", out=y))
    t = torch.from_dlpack(x)

    def lap(u):
        v = torch.nn.functional.pad(u, (1, 1, 1, 1, 1, 1))
        return (v[2:, 1:-1, 1:-1] + v[:-2, 1:-1, 1:-1] + v[1:-1, 2:, 1:-1] + v[1:-1, :-2, 1:-1]
                + v[1:-1, 1:-1, 2:] + v[1:-1, 1:-1, :-2] - 6 * u)
    compiled = torch.compile(lap)
    res["torch_compile_s"] = timed(lambda: compiled(t))
    print(f"CuPy array apply {res['cupy_array_apply_s'] * 1e3:.3f} ms (out= given "
          f"{res['cupy_array_apply_out_s'] * 1e3:.3f} ms), torch.compile "
          f"{res['torch_compile_s'] * 1e3:.3f} ms")
except ImportError as e:
    res["cupy_torch"] = f"skipped: {e}"
if a.json:
    json.dump(res, open(a.json, "w"), indent=1)
