#!/usr/bin/env python3
"""strata's SEG-Y against segyio, the reference library (Equinor's; `pip install segyio`).

Both ways, through tests/io/segy_probe.cpp (strata's reader and writer as a program):
  strata -> segyio  every format strata writes (1, 2, 3, 5, 6, 8; big- and little-endian),
                    read by segyio: the same samples, trace headers, binary header and text;
                    the IBM bits on disk checked against an exact IBM encoder written here
                    (fractions.Fraction, nearest with ties to even)
  segyio -> strata  files segyio writes (formats 1 and 5; big-endian, and little-endian
                    without rev 2's byte-order constant; rev 0 and rev 1 fixed-length),
                    read by strata: the samples segyio reads back, bit for bit, and the
                    headers with their scalars applied as the standard says
  strata wave       (given the strata CLI) `output.segy`'s seismogram.sgy, read by segyio:
                    seismogram.npy's columns as traces, receivers.npy's positions
Without segyio (or numpy) it exits 77, which CTest reports as skipped, never as passed.

Usage: test_segy_segyio.py STRATA_SEGY_PROBE [STRATA]
"""
import json
import math
import os
import struct
import subprocess
import sys
import tempfile
from fractions import Fraction
from importlib.metadata import version

try:
    import numpy as np
    import segyio
except ImportError as e:
    print(f"skipped: segyio (and numpy) are needed for the SEG-Y cross-check ({e}); "
          "pip install segyio")
    sys.exit(77)

PROBE = sys.argv[1]
STRATA = sys.argv[2] if len(sys.argv) > 2 else None
TF = segyio.TraceField
BF = segyio.BinField
FAILURES = []
CHECKS = [0]


def check(cond, what):
    CHECKS[0] += 1
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what)


# ---- strata's probe ------------------------------------------------------------------------

HEADER_KEYS = ["sequence_line", "sequence_file", "field_record", "record_trace", "cdp", "offset",
               "group_elevation", "source_elevation", "source_depth", "source_x", "source_y",
               "group_x", "group_y"]


def strata_write(path, fmt, endian, dt, headers, samples):
    lines = [f"{len(headers)} {samples.shape[1]}"]
    for h, s in zip(headers, samples):
        lines.append(" ".join(repr(h[k]) for k in HEADER_KEYS))
        lines.append(" ".join(repr(float(v)) for v in s))
    r = subprocess.run([PROBE, "write", path, str(fmt), endian, repr(dt)], input="\n".join(lines) + "\n",
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"strata_segy_probe write failed: {r.stderr}")


def strata_dump(path, precision="float"):
    r = subprocess.run([PROBE, "dump", path, precision], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"strata_segy_probe dump {path} failed: {r.stderr}")
    d = {"text": [], "traces": [], "samples": []}
    for line in r.stdout.splitlines():
        key, _, rest = line.partition(" ")
        if key == "text":
            d["text"].append(rest)
        elif key == "trace":
            w = rest.split()
            t = dict(zip(HEADER_KEYS, [int(x) for x in w[:6]] + [float(x) for x in w[6:13]]))
            t.update(ns=int(w[13]), dt_us=int(w[14]), elevation_scalar=int(w[15]), coordinate_scalar=int(w[16]))
            d["traces"].append(t)
        elif key == "samples":
            d["samples"].append([float(x) for x in rest.split()])
        else:
            d[key] = rest
    return d


# ---- IBM, exactly --------------------------------------------------------------------------

def ibm_bits(x):
    """The nearest IBM single (ties to even fraction) of a finite float, by exact arithmetic."""
    sign = 0x80000000 if np.signbit(x) else 0
    a = Fraction(abs(float(x)))
    if a == 0:
        return sign
    e = 0  # a = F 16^e with F in [1/16, 1)
    while a >= Fraction(16) ** e:
        e += 1
    while a < Fraction(16) ** (e - 1):
        e -= 1
    frac = round(a / Fraction(16) ** e * 2 ** 24)  # Python rounds halves to even
    if frac == 2 ** 24:
        frac, e = 2 ** 20, e + 1
    return sign | (e + 64) << 24 | frac


def ibm_value(bits):
    v = Fraction(bits & 0xFFFFFF, 2 ** 24) * Fraction(16) ** (((bits >> 24) & 0x7F) - 64)
    return -float(v) if bits >> 31 else float(v)


# ---- data ----------------------------------------------------------------------------------

rng = np.random.default_rng(40)
NS, NTRACES = 53, 7
DTYPES = {1: np.float32, 2: np.int32, 3: np.int16, 5: np.float32, 6: np.float64, 8: np.int8}


