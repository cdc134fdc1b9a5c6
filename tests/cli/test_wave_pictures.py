#!/usr/bin/env python3
"""`strata wave`'s pictures read as a scientist reads them. `strata info` says whether they
are annotated (cairo) or plain. Annotated: model.png, seismogram.png and a snapshot are
figures with a colour bar right of the plot that runs through the colour map (read from the
PNG's pixels), text in the title band and left of the plot, and the size of a figure, not of
the raster. Plain (a build without cairo): the run says so once, naming
`python -m strata.plot`. Standard library only.
Usage: test_wave_pictures.py PATH_TO_STRATA"""
import json
import os
import tempfile

from clitest import check, finish, read_png, run_strata

# The colour maps' anchors (src/io/colormap.cpp).
SEISMIC = [(0.0, (0, 0, 77)), (0.25, (0, 0, 255)), (0.5, (255, 255, 255)), (0.75, (255, 0, 0)), (1.0, (128, 0, 0))]
VIRIDIS = [(i / 10, tuple(int(c[j:j + 2], 16) for j in (0, 2, 4))) for i, c in enumerate(
    "440154 482475 414487 355f8d 2a788e 21918c 22a884 44bf70 7ad151 bddf26 fde725".split())]


def colour(anchors, t):
    for (t0, c0), (t1, c1) in zip(anchors, anchors[1:]):
        if t <= t1:
            f = (t - t0) / (t1 - t0)
            return tuple(round(a + f * (b - a)) for a, b in zip(c0, c1))
    return anchors[-1][1]


def distance(a, b):
    return sum(abs(x - y) for x, y in zip(a, b))


def colour_bar(rows, w, h, anchors):
    """The column right of the middle where the pixels run from the map's top colour down
    to its bottom colour over at least 120 rows, through the map in between; None if none."""
    top, bottom = colour(anchors, 1.0), colour(anchors, 0.0)
    for x in range(w // 2, w):
        col = [rows[y][x] for y in range(h)]
        ys = [y for y in range(h) if distance(col[y], top) < 20]
        ye = [y for y in range(h) if distance(col[y], bottom) < 20]
        if not ys or not ye or ye[-1] - ys[0] < 120:
            continue
        y0, y1 = ys[0], ye[-1]
        if all(distance(col[y0 + round(f * (y1 - y0))], colour(anchors, 1 - f)) < 30 for f in
               (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)):
            return x
    return None


def text_pixels(rows, x0, x1, y0, y1):
    """Dark grey pixels (black glyphs, anti-aliased) in [x0, x1) x [y0, y1)."""
    return sum(1 for y in range(y0, y1) for x in range(x0, x1)
               if max(rows[y][x]) < 110 and max(rows[y][x]) - min(rows[y][x]) < 30)


CFG = {
    "grid": {"shape": [40, 20, 30], "spacing": 10.0},
    "model": {"type": "layered", "layers": [{"top": 0, "velocity": 1500}, {"top": 150, "velocity": 2500}]},
    "time": {"steps": 40},
    "scheme": {"order": 4},
    "sources": [{"position": [200.0, 100.0, 40.0], "frequency": 25.0}],
    "receivers": {"lines": [{"start": [60.0, 100.0, 20.0], "end": [340.0, 100.0, 20.0], "count": 15}]},
    "boundary": {"pml": {"width": 6}},
    "output": {"snapshots": {"every": 40, "npy": False, "vti": False, "png": True}},
    "device": "cpu",
}

r = run_strata("info")
line = next((l for l in r.stdout.splitlines() if l.strip().startswith("pictures:")), "")
check("strata info says how the pictures are drawn", r.returncode == 0 and line != "", r.stdout)
annotated = line.split(":", 1)[-1].strip().startswith("annotated")

with tempfile.TemporaryDirectory() as tmp:
    cfg = os.path.join(tmp, "c.json")
    with open(cfg, "w") as f:
        json.dump(CFG, f)
    out = os.path.join(tmp, "out")
    r = run_strata("wave", "--config", cfg, "--out-dir", out, "--progress", "off", "--quiet")
    check("the run succeeds", r.returncode == 0, r.stderr)
    said = r.stderr.count("built without cairo")
    if annotated:
        check("an annotated build says nothing about plain pictures", said == 0, r.stderr)
        for name, anchors in [("model.png", VIRIDIS), ("seismogram.png", SEISMIC), ("snapshots/u_000040.png", SEISMIC)]:
            path = os.path.join(out, name)
            if not os.path.exists(path):
                check(name + " written", False)
                continue
            w, h, rows = read_png(path)
            check(f"{name} is a figure, not the raster alone ({w} x {h})", w >= 400 and h >= 300 and (w, h) not in
                  [(40 * 12, 30 * 17), (15 * 16, 21 * 4)], f"{w} x {h}")
            x = colour_bar(rows, w, h, anchors)
            check(name + " has a colour bar right of the plot", x is not None)
            check(name + " has a title", text_pixels(rows, 0, w, 0, 30) > 40)
            check(name + " has the vertical axis's title and tick labels", text_pixels(rows, 0, 70, 40, h - 60) > 60)
            check(name + " has the horizontal axis's ticks and title", text_pixels(rows, 70, (x or w) - 20, h - 80, h) > 60)
            if x is not None:
                check(name + " labels its colour bar", text_pixels(rows, x + 12, w, 40, h - 60) > 60)
    else:
        check("a build without cairo says once that its pictures are plain, and how to get annotated ones",
              said == 1 and "python -m strata.plot " + out in r.stderr and "libcairo2-dev" in r.stderr, r.stderr)
        rep = json.load(open(os.path.join(out, "report.json")))
        check("the report keeps that warning", any("built without cairo" in w for w in rep["warnings"]), rep["warnings"])

finish()
