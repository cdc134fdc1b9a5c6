#!/usr/bin/env python3
"""Print the Markdown tables of docs/performance.md from a `strata bench --json` results file.

Usage: tools/results-tables.py [bench/results/nvidia-h100-80gb-hbm3.json]
       tools/results-tables.py --side-by-side A.json B.json ...   (one column group per GPU)
The tables are pasted into docs/performance.md after a device run, so that every figure
there comes from the committed results file (its commit is printed first).
"""
import json
import sys

STENCILS = [("7pt", "7-point"), ("sym27", "symmetric 27-point"), ("box27", "general 27-point"),
            ("star4", "radius-4 star")]


def default_rows(results):
    """Benchmark rows of the default policy (stencils, copy), keyed by kernel, precision, shape."""
    out = {}
    for r in results:
        if r["kernel"] in ("copy", "7pt", "star4", "sym27", "box27") and r.get("extra", {}).get("default"):
            out[(r["kernel"], r["precision"], tuple(r["shape"]))] = r
    return out


def shape_name(s):
    return f"{s[0]}^3" if s[0] == s[1] == s[2] else "x".join(map(str, s))


# The issue-38 targets, as ratios to cudaMemcpy in the same run: (kernel, precision) -> ratio.
TARGETS = {("copy", p): 0.95 for p in ("f32", "f64")}
TARGETS.update({(k, p): 0.92 for k in ("7pt", "sym27", "box27") for p in ("f32", "f64")})
TARGETS.update({(k, p): 0.90 for k in ("star2", "star3") for p in ("f32", "f64")})
TARGETS.update({("star4", "f32"): 0.85, ("star4", "f64"): 0.88, ("apply:7pt", "f32"): 0.90})
SIDE_ROWS = ["copy", "7pt", "sym27", "box27", "star2", "star3", "star4", "apply:7pt", "apply:star4"]


def rows_at(results, shape):
    """The row each kernel and precision ran by default at `shape` (what strata::apply runs;
    the apply:* rows are the whole call), keyed by (kernel, precision)."""
    out = {}
    for r in results:
        if tuple(r["shape"]) != shape:
            continue
        e = r.get("extra", {})
        if e.get("default") or (r["kernel"].startswith("apply:") and "ratio_to_memcpy" in e):
            out[(r["kernel"], r["precision"])] = r
    return out


def side_by_side(paths, shape=(512, 512, 512)):
    """One table, a column group per results file (GPU): Gpts/s, the ratio to cudaMemcpy of the
    same run, the launch shape and where it came from, then the target."""
    docs = [json.load(open(p)) for p in paths]
    for p, d in zip(paths, docs):
        print(f"<!-- {p}: commit {d['commit']}, {d['device']} -->")
    print()
    head = "| kernel | prec | " + " | ".join(
        f"{d['device']} Gpts/s | of memcpy | shape" for d in docs) + " | target (of memcpy) |"
    print(head)
    print("|" + " --- |" * (head.count("|") - 1))
    tables = [rows_at(d["results"], shape) for d in docs]
    for k in SIDE_ROWS:
        for prec in ("f32", "f64"):
            if not any((k, prec) in t for t in tables):
                continue
            cells = []
            for t in tables:
                r = t.get((k, prec))
                if r is None:
                    cells += ["", "", ""]
                    continue
                e = r.get("extra", {})
                choice = e.get("choice", "")
                cells += [f"{r['gpts_per_s']:.1f}", f"{e.get('ratio_to_memcpy', 0):.3f}",
                          r["variant"] + (f" ({choice})" if choice else "")]
            target = TARGETS.get((k, prec))
            print(f"| {k} | {prec} | " + " | ".join(cells) + f" | {'>= %.2f' % target if target else ''} |")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--side-by-side":
        side_by_side(sys.argv[2:])
        return
    path = sys.argv[1] if len(sys.argv) > 1 else "bench/results/nvidia-h100-80gb-hbm3.json"
    d = json.load(open(path))
    res = d["results"]
    rows = default_rows(res)
    print(f"<!-- {path}: commit {d['commit']}, {d['device']} -->\n")

    print("| stencil | fp32 Gpts/s | fp32 ratio | fp64 Gpts/s | fp64 ratio |")
    print("| --- | --- | --- | --- | --- |")
    cube = (512, 512, 512)
    for k, name in [("copy", "copy (reference)")] + STENCILS:
        a, b = rows[(k, "f32", cube)], rows[(k, "f64", cube)]
        print(f"| {name} | {a['gpts_per_s']:.0f} | {a['ratio_to_copy']:.3f} | {b['gpts_per_s']:.0f} | {b['ratio_to_copy']:.3f} |")
    print()

    print("| shape | prec | copy GB/s | 7pt | star4 | sym27 | box27 |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    shapes = []
    for (k, p, s) in rows:
        if k == "copy" and s not in shapes:
            shapes.append(s)
    for p in ("f32", "f64"):
        for s in shapes:
            if ("copy", p, s) not in rows:
                continue
            cells = [f"{rows[(k, p, s)]['ratio_to_copy']:.3f}" if (k, p, s) in rows else "" for k in ("7pt", "star4", "sym27", "box27")]
            print(f"| {shape_name(s)} | {p} | {rows[('copy', p, s)]['gb_per_s']:.0f} | " + " | ".join(cells) + " |")
    print()

    print("| kernel | fp32 GB/s | vs CUB | vs copy | fp64 GB/s | vs CUB | vs copy |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for k in ("sum", "dot", "max_abs"):
        cells = []
        for p in ("f32", "f64"):
            r = [x for x in res if x["kernel"] == k and x["precision"] == p and "ratio_to_cub" in x.get("extra", {})]
            if r:
                r = r[0]
                cells += [f"{r['gb_per_s']:.0f}", f"{r['extra']['ratio_to_cub']:.3f}", f"{r['ratio_to_copy']:.3f}"]
            else:
                cells += ["", "", ""]
        print(f"| {k} | " + " | ".join(cells) + " |")
    print()

    print("Poisson and wave figures:")
    for r in res:
        k = r["kernel"]
        e = r.get("extra", {})
        if k.startswith("vcycle"):
            print(f"- {k} {r['precision']} {shape_name(r['shape'])}: {r['median_ms']:.3f} ms "
                  f"({1e3 / r['median_ms']:.0f} cycles/s), factor {e.get('convergence_factor', 0):.3f}")
        elif k.startswith("solve") or k.startswith("fft"):
            print(f"- {k} {r.get('variant', '')} {r['precision']} {shape_name(r['shape'])}: {r['median_ms']:.1f} ms"
                  + (f", {e['iterations']} it., residual {e['rel_residual']:.2e} (rtol {e['rtol']:.0e}),"
                     f" setup {e['setup_ms']:.1f} ms" if "iterations" in e else ""))
        elif k == "wave_step" and "cost_over_rigid" in e:
            print(f"- {k} {r['variant']} {r['precision']}: {r['median_ms']:.3f} ms, {e['cost_over_rigid']:.2f}x rigid (share {e['share']:.3f})")
        elif k == "wave" and e.get("default"):
            print(f"- wave {r['precision']} {shape_name(r['shape'])}: {e['gpts_per_s']:.1f} Gpts/s = "
                  f"{e['gpts_per_s'] / e['copy_gb_per_s_over_bpp']:.3f} of copy/16 B"
                  + (f", {e['ratio_to_memcpy']:.3f} of cudaMemcpy/16 B" if "ratio_to_memcpy" in e else ""))


if __name__ == "__main__":
    main()