def shot_headers(n):
    return [dict(sequence_line=i + 1, sequence_file=i + 1, field_record=4, record_trace=i + 1, cdp=200 + i,
                 offset=-90 + 30 * i, group_elevation=-12.25, source_elevation=0.0, source_depth=6.5,
                 source_x=1000.75, source_y=-250.5, group_x=910.0 + 30.01 * i, group_y=-250.5)
            for i in range(n)]


def samples_for(fmt):
    if fmt in (2, 3, 8):
        info = np.iinfo(DTYPES[fmt])
        s = rng.integers(info.min, info.max, size=(NTRACES, NS), endpoint=True).astype(np.float64)
        s[0, :2] = [info.min, info.max]
        return s
    s = rng.normal(0, 1e3, size=(NTRACES, NS)) * 10.0 ** rng.integers(-20, 20, size=(NTRACES, NS))
    s[0, :4] = [0.0, -0.0, 1.0, -118.625]
    if fmt == 5:  # float32 as written; the probe sends doubles
        s = s.astype(np.float32).astype(np.float64)
    return s


# ---- strata -> segyio ----------------------------------------------------------------------

def strata_to_segyio(tmp, fmt, endian):
    where = f"strata -> segyio, format {fmt}, {endian}-endian"
    path = os.path.join(tmp, f"strata_{fmt}_{endian}.sgy")
    headers, samples = shot_headers(NTRACES), samples_for(fmt)
    strata_write(path, fmt, endian, 0.0025, headers, samples)
    mine = strata_dump(path, "double")
    raw = open(path, "rb").read()
    with segyio.open(path, "r", ignore_geometry=True, endian=endian) as f:
        check(f.tracecount == NTRACES, f"{where}: {f.tracecount} traces")
        check(len(f.samples) == NS, f"{where}: {len(f.samples)} samples per trace")
        check(f.bin[BF.Format] == fmt and f.bin[BF.Interval] == 2500 and f.bin[BF.Samples] == NS,
              f"{where}: binary header {f.bin[BF.Format]}, {f.bin[BF.Interval]}, {f.bin[BF.Samples]}")
        check(f.bin[BF.TraceFlag] == 1, f"{where}: fixed-length flag {f.bin[BF.TraceFlag]}")
        text = f.text[0].decode("ascii", "replace")
        check(text == raw[:3200].decode("cp037"), f"{where}: segyio's text differs from code page 037's")
        check(text == "".join(mine["text"]), f"{where}: segyio's text differs from strata's:\n{text}")
        check(text.startswith("C 1 SEG-Y rev") and "strata" in text[:80], f"{where}: text {text[:80]!r}")
        data = f.trace.raw[:]
        check(data.dtype == DTYPES[fmt], f"{where}: segyio reads {data.dtype}")
        for i, h in enumerate(headers):
            th = f.header[i]
            for key, field in [("sequence_line", TF.TRACE_SEQUENCE_LINE), ("sequence_file", TF.TRACE_SEQUENCE_FILE),
                               ("field_record", TF.FieldRecord), ("record_trace", TF.TraceNumber),
                               ("cdp", TF.CDP), ("offset", TF.offset)]:
                check(th[field] == h[key], f"{where}: trace {i} {key} {th[field]} != {h[key]}")
            check(th[TF.TRACE_SAMPLE_COUNT] == NS and th[TF.TRACE_SAMPLE_INTERVAL] == 2500,
                  f"{where}: trace {i} ns/dt {th[TF.TRACE_SAMPLE_COUNT]}/{th[TF.TRACE_SAMPLE_INTERVAL]}")
            for key, field, scalar in [("source_x", TF.SourceX, TF.SourceGroupScalar),
                                       ("source_y", TF.SourceY, TF.SourceGroupScalar),
                                       ("group_x", TF.GroupX, TF.SourceGroupScalar),
                                       ("group_y", TF.GroupY, TF.SourceGroupScalar),
                                       ("group_elevation", TF.ReceiverGroupElevation, TF.ElevationScalar),
                                       ("source_elevation", TF.SourceSurfaceElevation, TF.ElevationScalar),
                                       ("source_depth", TF.SourceDepth, TF.ElevationScalar)]:
                s = th[scalar]
                check(s == -100, f"{where}: trace {i} scalar {s}")
                metres = th[field] / 100
                check(metres == mine["traces"][i][key], f"{where}: trace {i} {key}: segyio {metres}, "
                                                        f"strata {mine['traces'][i][key]}")
                check(abs(metres - h[key]) <= 0.005 + 1e-9, f"{where}: trace {i} {key} {metres} vs {h[key]}")
            got = data[i].astype(np.float64)
            check(np.array_equal(got, np.array(mine["samples"][i]), equal_nan=True),
                  f"{where}: trace {i} samples differ between segyio and strata")
            if fmt == 1:
                start = 3600 + i * (240 + 4 * NS) + 240
                order = ">" if endian == "big" else "<"
                bits = struct.unpack(f"{order}{NS}I", raw[start:start + 4 * NS])
                want = [ibm_bits(v) for v in samples[i]]
                check(list(bits) == want, f"{where}: trace {i} IBM bits are not the nearest: "
                                          f"{[hex(b) for b in bits[:4]]} vs {[hex(b) for b in want[:4]]}")
                check(np.array_equal(got, np.array([ibm_value(b) for b in bits], dtype=np.float32)),
                      f"{where}: trace {i}: IBM read back differs from the exact value")
            else:
                check(np.array_equal(got, samples[i].astype(DTYPES[fmt]).astype(np.float64)),
                      f"{where}: trace {i} samples are not the ones written")


# ---- segyio -> strata ----------------------------------------------------------------------

def segyio_to_strata(tmp, fmt, endian, revision):
    where = f"segyio -> strata, format {fmt}, {endian}-endian, rev {revision}"
    path = os.path.join(tmp, f"segyio_{fmt}_{endian}_{revision}.sgy")
    spec = segyio.spec()
    spec.format, spec.samples, spec.tracecount, spec.endian = fmt, list(range(NS)), NTRACES, endian
    data = (rng.normal(0, 1, size=(NTRACES, NS)) * 10.0 ** rng.integers(-6, 6, size=(NTRACES, NS))).astype(np.float32)
    data[0, :3] = [0.0, 1.0, -118.625]
    scalars = [(-1000, 10), (100, -10), (0, 1)]  # (coordinate, elevation): divide, multiply, none
    with segyio.create(path, spec) as f:
        f.text[0] = segyio.tools.create_text_header({1: "WRITTEN BY SEGYIO FOR STRATA", 2: f"FORMAT {fmt}"})
        f.bin.update(hdt=4000, hns=NS, format=fmt)
        if revision == 1:
            f.bin.update({BF.SEGYRevision: 1, BF.TraceFlag: 1})
        for i in range(NTRACES):
            cs, es = scalars[i % 3]
            f.header[i] = {TF.TRACE_SEQUENCE_LINE: i + 1, TF.TRACE_SEQUENCE_FILE: 1000 + i, TF.FieldRecord: 9,
                           TF.TraceNumber: i + 1, TF.CDP: 50 + i, TF.offset: 25 * i - 60,
                           TF.ReceiverGroupElevation: -700 - i, TF.SourceSurfaceElevation: 3, TF.SourceDepth: 41,
                           TF.ElevationScalar: es, TF.SourceGroupScalar: cs, TF.SourceX: 123456 + i,
                           TF.SourceY: -98765, TF.GroupX: 2000 * i - 7, TF.GroupY: 31,
                           TF.TRACE_SAMPLE_COUNT: NS, TF.TRACE_SAMPLE_INTERVAL: 4000}
            f.trace[i] = data[i]
    with segyio.open(path, "r", ignore_geometry=True, endian=endian) as f:
        theirs = f.trace.raw[:].astype(np.float64)
        headers = [f.header[i] for i in range(NTRACES)]
        text = f.text[0].decode("ascii", "replace")
    for precision in ("float", "double"):
        mine = strata_dump(path, precision)
        check(mine["format"] == str(fmt), f"{where}: strata reads format {mine['format']}")
        check(mine["endian"] == endian, f"{where}: strata reads {mine['endian']}-endian")
        check(mine["ns"] == str(NS) and mine["dt_us"] == "4000", f"{where}: ns {mine['ns']}, dt {mine['dt_us']}")
        check(mine["count"] == str(NTRACES), f"{where}: strata reads {mine['count']} traces")
        check("".join(mine["text"]) == text, f"{where}: textual header differs")
        check(np.array_equal(np.array(mine["samples"]), theirs), f"{where} ({precision}): samples differ")
        if fmt == 5:
            check(np.array_equal(np.array(mine["samples"]), data.astype(np.float64)),
                  f"{where} ({precision}): samples are not the ones segyio was given")
        for i, th in enumerate(headers):
            t = mine["traces"][i]
            cs, es = th[TF.SourceGroupScalar], th[TF.ElevationScalar]

            def apply(v, s):
                return v * s if s > 0 else v / -s if s < 0 else float(v)

            want = dict(sequence_line=th[TF.TRACE_SEQUENCE_LINE], sequence_file=th[TF.TRACE_SEQUENCE_FILE],
                        field_record=th[TF.FieldRecord], record_trace=th[TF.TraceNumber], cdp=th[TF.CDP],
                        offset=th[TF.offset], group_elevation=apply(th[TF.ReceiverGroupElevation], es),
                        source_elevation=apply(th[TF.SourceSurfaceElevation], es),
                        source_depth=apply(th[TF.SourceDepth], es), source_x=apply(th[TF.SourceX], cs),
                        source_y=apply(th[TF.SourceY], cs), group_x=apply(th[TF.GroupX], cs),
                        group_y=apply(th[TF.GroupY], cs), ns=NS, dt_us=4000, elevation_scalar=es,
                        coordinate_scalar=cs)
            for k, v in want.items():
                check(t[k] == v, f"{where}: trace {i} {k}: strata {t[k]}, segyio {v}")
    return path


# ---- strata wave's seismogram.sgy -----------------------------------------------------------

def wave_seismogram(tmp):
    where = "strata wave output.segy"
    cfg = {"grid": {"shape": [40, 24, 30], "spacing": 10.0},
           "model": {"type": "layered", "layers": [{"top": 0, "velocity": 1500}, {"top": 150, "velocity": 2500}]},
           "time": {"steps": 120, "dt": 0.0008}, "scheme": {"order": 8, "precision": "f64"},
           "sources": [{"position": [200.0, 120.0, 35.0], "frequency": 20.0}],
           "receivers": {"every": 3, "lines": [{"start": [52.5, 117.25, 20.0], "end": [352.5, 117.25, 20.0],
                                                "count": 13}]},
           "boundary": {"pml": {"width": 8}},
           "output": {"segy": True, "seismogram_png": False, "model_png": False}, "device": "cpu"}
    path, out = os.path.join(tmp, "wave.json"), os.path.join(tmp, "wave")
    with open(path, "w") as f:
        json.dump(cfg, f)
    r = subprocess.run([STRATA, "wave", "--config", path, "--out-dir", out, "--quiet", "--progress", "off"],
                       capture_output=True, text=True)
    check(r.returncode == 0, f"{where}: the run failed: {r.stderr}")
    if r.returncode != 0:
        return
    seis, recs = np.load(os.path.join(out, "seismogram.npy")), np.load(os.path.join(out, "receivers.npy"))
    with segyio.open(os.path.join(out, "seismogram.sgy"), "r", ignore_geometry=True) as f:
        check(f.tracecount == recs.shape[0] == 13, f"{where}: {f.tracecount} traces")
        check(len(f.samples) == seis.shape[0] == 41, f"{where}: {len(f.samples)} samples")
        check(f.bin[BF.Interval] == 2400 and f.bin[BF.Format] == 5, f"{where}: dt {f.bin[BF.Interval]}")
        check(np.max(np.abs(seis)) > 0, f"{where}: the seismogram is all zeros: nothing compared")
        # f64 run, float32 file: the values rounded once.
        check(np.array_equal(f.trace.raw[:], seis.T.astype(np.float32)), f"{where}: traces differ from the .npy")
        for i in range(f.tracecount):
            h = f.header[i]
            x, y, elev = (h[TF.GroupX] / 100, h[TF.GroupY] / 100, h[TF.ReceiverGroupElevation] / 100)
            check(h[TF.SourceGroupScalar] == -100 and (x, y, -elev) == tuple(recs[i]),
                  f"{where}: trace {i} at {(x, y, -elev)}, receiver {tuple(recs[i])}")
            check((h[TF.SourceX], h[TF.SourceY], h[TF.SourceDepth]) == (20000, 12000, 3500),
                  f"{where}: trace {i} source {(h[TF.SourceX], h[TF.SourceY], h[TF.SourceDepth])}")
            check(h[TF.offset] == round(math.hypot(recs[i][0] - 200, recs[i][1] - 120)),
                  f"{where}: trace {i} offset {h[TF.offset]}")
        text = f.text[0].decode("ascii")
        check("strata wave" in text and "config.json" in text and "(200, 120, 35) m, Ricker 20 Hz" in text,
              f"{where}: textual header\n{text}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in (1, 2, 3, 5, 6, 8):
            for endian in ("big", "little"):
                strata_to_segyio(tmp, fmt, endian)
        for fmt in (1, 5):
            for revision in (0, 1):
                segyio_to_strata(tmp, fmt, "big", revision)
            path = segyio_to_strata(tmp, fmt, "little", 0)
            check(open(path, "rb").read()[3296:3300] == b"\0\0\0\0",
                  "segyio now writes rev 2's byte-order constant: the little-endian case no longer "
                  "tests detection without it")
        if STRATA:
            wave_seismogram(tmp)
    if FAILURES:
        print(f"{len(FAILURES)} of {CHECKS[0]} checks failed")
        return 1
    print(f"segyio {version('segyio')}: strata's SEG-Y agrees both ways in {CHECKS[0]} checks "
          "(formats 1, 2, 3, 5, 6, 8 written; 1 and 5 read from segyio, both byte orders"
          + ("; strata wave's seismogram.sgy)" if STRATA else ")"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
